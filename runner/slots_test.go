package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// Slots are numbered from the lowest free one, and a limit lowered while
// jobs run lets them finish and starts none until fewer run.
func TestFixedSlotsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewFixedSlots(2, nil)
		ctx := context.Background()
		a, _ := s.Take(ctx)
		b, _ := s.Take(ctx)
		if a.N != 1 || b.N != 2 {
			t.Fatalf("slots %d, %d; want 1, 2", a.N, b.N)
		}
		s.SetLimit(1)
		got := make(chan Slot)
		go func() {
			c, _ := s.Take(ctx)
			got <- c
		}()
		s.Put(a) // one runs still: at the limit
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("a job started while the lowered limit was reached")
		default:
		}
		s.Put(b)
		if c := <-got; c.N != 1 {
			t.Fatalf("slot %d, want the lowest free, 1", c.N)
		}
	})
}

// A procfile is read again as jobs end and every second while a job
// waits: raising it starts waiting jobs without any job ending.
func TestFixedSlotsRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var limit atomic.Int64
		limit.Store(1)
		s := NewFixedSlots(0, nil)
		s.Refresh = func() int { return int(limit.Load()) }
		ctx := context.Background()
		s.Take(ctx)
		started := make(chan time.Time)
		go func() {
			s.Take(ctx)
			started <- time.Now()
		}()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		t0 := time.Now()
		limit.Store(2)
		if at := <-started; at.Sub(t0) > refreshPoll {
			t.Fatalf("the second job started %v after the raise, want within %v", at.Sub(t0), refreshPoll)
		}
	})
}

type gateFunc func() bool

func (g gateFunc) Open() (bool, string) { return g(), "busy" }

// A closed gate holds every start back until it opens.
func TestFixedSlotsGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var open atomic.Bool
		s := NewFixedSlots(4, nil)
		s.Gates = []Gate{gateFunc(open.Load)}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		go func() {
			time.Sleep(5 * time.Second)
			open.Store(true)
		}()
		t0 := time.Now()
		if _, ok := s.Take(ctx); !ok {
			t.Fatal("no slot after the gate opened")
		}
		if waited := time.Since(t0); waited < 5*time.Second || waited > 5*time.Second+gatePoll {
			t.Fatalf("started after %v, want soon after the gate opened at 5s", waited)
		}
	})
}

// A procfile keeps its last good count through empty, invalid and missing
// reads, and says once that something is wrong.
func TestProcFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "procs")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parse := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, errors.New("not a job count")
		}
		return n, nil
	}
	var warnings []string
	if _, err := NewProcFile(path, parse, nil); err == nil {
		t.Fatal("a missing procfile at start is not an error")
	}
	write("3\n")
	p, err := NewProcFile(path, parse, func(s string) { warnings = append(warnings, s) })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		content string // "-": removed
		want    int
	}{
		{"3\n", 3},
		{"5\n", 5},
		{"", 5},       // mid-write
		{"abc\n", 5},  // invalid: kept, one warning
		{"abc\n", 5},  // still: no second one
		{"-", 5},      // gone: kept, one warning (a new problem)
		{"2\n", 2},    // fixed
		{"  7 \n", 7}, // blanks around it
	} {
		if c.content == "-" {
			os.Remove(path)
		} else {
			write(c.content)
		}
		if got := p.Read(); got != c.want {
			t.Errorf("procfile %q: -j %d, want %d", c.content, got, c.want)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not a job count") {
		t.Errorf("warnings %q: want one for the invalid count", warnings)
	}
}
