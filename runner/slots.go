package runner

import (
	"context"
	"sync"
)

// Slots is the one place that decides whether one more job may start, and
// where. The pool asks it before every attempt and nothing else does. Its
// capacity may change while jobs run (a procfile, load and memory gates,
// per-host slots), so it is an interface: FixedSlots is -j N.
// Implementations must be safe for concurrent use.
type Slots interface {
	// Take waits until a job may start and returns the slot it runs in;
	// ok is false when ctx ended first (then no slot is held).
	Take(ctx context.Context) (s Slot, ok bool)
	// Put gives back a slot that Take returned.
	Put(Slot)
}

// Slot is a place for one running job.
type Slot struct {
	// N is the slot's number ({%}, FAN_SLOT): 1-based, the lowest free one
	// at the time the job took it.
	N int
	// Host names where jobs in this slot run, for the joblog; "" is this
	// machine (":" in the joblog).
	Host string
	// Exec starts the jobs of this slot.
	Exec Executor
}

// FixedSlots lets up to a limit of jobs run at once, all through one
// executor. The limit may be changed while jobs run (SetLimit); a lower
// one lets the running jobs finish and starts none until fewer run.
type FixedSlots struct {
	exec Executor
	host string

	mu      sync.Mutex
	limit   int           // 0: no limit
	busy    int           // slots taken
	free    []bool        // free[i]: slot i+1 is free
	changed chan struct{} // closed when a slot may have come free
}

// NewFixedSlots returns slots for limit jobs at once (0: no limit) that run
// through exec.
func NewFixedSlots(limit int, exec Executor) *FixedSlots {
	return &FixedSlots{exec: exec, limit: limit, changed: make(chan struct{})}
}

// Take implements Slots.
func (s *FixedSlots) Take(ctx context.Context) (Slot, bool) {
	for {
		s.mu.Lock()
		if s.limit <= 0 || s.busy < s.limit {
			n := s.lowest()
			s.busy++
			s.mu.Unlock()
			return Slot{N: n, Host: s.host, Exec: s.exec}, true
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Slot{}, false
		}
	}
}

// lowest takes the lowest free slot number; s.mu is held.
func (s *FixedSlots) lowest() int {
	for i, f := range s.free {
		if f {
			s.free[i] = false
			return i + 1
		}
	}
	s.free = append(s.free, false)
	return len(s.free)
}

// Put implements Slots.
func (s *FixedSlots) Put(slot Slot) {
	s.mu.Lock()
	s.free[slot.N-1] = true
	s.busy--
	s.wake()
	s.mu.Unlock()
}

// SetLimit changes how many jobs may run at once (0: no limit).
func (s *FixedSlots) SetLimit(n int) {
	s.mu.Lock()
	s.limit = n
	s.wake()
	s.mu.Unlock()
}

// Limit is how many jobs may run at once now (0: no limit).
func (s *FixedSlots) Limit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// wake lets every waiting Take look again; s.mu is held.
func (s *FixedSlots) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}
