package runner

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// groups is the set of running jobs' process groups, kept so that the whole
// run can be suspended and resumed (Ctrl-Z and fg at the terminal, as GNU
// parallel does). Jobs are not in the terminal's foreground group, so
// without it they would run on while fan is stopped.
//
// It also keeps the clock that --timeout runs on: time the run spent
// suspended does not count against a job's timeout, or every job would time
// out the moment the user types fg.
type groups struct {
	mu        sync.Mutex
	live      map[int]struct{} // the leaders' pids, which are the groups' ids
	suspended bool
	since     time.Time     // when the current suspension began
	paused    time.Duration // the length of the suspensions that ended
}

// add lists a job's group; a group started while the run is suspended is
// stopped at once. The job's leader must not have been reaped.
func (g *groups) add(pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.live == nil {
		g.live = make(map[int]struct{})
	}
	g.live[pid] = struct{}{}
	if g.suspended {
		_ = unix.Kill(-pid, unix.SIGTSTP)
	}
}

// remove takes a job's group off the list. It must be called before the
// leader is reaped: until then no other group can take its id, so a signal
// sent to a listed group reaches no stranger.
func (g *groups) remove(pid int) {
	g.mu.Lock()
	delete(g.live, pid)
	g.mu.Unlock()
}

// suspend sends SIGTSTP to every running job's group, and to those started
// later, until resume.
func (g *groups) suspend(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.suspended {
		g.suspended, g.since = true, now
	}
	g.signal(unix.SIGTSTP)
}

// resume sends SIGCONT to every running job's group. A job that stopped
// itself is continued too, as GNU parallel does.
func (g *groups) resume(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.suspended {
		g.suspended = false
		g.paused += now.Sub(g.since)
	}
	g.signal(unix.SIGCONT)
}

func (g *groups) signal(sig unix.Signal) {
	for pid := range g.live {
		_ = unix.Kill(-pid, sig)
	}
}

// pausedAt is how long the run has been suspended in all, up to now.
func (g *groups) pausedAt(now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.suspended {
		return g.paused + now.Sub(g.since)
	}
	return g.paused
}

// Suspend stops every running job (SIGTSTP to its process group) and every
// job that starts before Resume; --timeout clocks stand still meanwhile.
// The caller then stops fan itself. It is safe to call from any goroutine.
func (p *Pool) Suspend() { p.groups.suspend(time.Now()) }

// Resume continues the jobs that Suspend stopped (SIGCONT to every running
// job's group). It is safe to call from any goroutine.
func (p *Pool) Resume() { p.groups.resume(time.Now()) }
