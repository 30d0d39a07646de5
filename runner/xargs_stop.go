package runner

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// XargsStop is xargs's stop policy (--xargs): it sees every finished job
// and stops the run the way xargs does, at a command that exits 255, is
// killed by a signal, or cannot be run; a command that exits 1-125 is a
// failure that does not stop it. Stop is called once, at the first such
// job. Finished (for Pool.Finished) and Result are safe for concurrent
// use.
type XargsStop struct {
	// Stop stops the run: no more input is read and no job started.
	Stop func()

	mu     sync.Mutex
	failed bool        // a command exited 1-125
	abort  *XargsAbort // the first reason the run stopped early
}

// XargsAbort is why an --xargs run stopped early.
type XargsAbort struct {
	Why XargsWhy
	Msg string // what happened, one line for stderr
	Seq int64  // the job that stopped the run
	// Last says that job was the last of the input, so that xargs met
	// its end in the wait at exit, where the abort's exit status stands.
	// XargsStop cannot know it: the caller sets it once the input is read.
	Last bool
}

// XargsWhy is the kind of job end that stops an --xargs run; each has
// its own exit status in xargs.
type XargsWhy int

// The job ends that stop an --xargs run.
const (
	XargsExit255  XargsWhy = iota // the command exited 255
	XargsSignal                   // the command was killed by a signal
	XargsNoExec                   // the command could not be run
	XargsNotFound                 // the command was not found
)

// Finished records a job's result.
func (w *XargsStop) Finished(r *Result) {
	if r.NotStarted || r.DryRun || r.Skipped || r.OK() {
		return
	}
	name := ""
	if len(r.Command.Args) > 0 {
		name = r.Command.Args[0]
	}
	a := &XargsAbort{Seq: r.Item.Seq}
	var se *StartError
	switch {
	case r.Err != nil:
		a.Why = XargsNoExec
		if errors.As(r.Err, &se) && se.Status == 127 || errors.Is(r.Err, os.ErrNotExist) {
			a.Why = XargsNotFound
		}
		a.Msg = fmt.Sprintf("fan: %s: could not be run; stopped, as xargs does", name)
	case r.Signal != 0 && r.Status == 0:
		// A signal ended the command on its own. One fan sent (--timeout,
		// a drain, a write error; Status -1) is not a crash: it counts as
		// a failure like exit 1-125, below, and the other items still run.
		a.Why = XargsSignal
		a.Msg = fmt.Sprintf("fan: %s: terminated by a signal; stopped, as xargs does", name)
	case r.Status == 255:
		a.Why = XargsExit255
		a.Msg = fmt.Sprintf("fan: %s: exited with status 255; stopped, as xargs does", name)
	default:
		w.mu.Lock()
		// A failure; xargs has exited by the time a job that outlived the
		// stop ends, so only failures before a stop count.
		w.failed = w.failed || w.abort == nil
		w.mu.Unlock()
		return
	}
	w.mu.Lock()
	first := w.abort == nil
	if first {
		w.abort = a
	}
	w.mu.Unlock()
	if first {
		w.Stop()
	}
}

// Result returns the first abort, if any, and whether a command failed
// (exited 1-125) before it.
func (w *XargsStop) Result() (*XargsAbort, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.abort, w.failed
}
