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
	interrupted bool           // a signal cut the run short
	halted      *runner.Halted // how the run stood when --halt fired, or nil
	halt        runner.Halt    // the --halt condition
}

// exitStatus is the one place where the outcome of a run becomes fan's exit
// status.
func exitStatus(o outcome) int {
	var ue *usageError
	var ie *inputError
	switch {
	case errors.As(o.err, &ue), errors.As(o.err, &ie):
		return exitError
	case errors.Is(o.err, syscall.EPIPE):
		return exitBrokenPipe
	case o.err != nil:
		return exitError
	case o.interrupted:
		return exitInterrupted
	case o.halt.Why != "":
		return haltStatus(o.halt, o.halted, o.stats)
	}
	return min(int(o.stats.Failed), exitManyFailed)
}

// haltStatus is GNU parallel's exit status under --halt: when the condition
// was met, for success 0; for fail or done, the status of the job that met a
// count of 1, else the failed jobs as a percentage of all jobs (rounded up)
// or as a count. When it was never met, the failed jobs as a percentage of
// those started, or as a count.
func haltStatus(h runner.Halt, at *runner.Halted, s output.Stats) int {
	failed, total := int(s.Failed), int(s.OK+s.Failed)
	if at != nil {
		switch {
		case h.Why == "success":
			return exitOK
		case !h.Percent && h.Count == 1:
			return at.Status
		}
		failed, total = at.Failed, at.Total
	}
	if h.Percent {
		return int(math.Ceil(100 * float64(failed) / float64(max(total, 1))))
	}
	return min(failed, exitManyFailed)
}
