package remote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fan-run/fan/internal/shellwords"
)

// SplitCommand splits an ssh command (--ssh, $PARALLEL_SSH, a login's own
// "ssh -p 2222") into words as a shell would: at blanks, with '...', "..."
// and backslashes quoting. Anything a shell would do more (variables,
// substitutions, pipes, redirections, comments, a leading ~) is refused
// rather than misread: put such a command in a script and name the script.
func SplitCommand(s string) ([]string, error) {
	words, err := shellwords.Split(s, func(s string, c byte, inWord bool) error {
		if strings.IndexByte("$`;&|<>()", c) >= 0 || !inWord && (c == '#' || c == '~') {
			return fmt.Errorf("%q in %q needs a shell: put the command in a script", c, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, errors.New("the ssh command is empty")
	}
	return words, nil
}
