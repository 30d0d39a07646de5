package cmd

import (
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalCatch holds the signals a run catches: SIGPIPE (so that a closed
// stdout becomes EPIPE on write, which ends the run cleanly, instead of
// killing fan and orphaning its jobs), the drain's SIGINT, SIGTERM and
// SIGHUP (watchSignals), the status's SIGUSR1, and SIGUSR2 under --xargs
// (watchStatus), and Ctrl-Z's SIGTSTP and SIGCONT (watchStops).
//
// Each signal caught costs a round trip to the Go runtime's signal thread
// (about 50 us here, seven signals), and the first one starts that thread
// and the runtime's signal loop. So they are caught in a goroutine of
// their own as soon as the command line has been read, while the options
// are checked and the run is set up, rather than on the way to the first
// job: no job starts before they all are and the watchers have them
// (ready, Pool.Ready), since one not caught would kill fan and leave its
// jobs running.
//
// Until the run's watchers take the signals (take), a signal does what it
// did to fan before it caught any: SIGINT, SIGTERM and SIGHUP end fan (SIGINT
// and SIGHUP do nothing if fan was started with them ignored: Go keeps
// only those two ignored), SIGTSTP stops it
// until it is continued, the others are ignored. So a fan that is still
// waiting to open its input, to read a --header or to reach its hosts is
// ended by Ctrl-C as it always was. Once caught, the signals stay caught
// until fan exits: nothing after a run needs them back, and one that comes
// then is ignored rather than killing fan before its summary.
type signalCatch struct {
	drain  chan os.Signal // SIGINT, SIGTERM, SIGHUP
	status chan os.Signal // SIGUSR1, and SIGUSR2 under --xargs
	// tstp and cont are nil when fan was started with SIGTSTP ignored,
	// which it then leaves ignored (a job of a shell without job control).
	tstp, cont chan os.Signal
	stop       chan struct{} // closed by take
	stopped    chan struct{} // closed when the catching goroutine has ended
	once       sync.Once
}

// catchSignals starts catching the signals of a run (under --xargs, with
// SIGUSR2).
func catchSignals(xargs bool) *signalCatch {
	s := &signalCatch{drain: make(chan os.Signal, 4), status: make(chan os.Signal, 4),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	if !signal.Ignored(syscall.SIGTSTP) {
		s.tstp, s.cont = make(chan os.Signal, 1), make(chan os.Signal, 1)
	}
	go func() {
		defer close(s.stopped)
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) // before any write
		signal.Notify(s.drain, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		if xargs {
			signal.Notify(s.status, syscall.SIGUSR1, syscall.SIGUSR2)
		} else {
			signal.Notify(s.status, syscall.SIGUSR1)
		}
		if s.tstp != nil {
			signal.Notify(s.tstp, syscall.SIGTSTP)
			signal.Notify(s.cont, syscall.SIGCONT)
		}
		s.untaken()
	}()
	return s
}

// untaken handles the signals that come before take, as if fan had not
// caught them, until take.
func (s *signalCatch) untaken() {
	for {
		select {
		case <-s.stop: // before any signal waiting: the watchers have them
			return
		default:
		}
		select {
		case <-s.stop:
			return
		case sig := <-s.drain:
			uncaught(sig.(syscall.Signal))
			signal.Notify(s.drain, sig) // still here: fan was started with it ignored
		case <-s.status: // a Go program that does not catch them ignores them
		case <-s.cont:
		case <-s.tstp:
			select {
			case <-s.cont: // an old one: the next must come after the stop
			default:
			}
			_ = unix.Kill(os.Getpid(), unix.SIGSTOP) // see watchStops
			select {
			case <-s.cont:
			case <-s.stop:
				return
			}
		}
	}
}

// uncaught lets sig do what it does to fan uncaught: it stops catching it
// and sends it to the thread it runs on, so that the runtime's handler
// takes it at once, on the way back from the system call (sent to the
// process, it could come on another thread after sig is caught again).
func uncaught(sig syscall.Signal) {
	signal.Reset(sig)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
}

// take hands the signals over to the run's watchers, which read them from
// now on; a signal that comes meanwhile may still be handled as untaken,
// until ready returns. It is safe to call more than once.
func (s *signalCatch) take() { s.once.Do(func() { close(s.stop) }) }

// ready returns once every signal is caught and taken (Pool.Ready).
func (s *signalCatch) ready() { <-s.stopped }

// release takes the signals and waits for the catching goroutine to end,
// when a run is over or did not start (their owner, RunE, calls it).
func (s *signalCatch) release() {
	s.take()
	s.ready()
}
