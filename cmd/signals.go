package cmd

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Drain stages: what the run has been told to do so far.
const (
	running     = iota // no signal yet
	draining           // start nothing new, let running jobs finish
	terminating        // end running jobs with the termseq
	killing            // SIGKILL every job's group now
)

// coalesce is how close a signal may follow the previous one and still be
// the same press: timeout(1) sends SIGTERM to fan and then to its process
// group, and supervisors may signal both the process and its group.
const coalesce = 200 * time.Millisecond

// termDrain is how long a drain begun by SIGTERM may last when
// --drain-timeout is not given: well within the grace period of the
// supervisors that send it (systemd 90 s, Kubernetes 30 s), so that the
// run ends with every item recorded rather than with their SIGKILL.
const termDrain = 10 * time.Second

// drain is the signal state machine of the drain protocol (SPEC.md,
// "Signals"). Each press (a SIGINT, SIGTERM or SIGHUP, whatever the mix,
// with those within coalesce of the previous signal counted as one) moves
// it one stage on; the drain deadline, when one applies, moves it from
// draining to terminating. Its actions and its clock are plain functions
// so that it can be tested without signals.
type drain struct {
	// timeout is how long a drain may last, 0 for ever; termTimeout the
	// same after SIGTERM. Both are --drain-timeout when it is given.
	timeout, termTimeout time.Duration
	// terminal says that stderr is a terminal: the messages then name
	// Ctrl-C, which is what the user there presses.
	terminal bool
	// running tells how many jobs are running, for the messages.
	running func() int
	// notify prints a message for the user (through the sink).
	notify func(string)
	// stopIntake, terminate and kill carry out the three stages.
	stopIntake, terminate, kill func()
	// now is the clock (time.Now when nil).
	now func() time.Time

	stage atomic.Int32
	// last is when the previous signal came, deadline when the drain must
	// end (zero for never) and limit how long it was given; only the loop
	// touches them.
	last, deadline time.Time
	limit          time.Duration
}

// loop reads signals until done is closed, advancing one stage a press
// and, while draining, when the deadline passes.
func (d *drain) loop(sigs <-chan os.Signal, done <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var expired <-chan time.Time
	for {
		select {
		case <-done:
			return
		case sig := <-sigs:
			if wait, arm := d.signal(sig); arm {
				timer.Reset(wait)
				expired = timer.C
			}
		case <-expired:
			expired = nil
			if d.stage.Load() == draining {
				d.advance(nil, true)
			}
		}
	}
}

// signal takes one signal: a new press advances the drain, one within
// coalesce of the previous signal is the same press. While draining, the
// signal's deadline (see deadlineFor) applies if it is sooner than the one
// in force; arm then says to wait that long.
func (d *drain) signal(sig os.Signal) (wait time.Duration, arm bool) {
	now := d.clock()
	samePress := !d.last.IsZero() && now.Sub(d.last) < coalesce
	d.last = now
	if !samePress {
		d.advance(sig, false)
	}
	if d.stage.Load() != draining {
		return 0, false
	}
	t := d.deadlineFor(sig)
	if t <= 0 {
		return 0, false
	}
	at := now.Add(t)
	if !d.deadline.IsZero() && !at.Before(d.deadline) {
		return 0, false
	}
	d.deadline, d.limit = at, t
	return t, true
}

// deadlineFor is how long a drain sig begins may last; 0 is for ever.
func (d *drain) deadlineFor(sig os.Signal) time.Duration {
	if sig == syscall.SIGTERM {
		return d.termTimeout
	}
	return d.timeout
}

func (d *drain) clock() time.Time {
	if d.now == nil {
		return time.Now()
	}
	return d.now()
}

// advance moves to the next stage and carries it out. sig is the signal
// that moved it, or nil when the drain deadline passed (timedOut).
func (d *drain) advance(sig os.Signal, timedOut bool) {
	stage := d.stage.Load()
	if stage == killing {
		return // nothing is left to escalate to
	}
	stage++
	d.stage.Store(stage)
	n := d.running()
	switch stage {
	case draining:
		msg := "fan: " + d.interruptedBy(sig) + ": starting no new jobs"
		if n > 0 {
			msg += ", waiting for " + jobs(n)
			if t := d.deadlineFor(sig); t > 0 {
				msg += fmt.Sprintf(" for at most %v", t)
			}
			msg += " (" + d.again("to stop them") + ")"
		}
		d.notify(msg)
		d.stopIntake()
	case terminating:
		why := "stopping"
		if timedOut {
			why = fmt.Sprintf("drain timeout (%v): stopping", d.limit)
		}
		if n > 0 { // with none running, the first message said it all
			d.notify(fmt.Sprintf("fan: %s %s (%s)", why, jobs(n), d.again("to kill them at once")))
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

// interruptedBy says what began the drain: Ctrl-C needs no name at a
// terminal, any other signal does.
func (d *drain) interruptedBy(sig os.Signal) string {
	s, ok := sig.(syscall.Signal)
	if !ok || d.terminal && s == syscall.SIGINT {
		return "interrupted"
	}
	return "interrupted by " + unix.SignalName(s)
}

// again says how to move on a stage, to do what: Ctrl-C at a terminal,
// another signal elsewhere (a script or a supervisor sent the first).
func (d *drain) again(what string) string {
	if d.terminal {
		return "Ctrl-C again " + what
	}
	return "signal again " + what
}

// interrupted reports whether a signal cut the run short.
func (d *drain) interrupted() bool { return d.stage.Load() != running }

func jobs(n int) string {
	if n == 1 {
		return "1 running job"
	}
	return fmt.Sprintf("%d running jobs", n)
}

// watchSignals routes the drain's signals, SIGINT, SIGTERM and SIGHUP as
// sigs gives them (signalCatch), to d until the returned function is
// called.
func watchSignals(d *drain, sigs <-chan os.Signal) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		d.loop(sigs, done)
	}()
	return func() {
		close(done)
		<-finished
	}
}

// lostPartMessage tells the user of a record that a drain stopped part
// way through, whose rest did not come in time: the bytes read of it are
// in no item and in no failures file (re-running them alone would run a
// wrong item), so they are shown, quoted as Go quotes a string, up to a
// length a terminal can show; the rest is still unread in the input.
func lostPartMessage(read []byte) string {
	const most = 200
	shown, more := read, ""
	if len(shown) > most {
		shown, more = shown[:most], fmt.Sprintf(" and %d bytes more", len(read)-most)
	}
	return fmt.Sprintf("fan: the drain stopped the input part way through a record: its first %d bytes were read and run in no job (the rest was left unread): %q%s", len(read), shown, more)
}
