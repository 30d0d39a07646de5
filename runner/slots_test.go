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
		s := NewFixedSlots(2, "", nil)
		ctx := context.Background()
		a, _ := s.Take(ctx)
		b, _ := s.Take(ctx)
		if a.N != 1 || b.N != 2 {
			t.Fatalf("slots %d, %d; want 1, 2", a.N, b.N)
		}
		s.SetLimit(1, "")
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
		s := NewFixedSlots(0, "", nil)
		s.Refresh = func() (int, string) { return int(limit.Load()), "procfile" }
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
		s := NewFixedSlots(4, "", nil)
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
		{"-", 5},      // gone: kept; the problem goes on, no new warning
		{"2\n", 2},    // fixed
		{"  7 \n", 7}, // blanks around it
	} {
		if c.content == "-" {
			os.Remove(path)
		} else {
			write(c.content)
		}
		if got, _ := p.Read(); got != c.want {
			t.Errorf("procfile %q: -j %d, want %d", c.content, got, c.want)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not a job count") {
		t.Errorf("warnings %q: want one for the invalid count", warnings)
	}
}

// A procfile that stays empty is a problem said once; one emptied for a
// moment by a writer is not.
func TestProcFileStaysEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "procs")
		os.WriteFile(path, []byte("4\n"), 0o644)
		var warnings []string
		p, err := NewProcFile(path, strconv.Atoi, func(s string) { warnings = append(warnings, s) })
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, nil, 0o644)
		p.Read()
		time.Sleep(emptyGrace / 2)
		if n, why := p.Read(); n != 4 || len(warnings) != 0 || !strings.Contains(why, "holds 4") {
			t.Fatalf("empty for a moment: -j %d (%s), warnings %q", n, why, warnings)
		}
		for range 3 {
			time.Sleep(emptyGrace)
			p.Read()
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "empty") {
			t.Fatalf("empty for long: warnings %q, want one", warnings)
		}
	})
}

// A closed gate that keeps every slot empty is told once, with its
// reason; the status report says what holds starts.
func TestFixedSlotsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var open atomic.Bool
		s := NewFixedSlots(2, "-j 2", nil)
		s.Gates = []Gate{gateFunc(open.Load)}
		var told []string
		s.Held = func(why string) { told = append(told, why) }
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		go s.Take(ctx)
		time.Sleep(time.Second)
		synctest.Wait()
		if n, why := s.Status(); n != 2 || why != "-j 2; starts held: busy" {
			t.Errorf("status: %d, %q", n, why)
		}
		if s.Waiting() {
			t.Error("a job held by a gate counts as waiting for the limit")
		}
		<-ctx.Done()
		if len(told) != 1 || told[0] != "busy" {
			t.Errorf("told %q, want one \"busy\"", told)
		}
	})
}
