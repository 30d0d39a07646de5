package cmd

import (
	"errors"
	"syscall"

	"fan/output"
)

// Exit statuses, as GNU parallel's.
const (
	exitOK          = 0
	exitManyFailed  = 101 // more than 100 jobs failed
	exitInterrupted = 130 // a signal cut the run short
	exitBrokenPipe  = 141 // stdout was closed (128 + SIGPIPE)
	exitError       = 255 // usage, input or output error
)

// exitStatus is the one place where the outcome of a run becomes fan's exit
// status.
func exitStatus(stats output.Stats, err error, interrupted bool) int {
	var ue *usageError
	var ie *inputError
	switch {
	case errors.As(err, &ue), errors.As(err, &ie):
		return exitError
	case errors.Is(err, syscall.EPIPE):
		return exitBrokenPipe
	case err != nil:
		return exitError
	case interrupted:
		return exitInterrupted
	case stats.Failed > 100:
		return exitManyFailed
	}
	return int(stats.Failed)
}
