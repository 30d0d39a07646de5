package runner

import (
	"cmp"
	"context"
	"strings"
	"sync"
	"time"
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

// Avoider is Slots that can place a job's retry away from where it
// failed (another host), as a job that failed on its own terms may have
// failed because of where it ran.
type Avoider interface {
	// TakeAvoiding is Take, preferring a slot elsewhere than failed's.
	TakeAvoiding(ctx context.Context, failed Slot) (s Slot, ok bool)
}

// Slot is a place for one running job.
type Slot struct {
	// N is the slot's number ({%}, FAN_SLOT): 1-based, the lowest free one
	// at the time the job took it.
	N int
	// Host names where jobs in this slot run, for the joblog
	// (PARALLEL_SSHLOGIN); "" is this machine (":" in the joblog).
	Host string
	// Addr is the host part of Host, without user, port or ssh command
	// (PARALLEL_SSHHOST); "" for this machine.
	Addr string
	// Exec starts the jobs of this slot.
	Exec Executor
}

// Login is the slot's login as a job and the joblog see it
// (PARALLEL_SSHLOGIN, --plus's {sshlogin}, the joblog's Host): ":" for
// this machine, as in GNU parallel.
func (s Slot) Login() string { return cmp.Or(s.Host, ":") }

// addr is the slot's host as a job sees it (PARALLEL_SSHHOST, and
// --plus's {host}): ":" for this machine, as in GNU parallel.
func (s Slot) addr() string { return cmp.Or(s.Addr, ":") }

// FixedSlots lets up to a limit of jobs run at once, all through one
// executor. The limit may be changed while jobs run (SetLimit, or Refresh);
// a lower one lets the running jobs finish and starts none until fewer
// run. Gates may hold every start back for a while (--load, --memfree).
type FixedSlots struct {
	exec Executor
	host string

	// Refresh, when set, gives the limit anew, and why it is that (a
	// procfile, -j FILE): it is asked whenever a job ends and at least
	// once a second while a job waits to start. Set it before the first
	// Take.
	Refresh func() (limit int, why string)
	// Gates, when set, must all be open for a job to start; a closed one
	// is asked again every gatePoll while a job waits. Set them before the
	// first Take.
	Gates []Gate
	// Held, when set, is told once why starts are held back when a closed
	// gate keeps every slot empty: otherwise nothing would say why nothing
	// runs. It must not block. Set it before the first Take.
	Held func(why string)

	mu      sync.Mutex
	limit   int    // 0: no limit
	why     string // what set the limit, for the status report
	busy    int    // slots taken
	waiting int    // Takes the limit holds back (not a gate)
	held    bool   // Held was told, and no job has started since
	numbers SlotNumbers
	changed chan struct{} // closed when a slot may have come free
}

// NewFixedSlots returns slots for limit jobs at once (0: no limit) that run
// through exec; why says what set the limit, for the status report.
func NewFixedSlots(limit int, why string, exec Executor) *FixedSlots {
	return &FixedSlots{exec: exec, limit: limit, why: why, changed: make(chan struct{})}
}

// A Gate holds back the start of jobs while the machine is too busy.
// It must be safe for concurrent use.
type Gate interface {
	// Open reports whether a job may start now; when it may not, why not
	// (for the status report).
	Open() (ok bool, why string)
}

// How often a waiting job looks again at a procfile, and at a closed gate.
const (
	refreshPoll = time.Second
	gatePoll    = 250 * time.Millisecond
)

// Take implements Slots.
func (s *FixedSlots) Take(ctx context.Context) (Slot, bool) {
	var poll *time.Timer
	defer func() {
		if poll != nil {
			poll.Stop()
		}
	}()
	for {
		wait := time.Duration(0)
		if s.Refresh != nil {
			s.SetLimit(s.Refresh())
			wait = refreshPoll
		}
		var changed <-chan struct{}
		if why, open := s.gatesOpen(); !open {
			wait = gatePoll // the gates are asked outside the lock: they read files
			s.hold(why)
		} else {
			slot, ok, ch := s.take()
			if ok {
				return slot, true
			}
			changed = ch
		}
		var tick <-chan time.Time
		if wait > 0 {
			if poll == nil {
				poll = time.NewTimer(wait)
			} else {
				poll.Reset(wait)
			}
			tick = poll.C
		}
		select {
		case <-changed:
		case <-tick:
		case <-ctx.Done():
		}
		s.mu.Lock()
		if changed != nil {
			s.waiting--
		}
		s.mu.Unlock()
		if ctx.Err() != nil {
			return Slot{}, false
		}
	}
}

// hold tells Held, once, why no job can start while none runs.
func (s *FixedSlots) hold(why string) {
	s.mu.Lock()
	tell := s.Held != nil && !s.held && s.busy == 0
	if tell {
		s.held = true
	}
	s.mu.Unlock()
	if tell {
		s.Held(why)
	}
}

// take takes the lowest free slot if the limit leaves one; if it does not,
// it counts the caller as waiting (it must uncount itself), and changed is
// closed when a slot may have come free since.
func (s *FixedSlots) take() (slot Slot, ok bool, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit > 0 && s.busy >= s.limit {
		s.waiting++ // under the same lock, so that no wake passes it by
		return Slot{}, false, s.changed
	}
	s.busy++
	s.held = false
	return Slot{N: s.numbers.Take(), Host: s.host, Exec: s.exec}, true, nil
}

// gatesOpen reports whether every gate lets a job start now, and if not,
// why not.
func (s *FixedSlots) gatesOpen() (why string, open bool) {
	for _, g := range s.Gates {
		if ok, why := g.Open(); !ok {
			return why, false
		}
	}
	return "", true
}

// Put implements Slots.
func (s *FixedSlots) Put(slot Slot) {
	s.mu.Lock()
	s.numbers.Put(slot.N)
	s.busy--
	s.wake()
	s.mu.Unlock()
	if s.Refresh != nil {
		s.SetLimit(s.Refresh()) // a procfile is read again as each job ends
	}
}

// SetLimit changes how many jobs may run at once (0: no limit); why says
// what set it, for the status report.
func (s *FixedSlots) SetLimit(n int, why string) {
	s.mu.Lock()
	s.why = why
	if n != s.limit {
		s.limit = n
		s.wake()
	}
	s.mu.Unlock()
}

// Limit is how many jobs may run at once now (0: no limit).
func (s *FixedSlots) Limit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limit
}

// Status is how many jobs may run at once now (0: no limit) and why: what
// set the limit, and the gate holding starts back, if one is closed. It
// asks the gates, which read files: it is for the status report, not for
// a hot path.
func (s *FixedSlots) Status() (limit int, why string) {
	s.mu.Lock()
	limit, why = s.limit, s.why
	s.mu.Unlock()
	if held, open := s.gatesOpen(); !open {
		why = strings.TrimPrefix(why+"; starts held: "+held, "; ")
	}
	return limit, why
}

// Waiting reports whether a job waits for a slot now: the limit holds it
// back (a closed gate does not count: more slots would not start it).
func (s *FixedSlots) Waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting > 0
}

// Running is how many slots are taken.
func (s *FixedSlots) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

// wake lets every waiting Take look again; s.mu is held. With none
// waiting there is nothing to do: a Take counts itself as waiting, under
// s.mu, before it waits on s.changed.
func (s *FixedSlots) wake() {
	if s.waiting == 0 {
		return
	}
	close(s.changed)
	s.changed = make(chan struct{})
}
