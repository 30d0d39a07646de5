package runner

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/fan-run/fan/input"
)

// Result is what became of one item. Every item the pool takes yields
// exactly one Result.
type Result struct {
	Item input.Item
	// Slot is where the job ran, or would have run: its number ({%}), its
	// host ("" for this machine) and the executor that ran it. A job a
	// drain or a halt kept from starting has the zero Slot; one that could
	// not start in its slot (a --delay cut short, a host that could not
	// be reached) keeps that slot.
	Slot Slot
	// Command is what the job ran, or would have run: a job a drain or a
	// halt kept from starting has it only with Pool.NotStartedCommands.
	Command Command
	// Status is the exit status, as GNU parallel's joblog has it: -1 when
	// fan killed the job (timeout, drain, halt) or it was not started, 0
	// when a signal ended it on its own (see Signal), 126 or 127 when it
	// could not start.
	Status int
	// Signal is the signal that ended the job, or 0.
	Signal syscall.Signal
	// Err is why the job could not start (a *StartError or an exec error).
	Err error
	// NotStarted is set for items taken from the input but never run
	// because the run was stopped.
	NotStarted bool
	// TimedOut is set when --timeout ended the job, after TimeLimit.
	TimedOut  bool
	TimeLimit time.Duration
	// Attempts is how many times the job ran (--retries).
	Attempts int
	// Skipped is set for jobs that an earlier run did (--resume); they are
	// neither run nor counted.
	Skipped bool
	// DryRun is set when the job was only rendered (--dry-run).
	DryRun  bool
	Start   time.Time
	Runtime time.Duration
	// Evicted is set on an attempt that --memfree ended to free memory:
	// the job goes back in the queue, and the attempt counts neither as a
	// failure nor as a retry.
	Evicted bool
	// Sent is how many bytes of its Stdin the job was given (--pipe).
	Sent int64
	// Stdout and Stderr hold the job's captured output, positioned at its
	// start: a memory file or a spool file (capture_pipe.go). They are nil
	// when the job wrote nothing there or output is not captured. The
	// receiver gives them back to the Spool.
	Stdout, Stderr *os.File
	// Direct is set when the job wrote its stdout straight into fan's
	// stdout (Pool.Direct): Stdout is nil, and nothing of it is held.
	Direct bool

	// held is the size of Stdout and Stderr when the pool counted them
	// in its output hold (see Stream.Written).
	held int64
}

// Stopped reports whether fan ended the job before it finished on its own
// for a reason of the run's (a drain, --halt now, a write error of fan's),
// not the job's own --timeout.
func (r *Result) Stopped() bool {
	return r.Status == -1 && !r.NotStarted && !r.TimedOut && r.Err == nil
}

// Failure says how a job that did not succeed failed, for a message:
// "exit 22", "signal 9", "timed out after 2.0s", or why it could not
// start.
func (r *Result) Failure() string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("timed out after %.1fs", r.TimeLimit.Seconds())
	case r.Err != nil:
		return r.Err.Error()
	case r.Signal != 0:
		return fmt.Sprintf("signal %d", int(r.Signal))
	}
	return fmt.Sprintf("exit %d", r.Status)
}

// OK reports whether the job ran and exited 0.
func (r *Result) OK() bool {
	return !r.NotStarted && r.Err == nil && r.Status == 0 && r.Signal == 0
}
