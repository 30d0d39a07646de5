package cmd

import (
	"errors"
	"math"
	"syscall"

	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
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
	interrupted bool               // a signal cut the run short
	halted      *runner.Halted     // how the run stood when --halt fired, or nil
	halt        runner.Halt        // the --halt condition
	xargs       bool               // --xargs: xargs's exit statuses
	xargsAbort  *runner.XargsAbort // --xargs: why the run stopped early
	xargsFailed bool               // --xargs: a command exited 1–125
	hostsGone   bool               // -S: no host could be reached for --host-timeout
	status      *int               // --semaphore: the command's own exit status
}

// Exit statuses under --xargs, as GNU xargs's.
const (
	xargsError    = 1   // fan's own error: usage, input, an unmatched quote
	xargsFailed   = 123 // a command exited 1–125
	xargsExit255  = 124 // a command exited 255 (the run stopped there)
	xargsSignaled = 125 // a command was killed by a signal
	xargsNoExec   = 126 // a command could not be run
	xargsNotFound = 127 // a command was not found
)

// xargsAbortStatus maps why an --xargs run stopped early to its status.
var xargsAbortStatus = map[runner.XargsWhy]int{
	runner.XargsExit255:  xargsExit255,
	runner.XargsSignal:   xargsSignaled,
	runner.XargsNoExec:   xargsNoExec,
	runner.XargsNotFound: xargsNotFound,
}

// xargsStatus is exitStatus under --xargs.
func xargsStatus(o outcome) int {
	switch {
	case errors.Is(o.err, syscall.EPIPE):
		return exitBrokenPipe
	case o.err != nil:
		var ie *inputError
		if errors.As(o.err, &ie) && o.xargsFailed {
			return xargsFailed // xargs too: a failed command outranks bad input
		}
		return xargsError
	case o.interrupted:
		return exitInterrupted
	case o.xargsFailed && (o.xargsAbort == nil || !o.xargsAbort.Last):
		// Even after an abort, xargs exits 123 when a command failed,
		// unless the command that stopped it was the input's last: xargs
		// meets that one in its wait at exit, where the abort's status
		// stands (findutils' wait_for_proc_all).
		return xargsFailed
	case o.xargsAbort != nil:
		return xargsAbortStatus[o.xargsAbort.Why]
	}
	return exitOK
}

// exitStatus is the one place where the outcome of a run becomes fan's exit
// status.
func exitStatus(o outcome) int {
	if o.status != nil && o.err == nil {
		return *o.status
	}
	var ue *usageError
	var ie *inputError
	if o.xargs || errors.As(o.err, &ue) && ue.xargs {
		return xargsStatus(o)
	}
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
	if o.hostsGone {
		// The items no host could run failed as surely as a job would
		// have: GNU parallel counts each failed ssh as a failed job.
		return min(int(o.stats.Failed+o.stats.NotStarted), exitManyFailed)
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
