package cmd

import (
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// drainRecorder is a drain whose actions are written down in order.
type drainRecorder struct {
	mu      sync.Mutex
	actions []string
	d       *drain
}

func newDrainRecorder(timeout time.Duration) *drainRecorder {
	r := &drainRecorder{}
	rec := func(a string) func() { return func() { r.add(a) } }
	r.d = &drain{
		timeout:    timeout,
		running:    func() int { return 3 },
		notify:     func(msg string) { r.add("say " + msg) },
		stopIntake: rec("stop intake"),
		terminate:  rec("terminate"),
		kill:       rec("kill"),
	}
	return r
}

func (r *drainRecorder) add(a string) {
	r.mu.Lock()
	r.actions = append(r.actions, a)
	r.mu.Unlock()
}

// take returns the actions recorded since the last call, without the
// wording of the messages.
func (r *drainRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.actions))
	for i, a := range r.actions {
		if strings.HasPrefix(a, "say ") {
			a = "say"
		}
		out[i] = a
	}
	r.actions = nil
	return out
}

func TestDrainStages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newDrainRecorder(0)
		sigs := make(chan os.Signal)
		done := make(chan struct{})
		go r.d.loop(sigs, done)

		want := [][]string{
			{"say", "stop intake"},
			{"say", "stop intake", "terminate"},
			{"say", "stop intake", "terminate", "kill"},
			{}, // a fourth signal has nothing left to do
		}
		for i, w := range want {
			sigs <- syscall.SIGINT
			synctest.Wait()
			if got := r.take(); !slices.Equal(got, w) && !(len(got) == 0 && len(w) == 0) {
				t.Fatalf("signal %d: actions %q, want %q", i+1, got, w)
			}
		}
		if !r.d.interrupted() {
			t.Error("interrupted() is false after signals")
		}
		close(done)
	})
}

func TestDrainTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newDrainRecorder(10 * time.Second)
		sigs := make(chan os.Signal)
		done := make(chan struct{})
		go r.d.loop(sigs, done)

		sigs <- syscall.SIGTERM
		synctest.Wait()
		r.take()
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if got := r.take(); len(got) != 0 {
			t.Fatalf("before the drain timeout: %q, want nothing", got)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got, want := r.take(), []string{"say", "stop intake", "terminate"}; !slices.Equal(got, want) {
			t.Fatalf("after the drain timeout: %q, want %q", got, want)
		}
		sigs <- syscall.SIGINT // the next signal kills
		synctest.Wait()
		if got, want := r.take(), []string{"say", "stop intake", "terminate", "kill"}; !slices.Equal(got, want) {
			t.Fatalf("signal after the timeout: %q, want %q", got, want)
		}
		close(done)
	})
}

func TestDrainMessages(t *testing.T) {
	r := newDrainRecorder(0)
	r.d.advance(false)
	r.d.advance(false)
	r.d.advance(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	var said []string
	for _, a := range r.actions {
		if msg, ok := strings.CutPrefix(a, "say "); ok {
			said = append(said, msg)
		}
	}
	want := []string{
		"fan: interrupted: starting no new jobs, waiting for 3 running jobs (Ctrl-C again to stop them)",
		"fan: stopping 3 running jobs (Ctrl-C again to kill them at once)",
		"fan: killing 3 running jobs",
	}
	if !slices.Equal(said, want) {
		t.Errorf("messages:\n%q\nwant\n%q", said, want)
	}
}

// TestDrainMessageIdle: with no job running, the first signal does not
// speak of waiting for one.
func TestDrainMessageIdle(t *testing.T) {
	r := newDrainRecorder(0)
	r.d.running = func() int { return 0 }
	r.d.advance(false)
	if got := r.actions[0]; got != "say fan: interrupted: starting no new jobs" {
		t.Errorf("said %q", got)
	}
	// Later signals stop and kill nothing, so they say nothing ("stopping
	// 0 running jobs").
	r.d.advance(false)
	r.d.advance(false)
	for _, a := range r.actions[1:] {
		if strings.HasPrefix(a, "say ") {
			t.Errorf("with no job running, a later signal said %q", a)
		}
	}
}
