package cmd

import (
	"errors"
	"math"
	"syscall"

	"fan/output"
	"fan/runner"
)

// Exit statuses, as GNU parallel's.
const (
	exitOK          = 0
	exitManyFailed  = 101 // more than 100 jobs failed
	exitInterrupted = 130 // a signal cut the run short
	exitBrokenPipe  = 141 // stdout was closed (128 + SIGPIPE)
	exitError       = 255 // usage, input or output error
)

// outcome is what a run came to.
type outcome struct {
	stats       output.Stats
	err         error
	interrupted bool        // a signal cut the run short
	halted      bool        // --halt fired
	halt        runner.Halt // the --halt condition
}

// exitStatus is the one place where the outcome of a run becomes fan's exit
// status.
func exitStatus(o outcome) int {
	var ue *usageError
	var ie *inputError
	s := o.stats
	switch {
	case errors.As(o.err, &ue), errors.As(o.err, &ie):
		return exitError
	case errors.Is(o.err, syscall.EPIPE):
		return exitBrokenPipe
	case o.err != nil:
		return exitError
	case o.interrupted:
		return exitInterrupted
	case o.halted && o.halt.Why == "success":
		return exitOK
	case o.halted && o.halt.Why == "fail" && !o.halt.Percent && o.halt.Count == 1:
		return s.FirstFailure // GNU parallel: the failing job's own status
	case o.halt.Percent && o.halt.Why == "fail" && s.OK+s.Failed > 0:
		return int(math.Round(100 * float64(s.Failed) / float64(s.OK+s.Failed)))
	case s.Failed > 100:
		return exitManyFailed
	}
	return int(s.Failed)
}
