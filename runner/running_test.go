package runner

import (
	"context"
	"testing"
	"time"
)

// --memfree evicts the youngest attempt whose process exists: one still
// being spawned holds no memory yet, so it is neither evicted nor counted
// among those that run.
func TestEvictYoungestSkipsSpawning(t *testing.T) {
	t0 := time.Now()
	newAttempt := func(seq int64, age time.Duration, spawned bool) (*attempt, context.Context) {
		ctx, cancel := context.WithCancelCause(context.Background())
		t.Cleanup(func() { cancel(nil) })
		a := &attempt{seq: seq, start: t0.Add(-age), evict: cancel}
		a.spawned.Store(spawned)
		return a, ctx
	}
	var r running
	old, oldCtx := newAttempt(1, 3*time.Second, true)
	mid, midCtx := newAttempt(2, 2*time.Second, true)
	young, youngCtx := newAttempt(3, time.Second, false)
	for _, a := range []*attempt{old, mid, young} {
		r.add(a)
	}
	if got := r.evictYoungest(); got != mid {
		t.Fatalf("evicted %+v, want job 2, the youngest spawned", got)
	}
	if context.Cause(midCtx) != errEvicted || oldCtx.Err() != nil || youngCtx.Err() != nil {
		t.Errorf("causes: job 1 %v, job 2 %v, job 3 %v; want job 2 alone evicted", context.Cause(oldCtx), context.Cause(midCtx), context.Cause(youngCtx))
	}
	// One spawned left, and one spawning: the last that runs is left to
	// finish.
	if got := r.evictYoungest(); got != nil {
		t.Fatalf("evicted job %d, want none: one job runs", got.seq)
	}
}
