package cmd

import (
	"os"
	"syscall"

	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// Live control of a run by signal (SPEC.md, "Live control and status"):
// SIGUSR1 prints a status report on stderr, through the sink, so that it
// never lands inside job output or over the progress bar. Under --xargs,
// SIGUSR1 and SIGUSR2 raise and lower the number of jobs at once by one
// instead, as GNU xargs does.

// status builds the runner's part of a status report.
type status struct {
	pool    *runner.Pool
	slots   *runner.FixedSlots // nil when the hosts of -S hold the slots
	counted *output.Intake
	jobs    int // the limit when slots is nil
	// unlimited says that no limit was asked for (-P 0): the slots'
	// limit is then only what the system's limits allow, and a SIGUSR1
	// under --xargs makes it 1, as in xargs.
	unlimited bool
}

// report is the status report's runner part now.
func (s *status) report() *runner.Report {
	items, bytes := s.pool.Dispatched()
	r := &runner.Report{Running: s.pool.RunningJobs(), Read: s.counted.Read.Load()}
	r.Queued = max(0, r.Read-items)
	r.QueuedBytes = max(0, s.counted.Bytes.Load()-bytes)
	if s.slots != nil {
		r.Limit, r.Why = s.slots.Status()
	} else {
		r.Limit, r.Why = s.jobs, "the slots of the hosts of -S"
	}
	return r
}

// xargsStep is what SIGUSR1 (+1) and SIGUSR2 (-1) do to the limit under
// --xargs, as GNU xargs 4.9 does: a raise from 0 (no limit) makes it 1,
// a lowering stops at 1 and leaves 0 alone.
func xargsStep(limit, step int) int {
	switch {
	case step > 0:
		return min(limit+1, maxJobs)
	case limit > 1:
		return limit - 1
	}
	return limit
}

// step moves the limit under --xargs (see xargsStep).
func (s *status) step(by int, why string) {
	limit := s.slots.Limit()
	if s.unlimited {
		limit = 0
	}
	if n := xargsStep(limit, by); n != 0 {
		s.unlimited = false
		s.slots.SetLimit(n, why)
	}
}

// watchStatus handles SIGUSR1 (and SIGUSR2 under --xargs), as sigs gives
// them (signalCatch), until the returned function is called.
func watchStatus(c *Config, s *status, stream *runner.Stream, sigs <-chan os.Signal) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case sig := <-sigs:
				switch {
				case !c.Xargs:
					stream.Ask(s.report())
				case s.slots == nil:
				case sig == syscall.SIGUSR1:
					s.step(1, "-P, raised by SIGUSR1")
				default:
					s.step(-1, "-P, lowered by SIGUSR2")
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished // the signals stay caught (signalCatch)
	}
}
