package runner

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// maxBackoff caps the wait between retries.
const maxBackoff = time.Minute

// backoff is the wait before retry number attempt (1 for the first retry):
// base doubled for each earlier retry, capped, with up to ±25% jitter so
// that jobs failing together do not retry in lockstep.
func backoff(base time.Duration, attempt int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	d = min(d, maxBackoff)
	jitter := time.Duration((rand.Float64() - 0.5) / 2 * float64(d))
	return d + jitter
}

// sleep waits for d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

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

// medianWindow is how many of the latest successful runtimes the median
// of --timeout N% is taken over: memory and work per job stay bounded on
// endless input, and the median follows jobs that change over a long run.
const medianWindow = 1001

// runtimes keeps the runtimes of the latest successful jobs for
// --timeout N%: in arrival order (a ring) and sorted.
type runtimes struct {
	mu     sync.Mutex
	ring   []time.Duration
	next   int // where the next runtime goes once the ring is full
	sorted []time.Duration
}

func (r *runtimes) add(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
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
}

// median is the median of the latest runtimes, or 0 before three jobs have
// succeeded.
func (r *runtimes) median() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sorted) < 3 {
		return 0
	}
	return r.sorted[len(r.sorted)/2]
}

// deadline returns the context a job runs under, with its timeout, and a
// function that tells afterwards whether the timeout ended the job. Time
// the run spends suspended (Ctrl-Z) does not count.
func (p *Pool) deadline(ctx context.Context) (context.Context, func() bool) {
	d := p.Timeout.Fixed
	if p.Timeout.Percent > 0 {
		if m := p.medians.median(); m > 0 {
			d = time.Duration(float64(m) * p.Timeout.Percent / 100)
		}
	}
	if d <= 0 {
		return ctx, func() bool { return false }
	}
	jctx, cancel := context.WithCancelCause(ctx)
	now := time.Now()
	t := &jobTimer{groups: &p.groups, limit: d, start: now, paused: p.groups.pausedAt(now), cancel: cancel}
	t.mu.Lock()
	t.timer = time.AfterFunc(d, t.fire)
	t.mu.Unlock()
	return jctx, func() bool {
		t.stop()
		return context.Cause(jctx) == errTimedOut
	}
}

// jobTimer ends a job's context once the job has run for limit, not
// counting the time the run spent suspended meanwhile.
type jobTimer struct {
	groups *groups
	limit  time.Duration
	start  time.Time
	paused time.Duration // groups.pausedAt(start)

	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelCauseFunc
}

// fire ends the job, or waits on for as long as the run was suspended.
func (t *jobTimer) fire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	ran := now.Sub(t.start) - (t.groups.pausedAt(now) - t.paused)
	if left := t.limit - ran; left > 0 {
		t.timer.Reset(left)
		return
	}
	t.cancel(errTimedOut)
}

// stop releases the timer and the context.
func (t *jobTimer) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer.Stop()
	t.cancel(context.Canceled)
}

type timeoutError struct{}

func (timeoutError) Error() string { return "timed out" }

var errTimedOut error = timeoutError{}
