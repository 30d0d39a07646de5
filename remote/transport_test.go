package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/fan-run/fan/runner"
)

// A failure to reach a host is told apart from the failure of what ran
// there, wrapped or not, and its message drops the host's name, which the
// messages that use it give already.
func TestTransportCause(t *testing.T) {
	down := errors.New("ssh: connect to host h1 port 22: Connection refused")
	te := &runner.TransportError{Host: "h1", Err: down}
	for _, c := range []struct {
		err       error
		transport bool
		cause     error
	}{
		{te, true, down},
		{fmt.Errorf("sending: %w", te), true, down},
		{fs.ErrNotExist, false, fs.ErrNotExist},
	} {
		if got := runner.IsTransport(c.err); got != c.transport {
			t.Errorf("IsTransport(%v) = %v", c.err, got)
		}
		if got := transportCause(c.err); got != c.cause {
			t.Errorf("transportCause(%v) = %v, want %v", c.err, got, c.cause)
		}
	}
}
