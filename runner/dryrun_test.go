package runner

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fan-run/fan/input"
)

// TestDryRunBatches: a dry run hands its results on in input order, up to
// DryBatch to an event, and fewer when they hold 64 KiB of input between
// them (packed items can be whole command lines): every item yields its
// result once.
func TestDryRunBatches(t *testing.T) {
	for _, c := range []struct {
		name     string
		n, size  int
		maxBatch int
	}{
		{"small", 1000, 3, DryBatch},
		{"large", 50, 40 << 10, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmpl := NewTemplate(TemplateOptions{Words: []string{"echo"}})
			items := make(chan input.Item, c.n)
			for i := 1; i <= c.n; i++ {
				rec := strconv.Itoa(i) + strings.Repeat("x", c.size)
				items <- input.Item{Seq: int64(i), Args: []string{rec}, Records: []string{rec}}
			}
			close(items)
			s := NewStream(16)
			p := &Pool{Jobs: 2, Template: tmpl, DryRun: true, Window: 100}
			done := make(chan error, 1)
			go func() { done <- p.Run(context.Background(), context.Background(), items, s) }()
			next, largest := int64(1), 0
			for ev := range s.Events {
				if ev.Kind != Finished || ev.Batch == nil {
					t.Fatalf("event %v (result %v): want Finished batches only", ev.Kind, ev.Result)
				}
				largest = max(largest, len(ev.Batch))
				for _, r := range ev.Batch {
					if r.Item.Seq != next || !r.DryRun {
						t.Fatalf("result of item %d (dry run %v), want item %d's", r.Item.Seq, r.DryRun, next)
					}
					next++
					s.Recycle(r)
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if next != int64(c.n)+1 {
				t.Errorf("%d results, want %d", next-1, c.n)
			}
			if largest > c.maxBatch {
				t.Errorf("a batch of %d results, want at most %d", largest, c.maxBatch)
			}
		})
	}
}

// A dry run renders nothing before Ready returns: its output must meet a
// closed stdout with SIGPIPE caught.
func TestDryRunWaitsForReady(t *testing.T) {
	items := make(chan input.Item, 1)
	items <- input.Item{Seq: 1, Args: []string{"a"}, Records: []string{"a"}}
	close(items)
	ready := make(chan struct{})
	s := NewStream(16)
	p := &Pool{Jobs: 1, Template: NewTemplate(TemplateOptions{Words: []string{"echo"}}), DryRun: true,
		Ready: func() { <-ready }}
	go p.Run(context.Background(), context.Background(), items, s)
	select {
	case ev := <-s.Events:
		t.Fatalf("event %v before Ready returned", ev.Kind)
	case <-time.After(200 * time.Millisecond):
	}
	close(ready)
	for ev := range s.Events {
		if ev.Kind == Finished {
			return
		}
	}
	t.Fatal("no result after Ready returned")
}

// A dry run's slot numbers cycle through the limit, oldest job ending
// first; when the limit changes (a procfile), the jobs over the new one
// end first and the numbers taken stay the lowest free.
func TestDrySlots(t *testing.T) {
	var d drySlots
	var got []int
	for _, limit := range []int{3, 3, 3, 3, 3, 1, 1, 4, 4, 4, 4, 4, 2, 2} {
		got = append(got, d.next(limit))
	}
	want := []int{1, 2, 3, 1, 2, 1, 1, 2, 3, 4, 1, 2, 1, 2}
	if !slices.Equal(got, want) {
		t.Errorf("slots %v, want %v", got, want)
	}
	var free drySlots
	for i := 1; i <= 5; i++ {
		if n := free.next(0); n != i {
			t.Fatalf("job %d without a limit got slot %d", i, n)
		}
	}
}

// The queue of a dry run's running slots reuses its room: a million jobs
// at -j 3 keep it a few numbers long.
func TestDrySlotsQueueBounded(t *testing.T) {
	var d drySlots
	for i := range 1_000_000 {
		if n, want := d.next(3), i%3+1; n != want {
			t.Fatalf("job %d got slot %d, want %d", i+1, n, want)
		}
	}
	if c := cap(d.held); c > 8 {
		t.Errorf("the queue of 3 running slots has room for %d", c)
	}
}
