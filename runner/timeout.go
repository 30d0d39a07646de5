package runner

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// medianWindow is how many of the latest successful runtimes the median
// of --timeout N% is taken over: memory and work per job stay bounded on
// endless input, and the median follows jobs that change over a long run.
const medianWindow = 1001

// runtimes keeps the runtimes of the latest successful jobs for
// --timeout N%: in arrival order (a ring) and sorted.
type runtimes struct {
	mu      sync.Mutex
	ring    []time.Duration
	next    int // where the next runtime goes once the ring is full
	sorted  []time.Duration
	waiting []*jobTimer // timeouts that wait for a first median
	pruneAt int         // when waiting is this long, the stopped leave it
}

// add records a successful job's runtime. The first one gives the timeouts
// that waited for a median their limit.
func (r *runtimes) add(d time.Duration) {
	r.mu.Lock()
	if len(r.ring) < medianWindow {
		r.ring = append(r.ring, d)
	} else {
		old := r.ring[r.next]
		r.ring[r.next] = d
		r.next = (r.next + 1) % medianWindow
		i, _ := slices.BinarySearch(r.sorted, old)
		r.sorted = slices.Delete(r.sorted, i, i+1)
	}
	i, _ := slices.BinarySearch(r.sorted, d)
	r.sorted = slices.Insert(r.sorted, i, d)
	waiting := r.waiting
	r.waiting = nil
	r.mu.Unlock()
	for _, t := range waiting {
		t.kick()
	}
}

// median is the median of the latest runtimes (of an even number, the
// lower middle one, as GNU parallel takes it), or 0 before any job has
// succeeded.
func (r *runtimes) median() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sorted) == 0 {
		return 0
	}
	return r.sorted[(len(r.sorted)-1)/2]
}

// await has t kicked when the first runtime comes; it reports false when
// one has come already.
func (r *runtimes) await(t *jobTimer) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sorted) > 0 {
		return false
	}
	if len(r.waiting) >= r.pruneAt {
		// Jobs that ended while no job had succeeded yet: on a run where
		// none ever does, the list would otherwise grow with every job.
		r.waiting = slices.DeleteFunc(r.waiting, func(w *jobTimer) bool { return w.stopped.Load() })
		r.pruneAt = 2*len(r.waiting) + 64
	}
	r.waiting = append(r.waiting, t)
	return true
}

// deadline returns the context a job runs under, with its timeout, and a
// function that tells afterwards the limit that ended the job, or 0 when
// its timeout did not (it also releases the timer). Time
// the run spends suspended (Ctrl-Z) does not count. A timeout of N% of
// the median runtime follows the median as jobs succeed, as in GNU
// parallel: a job started before any job succeeded gets its limit from the
// first success, and a running job's limit moves with the median.
func (p *Pool) deadline(ctx context.Context) (context.Context, func() time.Duration) {
	if p.Timeout.Fixed <= 0 && p.Timeout.Percent <= 0 {
		return ctx, func() time.Duration { return 0 }
	}
	jctx, cancel := context.WithCancelCause(ctx)
	now := time.Now()
	t := &jobTimer{pool: p, start: now, paused: p.clock.pausedAt(now), cancel: cancel}
	t.mu.Lock()
	t.timer = time.AfterFunc(never, t.fire)
	t.arm(now)
	t.mu.Unlock()
	return jctx, func() time.Duration {
		t.stop()
		if context.Cause(jctx) != errTimedOut {
			return 0
		}
		return t.ended
	}
}

// never is a wait that does not end: a timer set to it is only kicked.
const never = time.Duration(1<<63 - 1)

// jobTimer ends a job's context once the job has run for its limit, not
// counting the time the run spent suspended meanwhile.
type jobTimer struct {
	pool   *Pool
	start  time.Time
	paused time.Duration // pool.clock.pausedAt(start)

	mu      sync.Mutex
	timer   *time.Timer
	cancel  context.CancelCauseFunc
	stopped atomic.Bool
	ended   time.Duration // the limit when it ended the job
}

// limit is the job's timeout now, or 0 while it waits for a median.
func (t *jobTimer) limit() time.Duration {
	to := t.pool.Timeout
	if to.Percent <= 0 {
		return to.Fixed
	}
	return time.Duration(float64(t.pool.medians.median()) * to.Percent / 100)
}

// arm sets the timer for the rest of the job's limit, or ends the job
// when none is left. The caller holds t.mu.
func (t *jobTimer) arm(now time.Time) {
	limit := t.limit()
	if limit <= 0 {
		if t.pool.medians.await(t) {
			return
		}
		if limit = t.limit(); limit <= 0 { // the first median came meanwhile
			return
		}
	}
	ran := now.Sub(t.start) - (t.pool.clock.pausedAt(now) - t.paused)
	if left := limit - ran; left > 0 {
		t.timer.Reset(left)
		return
	}
	t.ended = limit
	t.cancel(errTimedOut)
}

// fire is the timer's function: the limit may have moved (a new median, a
// suspension) since the timer was set.
func (t *jobTimer) fire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped.Load() {
		t.arm(time.Now())
	}
}

// kick fires the timer now.
func (t *jobTimer) kick() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped.Load() {
		t.timer.Reset(0)
	}
}

// stop releases the timer and the context.
func (t *jobTimer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped.Store(true)
	t.timer.Stop()
	t.cancel(context.Canceled)
}

type timeoutError struct{}

func (timeoutError) Error() string { return "timed out" }

var errTimedOut error = timeoutError{}
