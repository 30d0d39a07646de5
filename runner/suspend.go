package runner

import (
	"sync"
	"time"
)

// pauseClock keeps the time the run spent suspended (Ctrl-Z until fg), which
// --timeout does not count: otherwise every job would time out the moment
// the user types fg.
type pauseClock struct {
	mu        sync.Mutex
	suspended bool
	since     time.Time     // when the current suspension began
	paused    time.Duration // the length of the suspensions that ended
}

func (c *pauseClock) suspend(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.suspended {
		c.suspended, c.since = true, now
	}
}

func (c *pauseClock) resume(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.suspended {
		c.suspended = false
		c.paused += now.Sub(c.since)
	}
}

// pausedAt is how long the run has been suspended in all, up to now.
func (c *pauseClock) pausedAt(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.suspended {
		return c.paused + now.Sub(c.since)
	}
	return c.paused
}

// Suspend stops every running job (SIGTSTP to its process tree) and every
// job that starts before Resume; --timeout clocks stand still meanwhile.
// The caller then stops fan itself. It is safe to call from any goroutine.
func (p *Pool) Suspend() {
	p.clock.suspend(time.Now())
	if p.Exec != nil {
		p.Exec.Suspend()
	}
}

// Resume continues the jobs that Suspend stopped. It is safe to call from
// any goroutine.
func (p *Pool) Resume() {
	p.clock.resume(time.Now())
	if p.Exec != nil {
		p.Exec.Resume()
	}
}
