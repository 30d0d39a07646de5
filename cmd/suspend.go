package cmd

import (
	"os"

	"golang.org/x/sys/unix"
)

// suspender stops and continues the running jobs (runner.Pool).
type suspender interface {
	Suspend()
	Resume()
}

// watchStops makes Ctrl-Z suspend the jobs with fan, and fg or bg continue
// them, as GNU parallel does. The jobs are not in the terminal's foreground
// process group, so the terminal's SIGTSTP reaches fan alone: fan passes it
// on to every job's group, then stops itself. It watches until the returned
// function is called, as tstp and cont give the signals (signalCatch). A
// fan started with SIGTSTP ignored leaves it ignored (tstp is nil).
//
// fan stops itself with SIGSTOP: once Go's runtime has caught SIGTSTP it
// keeps its handler even after signal.Reset, and that handler ignores the
// signal. Some shells therefore report fan as stopped by a signal.
func watchStops(jobs suspender, tstp, cont <-chan os.Signal) (stop func()) {
	if tstp == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-cont:
				// Continued after a stop fan did not see (SIGSTOP): a job
				// stopped meanwhile goes on too, as with Ctrl-Z and fg.
				jobs.Resume()
			case <-tstp:
				jobs.Suspend()
				select {
				case <-cont: // an old one: the next must come after the stop
				default:
				}
				// The stop takes effect as the kill returns; what follows
				// runs once fan is continued.
				_ = unix.Kill(os.Getpid(), unix.SIGSTOP)
				select {
				case <-cont:
				case <-done:
				}
				jobs.Resume()
			}
		}
	}()
	return func() {
		close(done)
		<-finished // the signals stay caught (signalCatch)
	}
}
