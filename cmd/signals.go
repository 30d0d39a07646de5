package cmd

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// Drain stages: what the run has been told to do so far.
const (
	running     = iota // no signal yet
	draining           // start nothing new, let running jobs finish
	terminating        // end running jobs with the termseq
	killing            // SIGKILL every job's group now
)

// drain is the signal state machine of the drain protocol (SPEC.md,
// "Signals"). Each SIGINT, SIGTERM or SIGHUP moves it one stage on; the
// drain timeout, when set, moves it from draining to terminating. Its
// actions are plain functions so that it can be tested without signals.
type drain struct {
	// timeout is --drain-timeout: how long draining may last; 0 is forever.
	timeout time.Duration
	// running tells how many jobs are running, for the messages.
	running func() int
	// notify prints a message for the user (through the sink).
	notify func(string)
	// stopIntake, terminate and kill carry out the three stages.
	stopIntake, terminate, kill func()

	stage atomic.Int32
}

// loop reads signals until done is closed, advancing one stage per signal
// and, while draining, when the timeout expires.
func (d *drain) loop(sigs <-chan os.Signal, done <-chan struct{}) {
	var expired <-chan time.Time
	for {
		select {
		case <-done:
			return
		case <-sigs:
			d.advance(false)
			if d.stage.Load() == draining && d.timeout > 0 {
				t := time.NewTimer(d.timeout)
				defer t.Stop()
				expired = t.C
			}
		case <-expired:
			expired = nil
			if d.stage.Load() == draining {
				d.advance(true)
			}
		}
	}
}

// advance moves to the next stage and carries it out. timedOut says that
// the drain timeout, not a signal, moved it.
func (d *drain) advance(timedOut bool) {
	stage := d.stage.Load()
	if stage == killing {
		return // nothing is left to escalate to
	}
	stage++
	d.stage.Store(stage)
	n := d.running()
	switch stage {
	case draining:
		if n == 0 {
			d.notify("fan: interrupted: starting no new jobs")
		} else {
			d.notify(fmt.Sprintf("fan: interrupted: starting no new jobs, waiting for %s (Ctrl-C again to stop them)", jobs(n)))
		}
		d.stopIntake()
	case terminating:
		why := "stopping"
		if timedOut {
			why = fmt.Sprintf("drain timeout (%v): stopping", d.timeout)
		}
		if n > 0 { // with none running, the first message said it all
			d.notify(fmt.Sprintf("fan: %s %s (Ctrl-C again to kill them at once)", why, jobs(n)))
		}
		d.stopIntake()
		d.terminate()
	case killing:
		if n > 0 {
			d.notify(fmt.Sprintf("fan: killing %s", jobs(n)))
		}
		d.stopIntake()
		d.terminate()
		d.kill()
	}
}

// interrupted reports whether a signal cut the run short.
func (d *drain) interrupted() bool { return d.stage.Load() != running }

func jobs(n int) string {
	if n == 1 {
		return "1 running job"
	}
	return fmt.Sprintf("%d running jobs", n)
}

// watchSignals routes SIGINT, SIGTERM and SIGHUP to d until the returned
// function is called. It also turns SIGPIPE into EPIPE on write, so that a
// closed stdout ends the run cleanly instead of killing fan (and orphaning
// its jobs).
func watchSignals(d *drain) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		d.loop(sigs, done)
	}()
	return func() {
		signal.Stop(sigs) // SIGPIPE stays caught: the summary may yet meet a closed stderr
		close(done)
		<-finished
	}
}
