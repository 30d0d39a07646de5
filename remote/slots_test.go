package remote_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fan-run/fan/internal/sshtest"
	"github.com/fan-run/fan/remote"
	"github.com/fan-run/fan/runner"
)

func logins(t *testing.T, s string) []remote.Login {
	t.Helper()
	ls, err := remote.ParseLogins(s)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// newSlots returns the Slots of the logins spec (as -S has them), with
// config c and a local executor of their own for ':', both closed when t
// ends.
func newSlots(t *testing.T, spec string, c remote.Config) (*remote.Slots, *runner.Local) {
	t.Helper()
	local, err := runner.NewLocal()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	s, err := remote.NewSlots(logins(t, spec), remote.SlotsConfig{Local: local, Config: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, local
}

// notes gathers what Slots say for the user (Slots.Notify).
type notes struct {
	mu   sync.Mutex
	said []string
}

// listen has s's messages gathered in a new notes.
func listen(s *remote.Slots) *notes {
	n := &notes{}
	s.Notify = func(m string) { n.mu.Lock(); n.said = append(n.said, m); n.mu.Unlock() }
	return n
}

// all is the messages so far.
func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.said)
}

func TestDedupeKeepsTheFirst(t *testing.T) {
	got := remote.Dedupe(logins(t, "2/h1,h2,4/h1,:,3/:,u@h1"))
	var names []string
	for _, l := range got {
		names = append(names, l.String()+"="+string(rune('0'+l.Slots)))
	}
	if want := "h1=2 h2=0 :=0 u@h1=0"; strings.Join(names, " ") != want {
		t.Errorf("Dedupe: %v, want %s", names, want)
	}
}

func TestSlotsNumberTheLowestFree(t *testing.T) {
	s, local := newSlots(t, "3/:", remote.Config{})
	ctx := context.Background()
	var got []runner.Slot
	for range 3 {
		sl, ok := s.Take(ctx)
		if !ok {
			t.Fatal("Take failed")
		}
		got = append(got, sl)
	}
	for i, sl := range got {
		if sl.N != i+1 || sl.Host != "" || sl.Exec != runner.Executor(local) {
			t.Errorf("slot %d: %+v", i, sl)
		}
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, ok := s.Take(short); ok {
		t.Error("a fourth slot of 3/: was given")
	}
	s.Put(got[1])
	if sl, ok := s.Take(ctx); !ok || sl.N != 2 {
		t.Errorf("after slot 2 came free, Take gave %+v %v", sl, ok)
	}
}

func TestSlotsGiveUpWhenNoHostIsLeft(t *testing.T) {
	s, _ := newSlots(t, "1/:", remote.Config{})
	n := listen(s)
	gaveUp := make(chan struct{})
	s.HostTimeout, s.OnGiveUp = 100*time.Millisecond, func() { close(gaveUp) }
	s.SetLogins(nil) // the login file was emptied
	start := time.Now()
	if _, ok := s.Take(context.Background()); ok {
		t.Fatal("Take gave a slot with no host")
	}
	<-gaveUp
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Errorf("gave up after %v, before the host timeout", took)
	}
	if said := n.all(); len(said) != 1 || !strings.Contains(said[0], "no host could be reached for 100ms (none left in the login files)") {
		t.Errorf("said %q", said)
	}
}

func TestSlotsQuarantineAHostThatDies(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	s, _ := newSlots(t, "1/h1,1/h2", remote.Config{SSH: hs.SSH()})
	n := listen(s)
	// Each Take waits for a slot with no bound of its own: a host that
	// never came back would hang the test rather than fail it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	take := func() runner.Slot {
		t.Helper()
		sl, ok := s.Take(ctx)
		if !ok {
			t.Fatalf("no slot for 2 minutes; said %q", n.all())
		}
		return sl
	}
	a, b := take(), take()
	if a.Host == b.Host {
		t.Fatalf("both slots on %s", a.Host)
	}
	s.Put(a)
	s.Put(b)
	hs.Host("h1").Kill()
	// A job on h1 fails to start: h1 is quarantined, and every slot
	// from then on is h2's, until h1 answers again.
	for range 2 {
		sl := take()
		if sl.Host == "h1" {
			pr, err := sl.Exec.Start(&runner.Attempt{Command: shell("true")})
			if err == nil {
				_, err = pr.Wait(ctx, ctx, nil)
			}
			if err == nil {
				t.Fatal("a job ran on a dead host")
			}
		}
		s.Put(sl)
	}
	for range 4 {
		sl := take()
		if sl.Host != "h2" {
			t.Errorf("a slot on %s while h1 is dead", sl.Host)
		}
		s.Put(sl)
	}
	if err := hs.Host("h1").Up(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, b := take(), take()
		s.Put(a)
		s.Put(b)
		if a.Host != b.Host {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("h1 takes no jobs 10s after it came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The message that h1 is back may follow its first slot by a moment.
	for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait) && len(n.all()) < 2; {
		time.Sleep(20 * time.Millisecond)
	}
	if said := n.all(); len(said) != 2 || !strings.HasPrefix(said[0], "fan: host h1 cannot be reached (") || said[1] != "fan: host h1 answers again: it takes jobs again" {
		t.Errorf("said %q", said)
	}
}
