package runner

import (
	"sync"

	"golang.org/x/sys/unix"
)

// groups is the set of a Local executor's running process groups, kept so
// that the whole run can be suspended and resumed (Ctrl-Z and fg at the
// terminal, as GNU parallel does). Jobs are not in the terminal's
// foreground group, so without it they would run on while fan is stopped.
type groups struct {
	mu        sync.Mutex
	live      map[int]struct{} // the leaders' pids, which are the groups' ids
	suspended bool
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
func (g *groups) suspend() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.suspended = true
	g.signal(unix.SIGTSTP)
}

// resume sends SIGCONT to every running job's group. A job that stopped
// itself is continued too, as GNU parallel does.
func (g *groups) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.suspended = false
	g.signal(unix.SIGCONT)
}

func (g *groups) signal(sig unix.Signal) {
	for pid := range g.live {
		_ = unix.Kill(-pid, sig)
	}
}
