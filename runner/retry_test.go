package runner

import (
	"testing"
	"time"
)

// TestBackoff: the wait before retry n is the base doubled n-1 times,
// within ±25% jitter, and never above the cap (plus its jitter).
func TestBackoff(t *testing.T) {
	base := time.Second
	for attempt, want := range map[int]time.Duration{
		1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second,
		7: maxBackoff, 30: maxBackoff,
	} {
		lo, hi := want*3/4, want*5/4
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoff(base, attempt)
			if d < lo || d > hi {
				t.Fatalf("backoff(1s, %d) = %v, want %v ±25%%", attempt, d, want)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("backoff(1s, %d): only %d different waits in 200: no jitter", attempt, len(seen))
		}
	}
	if d := backoff(0, 3); d != 0 {
		t.Errorf("backoff(0, 3) = %v, want 0 (no --retry-delay)", d)
	}
}

// TestRuntimesMedian: the median is over the latest medianWindow runtimes,
// so memory stays bounded and old runtimes age out.
func TestRuntimesMedian(t *testing.T) {
	var r runtimes
	if m := r.median(); m != 0 {
		t.Fatalf("median of nothing = %v, want 0", m)
	}
	r.add(3 * time.Second)
	if m := r.median(); m != 3*time.Second {
		t.Fatalf("median of one = %v, want it (GNU parallel's limit follows the first success)", m)
	}
	r.add(time.Second)
	if m := r.median(); m != time.Second {
		t.Fatalf("median of 3s 1s = %v, want the lower, 1s, as GNU parallel", m)
	}
	r.add(2 * time.Second)
	if m := r.median(); m != 2*time.Second {
		t.Fatalf("median of 1s 2s 3s = %v, want 2s", m)
	}
	for range 3 * medianWindow {
		r.add(time.Millisecond)
	}
	if m := r.median(); m != time.Millisecond || len(r.sorted) != medianWindow || len(r.ring) != medianWindow {
		t.Fatalf("after many 1ms runs: median %v, %d sorted, %d in the ring; want 1ms and %d", m, len(r.sorted), len(r.ring), medianWindow)
	}
}
