// Package shellwords splits a line into words as a POSIX shell does, for
// the command lines and option lists fan reads from variables and files
// (--ssh, FAN_OPTS, ~/.parallel/config), without running a shell.
package shellwords

import (
	"errors"
	"strings"
)

// Refuse is asked about each unquoted byte c that is not a blank, and
// about $ and ` inside "...": a non-nil error stops the split with it.
// inWord says whether c continues a word.
type Refuse func(s string, c byte, inWord bool) error

// Split splits s at blanks, with '...', "..." and backslashes quoting, as
// a shell would; nothing is expanded. refuse, when set, can reject what a
// shell would do more (variables, pipes ...).
func Split(s string, refuse Refuse) ([]string, error) {
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
					if refuse != nil {
						if err := refuse(s, s[i], true); err != nil {
							return nil, err
						}
					}
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
		default:
			if refuse != nil {
				if err := refuse(s, c, inWord); err != nil {
					return nil, err
				}
			}
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
