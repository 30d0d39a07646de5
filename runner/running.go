package runner

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// running is the pool's list of the attempts running now: for the status
// report (SIGUSR1), and so that --memfree can put the youngest back in the
// queue.
type running struct {
	mu   sync.Mutex
	jobs map[int64]*attempt
}

// attempt is one running attempt of a job.
type attempt struct {
	seq     int64
	slot    Slot
	command *Command
	start   time.Time
	evict   context.CancelCauseFunc
	// spawned is set once its process exists (the attempt is listed from
	// just before its spawn, for the status report).
	spawned atomic.Bool
}

// errEvicted ends an attempt that is put back in the queue to free memory.
var errEvicted = errors.New("put back in the queue to free memory")

func (r *running) add(a *attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.jobs == nil {
		r.jobs = map[int64]*attempt{}
	}
	r.jobs[a.seq] = a
}

func (r *running) remove(seq int64) {
	r.mu.Lock()
	delete(r.jobs, seq)
	r.mu.Unlock()
}

// evictYoungest terminates the attempt that started last, if more than
// one runs (the last one is left to finish: evicting it frees nothing that
// another start would not take again), and returns it; nil when it did
// not. An attempt still being spawned holds no memory yet: it is neither
// evicted nor counted.
func (r *running) evictYoungest() *attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	var young *attempt
	spawned := 0
	for _, a := range r.jobs {
		if !a.spawned.Load() {
			continue
		}
		spawned++
		if young == nil || a.start.After(young.start) {
			young = a
		}
	}
	if young == nil || spawned < 2 {
		return nil
	}
	delete(r.jobs, young.seq)
	young.evict(errEvicted)
	return young
}

// RunningJob describes a running job for the status report: its number
// in input order, the slot it runs in (as a Result's: its number and
// host), its command and how long it has run.
type RunningJob struct {
	Seq     int64
	Slot    Slot
	Command string
	Runtime time.Duration
}

// RunningJobs lists the jobs running now, in input order. It is safe to call
// from any goroutine.
func (p *Pool) RunningJobs() []RunningJob {
	p.live.mu.Lock()
	now := time.Now()
	out := make([]RunningJob, 0, len(p.live.jobs))
	for _, a := range p.live.jobs {
		out = append(out, RunningJob{Seq: a.seq, Slot: a.slot, Command: a.command.String(), Runtime: now.Sub(a.start)})
	}
	p.live.mu.Unlock()
	slices.SortFunc(out, func(a, b RunningJob) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}
