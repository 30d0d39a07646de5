package remote

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits an ssh command (--ssh, $PARALLEL_SSH, a login's own
// "ssh -p 2222") into words as a shell would: at blanks, with '...', "..."
// and backslashes quoting. Anything a shell would do more (variables,
// substitutions, pipes, redirections, comments, a leading ~) is refused
// rather than misread: put such a command in a script and name the script.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a ' is not closed")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '\\':
					if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
					}
				case '$', '`':
					return nil, fmt.Errorf("%q in %q needs a shell: put the command in a script", s[i], s)
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`a " is not closed`)
			}
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case strings.IndexByte("$`;&|<>()", c) >= 0, !inWord && (c == '#' || c == '~'):
			return nil, fmt.Errorf("%q in %q needs a shell: put the command in a script", c, s)
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("the ssh command is empty")
	}
	return words, nil
}
