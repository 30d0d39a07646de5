package runner

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// autoWorld simulates a run under -j auto: a backlog of jobs that always
// waits for a slot, and jobs that finish at a rate and put pressure on
// the machine as functions of the limit.
type autoWorld struct {
	mu       sync.Mutex
	slots    *FixedSlots
	p        Pressure
	finished float64
	rate     func(limit int) float64 // completions per second
	cpu, mem func(limit int) float64 // fraction of time stalled
	trace    []int
}

func (w *autoWorld) run(ctx context.Context) {
	go func() { // the backlog: a Take always waits
		for {
			if _, ok := w.slots.Take(ctx); !ok {
				return
			}
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		n := w.slots.Limit()
		w.mu.Lock()
		w.finished += w.rate(n) / 10
		w.p.CPU += int64(w.cpu(n) * 1e5)
		w.p.Memory += int64(w.mem(n) * 1e5)
		w.trace = append(w.trace, n)
		w.mu.Unlock()
	}
}

func (w *autoWorld) read() (Pressure, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.p, true
}

func (w *autoWorld) done() (int64, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return int64(w.finished), 0
}

// simulate runs -j auto from start in the world for d and returns the
// limit, sampled every 100 ms.
func simulate(t *testing.T, start, lo, hi int, d time.Duration, w *autoWorld) []int {
	var trace []int
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		w.slots = NewFixedSlots(start, "", nil)
		a := &Auto{Min: lo, Max: hi, Slots: w.slots, Read: w.read, Done: w.done, Log: func(s string) { t.Log(time.Now().Format("05.000"), s) }}
		go w.run(ctx)
		a.Run(ctx)
		<-ctx.Done()
		synctest.Wait()
		trace = w.trace
	})
	return trace
}

func none(int) float64 { return 0 }

// Jobs that wait (sleep, network) finish faster the more run: the limit
// climbs from the CPU count to its maximum.
func TestAutoClimbsForWaitingJobs(t *testing.T) {
	w := &autoWorld{rate: func(n int) float64 { return float64(n) }, cpu: none, mem: none}
	trace := simulate(t, 2, 1, 8, 60*time.Second, w)
	if last := trace[len(trace)-1]; last != 8 {
		t.Fatalf("the limit ended at %d, want the maximum 8; trace %v", last, compact(trace))
	}
}

// CPU-bound jobs on 2 CPUs: more than 2 finish no faster and stall the
// CPU; the limit never goes above twice the CPUs, nor below what keeps
// both busy. (Whether a raise to 3 paid is judged from completions, which
// are noisy: it may stay, at no cost in throughput.)
func TestAutoHoldsForCPUBoundJobs(t *testing.T) {
	w := &autoWorld{
		rate: func(n int) float64 { return float64(min(n, 2)) },
		cpu: func(n int) float64 {
			if n <= 2 {
				return 0.02
			}
			return float64(n-2) / float64(n)
		},
		mem: none,
	}
	trace := simulate(t, 2, 1, 8, 120*time.Second, w)
	for _, n := range trace {
		if n > 4 || n < 2 {
			t.Fatalf("the limit reached %d, outside 2 to twice the CPUs; trace %v", n, compact(trace))
		}
	}
}

// Memory pressure past the high mark cuts the limit at once, by a factor.
func TestAutoCutsUnderMemoryPressure(t *testing.T) {
	w := &autoWorld{
		rate: func(n int) float64 { return float64(n) },
		cpu:  none,
		mem: func(n int) float64 {
			if n > 5 {
				return 0.6
			}
			return 0
		},
	}
	trace := simulate(t, 8, 1, 8, 30*time.Second, w)
	for _, n := range trace[len(trace)/2:] {
		if n > 6 {
			t.Fatalf("the limit is %d late in the run under memory pressure above 5; trace %v", n, compact(trace))
		}
	}
	if trace[len(trace)-1] < 2 {
		t.Fatalf("the limit fell to %d; trace %v", trace[len(trace)-1], compact(trace))
	}
}

// compact turns a trace into its changes, for messages.
func compact(trace []int) []int {
	var out []int
	for i, n := range trace {
		if i == 0 || n != trace[i-1] {
			out = append(out, n)
		}
	}
	return out
}
