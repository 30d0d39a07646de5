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
		timeout:     timeout,
		termTimeout: timeout,
		terminal:    true,
		running:     func() int { return 3 },
		notify:      func(msg string) { r.add("say " + msg) },
		stopIntake:  rec("stop intake"),
		terminate:   rec("terminate"),
		kill:        rec("kill"),
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
			time.Sleep(time.Second) // a new press, not the same one
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

// loop runs the drain's loop on a channel of signals, until stop. It is
// for a synctest bubble.
func (r *drainRecorder) loop() (sigs chan os.Signal, stop func()) {
	sigs = make(chan os.Signal)
	done := make(chan struct{})
	go r.d.loop(sigs, done)
	return sigs, func() { close(done) }
}

// after lets d of the bubble's time pass and returns the actions taken
// meanwhile (see take).
func (r *drainRecorder) after(d time.Duration) []string {
	time.Sleep(d)
	synctest.Wait()
	return r.take()
}

func TestDrainMessages(t *testing.T) {
	r := newDrainRecorder(0)
	r.d.advance(syscall.SIGINT, false)
	r.d.advance(syscall.SIGINT, false)
	r.d.advance(syscall.SIGINT, false)
	said := r.said()
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
	r.d.advance(syscall.SIGINT, false)
	if got := r.actions[0]; got != "say fan: interrupted: starting no new jobs" {
		t.Errorf("said %q", got)
	}
	// Later signals stop and kill nothing, so they say nothing ("stopping
	// 0 running jobs").
	r.d.advance(syscall.SIGINT, false)
	r.d.advance(syscall.SIGINT, false)
	for _, a := range r.actions[1:] {
		if strings.HasPrefix(a, "say ") {
			t.Errorf("with no job running, a later signal said %q", a)
		}
	}
}

// said returns the messages recorded since the last take, and forgets all.
func (r *drainRecorder) said() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, a := range r.actions {
		if msg, ok := strings.CutPrefix(a, "say "); ok {
			out = append(out, msg)
		}
	}
	r.actions = nil
	return out
}

// TestDrainTimeout: a drain ends after its deadline: --drain-timeout
// (timeout) whatever the signal, or without it termTimeout after SIGTERM;
// a drain SIGINT or SIGHUP began has none of its own. The next signal
// then kills.
func TestDrainTimeout(t *testing.T) {
	for _, tc := range []struct {
		name          string
		timeout, term time.Duration
		sig           os.Signal
		ends          bool
	}{
		{"drain-timeout", 10 * time.Second, 10 * time.Second, syscall.SIGINT, true},
		{"SIGTERM", 0, 10 * time.Second, syscall.SIGTERM, true},
		{"SIGINT", 0, 10 * time.Second, syscall.SIGINT, false},
		{"SIGHUP", 0, 10 * time.Second, syscall.SIGHUP, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newDrainRecorder(tc.timeout)
				r.d.termTimeout = tc.term
				sigs, stop := r.loop()
				defer stop()
				sigs <- tc.sig
				r.after(0)
				if got := r.after(9900 * time.Millisecond); len(got) != 0 {
					t.Fatalf("before the deadline: %q", got)
				}
				got, want := r.after(time.Hour), []string{"say", "stop intake", "terminate"}
				if !tc.ends {
					if len(got) != 0 {
						t.Fatalf("a drain with no deadline ended: %q", got)
					}
					return
				}
				if !slices.Equal(got, want) {
					t.Fatalf("after the deadline: %q, want %q", got, want)
				}
				sigs <- syscall.SIGINT
				if got, want := r.after(0), []string{"say", "stop intake", "terminate", "kill"}; !slices.Equal(got, want) {
					t.Fatalf("signal after the deadline: %q, want %q", got, want)
				}
			})
		})
	}
}

// fakeClock is a drain's clock, moved by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// TestDrainPresses: signals within 200 ms of the previous one are one
// press (timeout(1) signals fan and then its process group); INT, TERM and
// HUP count alike, press by press.
func TestDrainPresses(t *testing.T) {
	steps := []struct {
		after time.Duration
		sig   syscall.Signal
		stage int32
	}{
		{0, syscall.SIGTERM, draining},
		{time.Millisecond, syscall.SIGTERM, draining},      // timeout's second TERM
		{150 * time.Millisecond, syscall.SIGINT, draining}, // still within 200 ms of the previous one
		{time.Second, syscall.SIGHUP, terminating},
		{199 * time.Millisecond, syscall.SIGTERM, terminating},
		{200 * time.Millisecond, syscall.SIGINT, killing},
		{time.Second, syscall.SIGINT, killing},
	}
	r := newDrainRecorder(0)
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	r.d.now = clock.now
	for i, s := range steps {
		clock.t = clock.t.Add(s.after)
		r.d.signal(s.sig)
		if got := r.d.stage.Load(); got != s.stage {
			t.Fatalf("step %d (%v after %v): stage %d, want %d", i, s.sig, s.after, got, s.stage)
		}
	}
}

// TestDrainShortestDeadline: a SIGTERM that is the same press as the SIGINT
// before it brings SIGTERM's deadline; a later, longer one does not put it
// off.
func TestDrainShortestDeadline(t *testing.T) {
	r := newDrainRecorder(0)
	r.d.timeout, r.d.termTimeout = 0, 10*time.Second
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	r.d.now = clock.now
	if _, arm := r.d.signal(syscall.SIGINT); arm {
		t.Fatal("SIGINT without --drain-timeout set a deadline")
	}
	clock.t = clock.t.Add(10 * time.Millisecond)
	if wait, arm := r.d.signal(syscall.SIGTERM); !arm || wait != 10*time.Second {
		t.Fatalf("SIGTERM in the same press: deadline %v (%v), want 10s", wait, arm)
	}
	r.d.timeout = time.Minute
	clock.t = clock.t.Add(10 * time.Millisecond)
	if wait, arm := r.d.signal(syscall.SIGINT); arm {
		t.Fatalf("a longer deadline replaced a shorter one: %v", wait)
	}
}

// TestDrainMessagesNoTerminal: with stderr not a terminal (a script, a
// supervisor), the messages name the signal and do not speak of Ctrl-C.
func TestDrainMessagesNoTerminal(t *testing.T) {
	r := newDrainRecorder(0)
	r.d.terminal, r.d.termTimeout = false, 10*time.Second
	r.d.advance(syscall.SIGTERM, false)
	r.d.limit = 10 * time.Second
	r.d.advance(nil, true)
	r.d.advance(syscall.SIGTERM, false)
	want := []string{
		"fan: interrupted by SIGTERM: starting no new jobs, waiting for 3 running jobs for at most 10s (signal again to stop them)",
		"fan: drain timeout (10s): stopping 3 running jobs (signal again to kill them at once)",
		"fan: killing 3 running jobs",
	}
	if got := r.said(); !slices.Equal(got, want) {
		t.Errorf("messages:\n%q\nwant\n%q", got, want)
	}
}

// A record the drain cut is shown quoted, its first 200 bytes at most,
// with how many more there were.
func TestLostPartMessage(t *testing.T) {
	if got, want := lostPartMessage([]byte("ha\tlf")), `its first 5 bytes were read and run in no job (the rest was left unread): "ha\tlf"`; !strings.HasSuffix(got, want) {
		t.Errorf("short: %q, want it to end in %q", got, want)
	}
	long := lostPartMessage([]byte(strings.Repeat("x", 250)))
	if want := `its first 250 bytes were read and run in no job (the rest was left unread): "` + strings.Repeat("x", 200) + `" and 50 bytes more`; !strings.HasSuffix(long, want) {
		t.Errorf("long: %q, want it to end in %q", long, want)
	}
}
