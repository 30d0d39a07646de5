package cmd

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// signals is the drain state machine: the first SIGINT, SIGTERM or SIGHUP
// stops the intake and lets running jobs finish; the second terminates them.
type signals struct {
	ch    chan os.Signal
	done  chan struct{}
	count atomic.Int32
}

func watchSignals(stderr io.Writer, stopIntake, stopJobs func()) *signals {
	s := &signals{ch: make(chan os.Signal, 4), done: make(chan struct{})}
	signal.Notify(s.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout must become EPIPE on write, not the end of fan.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() {
		for {
			select {
			case <-s.done:
				return
			case <-s.ch:
			}
			switch s.count.Add(1) {
			case 1:
				fmt.Fprintln(stderr, "fan: interrupted: starting no new jobs, waiting for running ones (signal again to stop them)")
				stopIntake()
			default:
				fmt.Fprintln(stderr, "fan: stopping running jobs")
				stopJobs()
			}
		}
	}()
	return s
}

func (s *signals) stop() {
	signal.Stop(s.ch)
	close(s.done)
}

func (s *signals) interrupted() bool { return s.count.Load() > 0 }
