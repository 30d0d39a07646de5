package remote

import (
	"errors"

	"github.com/fan-run/fan/runner"
)

// transport wraps err as a failure to reach h's host.
func (h *Host) transport(err error) error {
	return &runner.TransportError{Host: h.login.String(), Err: err}
}

// transportCause is what kept a host from being reached, when err is a
// *runner.TransportError, without the host's name (for a message that
// names the host already); else err itself.
func transportCause(err error) error {
	var te *runner.TransportError
	if errors.As(err, &te) {
		return te.Err
	}
	return err
}
