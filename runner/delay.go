package runner

import (
	"sync"
	"time"
)

// pacer keeps at least gap between job starts (--delay), in the order the
// starts were reserved: the pool reserves a job's start when it takes the
// item, so jobs start in input order, as in GNU parallel.
type pacer struct {
	gap  time.Duration
	mu   sync.Mutex
	next time.Time
}

// reserve returns when the next job may start, and keeps that time for
// it: the next reservation is at least gap later. Without a gap it is the
// zero time: at once.
func (p *pacer) reserve() time.Time {
	if p.gap <= 0 {
		return time.Time{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.next
	if now := time.Now(); at.Before(now) {
		at = now
	}
	p.next = at.Add(p.gap)
	return at
}
