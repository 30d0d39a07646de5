package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/fan-run/fan/input"
)

// Each is an Executor whose every attempt runs all of Items, one after
// another, through On.Exec: GNU parallel's --onall and --nonall, where the
// pool runs one such attempt per host. The attempt's output is that of
// its jobs, in turn, so the output stage writes a host's output whole;
// its exit status is the number of its jobs that failed (at most 101),
// as a run of fan would give, so that the run's own status counts the
// hosts where something failed.
//
// Each job is rendered from Template in slot 1, with the job's number
// ({#}, FAN_SEQ) its item's; it gets Timeout and up to Retries runs, as
// in a run of its own. Once the attempt's Cancel ends (a drain), no
// further job starts: those left count as failed and are named on the
// attempt's stderr. So it is once a job finds that On cannot be reached
// (a *TransportError: ssh could not log in, or the connection was lost
// while the job ran): On is not tried again in this attempt, as every
// later job would wait for it as long (for a silent host, the whole
// bound on logging in).
type Each struct {
	Items    []input.Item
	Template *Template
	// WorkDir, Transfer, Return and Cleanup are the pool's (--workdir,
	// --transfer, --return, --cleanup), rendered for each job.
	WorkDir          *Text
	Transfer, Return []*Text
	Cleanup          bool
	// Env is every job's environment, without the JobVars; SlotVar as
	// the pool's.
	Env     []string
	SlotVar string
	// Timeout ends a job that runs longer; 0 is none.
	Timeout time.Duration
	// Retries is how many times in all a failing job runs.
	Retries int
	// Prepare, when set, runs before the first job of each attempt; its
	// error fails every job of the attempt (--basefile, which a host
	// could not get).
	Prepare func(ctx context.Context) error
	// Where names the host of On in messages.
	Where string
	// On is where the jobs run: Exec, a host's executor, runs them; Host
	// and Addr are its login and host ("" for this machine). Each job
	// gets it as its slot, numbered 1.
	On Slot
}

// Start implements Executor: the jobs run in Wait.
func (e *Each) Start(a *Attempt) (Process, error) { return &eachRun{e: e, a: a}, nil }

// Suspend implements Executor.
func (e *Each) Suspend() { e.On.Exec.Suspend() }

// Resume implements Executor.
func (e *Each) Resume() { e.On.Exec.Resume() }

// RunsElsewhere implements Elsewhere, as On.Exec does.
func (e *Each) RunsElsewhere() bool { return runsElsewhere(e.On.Exec) }

type eachRun struct {
	e *Each
	a *Attempt
}

// Wait implements Process: it runs the jobs in turn. When stop ends, the
// job running is terminated with seq and no further job starts.
func (r *eachRun) Wait(stop, kill context.Context, seq TermSeq) (Exit, error) {
	e, a := r.e, r.a
	stderr := io.Writer(a.Stderr)
	if a.Stderr == nil {
		stderr = os.Stderr
	}
	cancel := a.Cancel
	if cancel == nil {
		cancel = context.Background()
	}
	failed := 0
	if e.Prepare != nil {
		if err := e.Prepare(cancel); err != nil {
			fmt.Fprintf(stderr, "fan: %s: %v: not running its %d jobs\n", e.Where, err, len(e.Items))
			return Exit{Status: exitStatus(len(e.Items))}, nil
		}
	}
	for i := range e.Items {
		if stop.Err() != nil || cancel.Err() != nil {
			left := len(e.Items) - i
			fmt.Fprintf(stderr, "fan: %s: %d job%s not started: the run is stopping\n", e.Where, left, plural(left))
			failed += left
			break
		}
		ok, lost := r.job(&e.Items[i], stop, kill, seq, stderr)
		if !ok {
			failed++
		}
		if lost != nil && stop.Err() == nil && cancel.Err() == nil {
			// The host is not tried again: each later job would wait
			// for it as this one did (a silent host costs each the
			// whole bound on logging in).
			if left := len(e.Items) - i - 1; left > 0 {
				fmt.Fprintf(stderr, "fan: %s: %d job%s not started: it cannot be reached (%v)\n", e.Where, left, plural(left), lost)
				failed += left
			}
			break
		}
	}
	return Exit{Status: exitStatus(failed), Terminated: stop.Err() != nil}, nil
}

// exitStatus is the wait status of a process that exited with the number
// of failed jobs, as fan's own exit status counts them.
func exitStatus(failed int) syscall.WaitStatus { return syscall.WaitStatus(min(failed, 101) << 8) }

// job runs one item, with its retries, and reports whether it succeeded;
// lost is why the host could not be reached (the job did not start, or
// its connection was lost while it ran), if so.
func (r *eachRun) job(item *input.Item, stop, kill context.Context, seq TermSeq, stderr io.Writer) (ok bool, lost error) {
	for try := 1; ; try++ {
		ok, retry, lost := r.once(item, stop, kill, seq, stderr)
		if ok || !retry || try >= r.e.Retries || stop.Err() != nil {
			return ok, lost
		}
	}
}

// once runs one attempt of item; retry reports whether the job ran (and
// so may run again), lost why the host could not be reached, if so: a
// *TransportError's cause.
func (r *eachRun) once(item *input.Item, stop, kill context.Context, seq TermSeq, stderr io.Writer) (ok, retry bool, lost error) {
	e, a := r.e, r.a
	slot := e.On
	slot.N = 1
	var cmd Command
	if err := renderCommand(&cmd, e.Template, e.WorkDir, item, slot); err != nil {
		fmt.Fprintf(stderr, "fan: %v\n", err)
		return false, false, nil
	}
	att := &Attempt{Seq: item.Seq, Command: &cmd, Env: jobEnv(e.Env, e.SlotVar, item.Seq, slot),
		Stdout: a.Stdout, Stderr: a.Stderr, Shell: e.Template.shell, Cancel: a.Cancel,
		Files: renderFiles(e.Transfer, e.Return, e.Cleanup, item, slot)}
	pr, err := e.On.Exec.Start(att)
	if err != nil {
		fmt.Fprintf(stderr, "fan: job %d: %v\n", item.Seq, err)
		lost := unreachable(err)
		return false, lost == nil, lost
	}
	jctx, done := stop, context.CancelFunc(func() {})
	if e.Timeout > 0 {
		jctx, done = context.WithTimeout(stop, e.Timeout)
	}
	x, err := pr.Wait(jctx, kill, seq)
	done()
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "fan: job %d: %v\n", item.Seq, err)
		return false, false, unreachable(err)
	case x.Terminated && stop.Err() == nil:
		fmt.Fprintf(stderr, "fan: job %d timed out after %.1fs and was stopped: %s\n", item.Seq, e.Timeout.Seconds(), cmd.String())
		return false, true, nil
	}
	return x.Status.Exited() && x.Status.ExitStatus() == 0, true, nil
}

// unreachable is why err says that the host could not be reached (a
// *TransportError's cause, without the host's name), or nil.
func unreachable(err error) error {
	var te *TransportError
	if errors.As(err, &te) {
		return te.Err
	}
	return nil
}
