package runner

import (
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// heldPipe makes a pipe as a job's capture would, and returns its read
// end (non-blocking, for leave) and its write end, as a process that
// escaped the job would hold it.
func heldPipe(t *testing.T) (int, *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	w := os.NewFile(uintptr(fds[1]), "held")
	t.Cleanup(func() { w.Close() })
	return fds[0], w
}

// refused waits (up to 10s) for a write into w to fail with EPIPE: the
// pipe's read end was closed. False when writes still go through.
func refused(w *os.File, wait time.Duration) bool {
	for deadline := time.Now().Add(wait); ; time.Sleep(5 * time.Millisecond) {
		if _, err := w.Write([]byte("x\n")); errors.Is(err, syscall.EPIPE) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// leftCount is how many pipes the poll keeps left behind.
func leftCount(p *capturePoll) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.left.pipes)
}

// Pipes left behind are kept open, their writes taken, up to the most
// the poll was given; one more closes the oldest, whose holder's writes
// then fail, and the user is told once. A pipe whose holder closes it
// makes room.
func TestCaptureLeftBehindBounded(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	poll, err := startCapturePoll(2, func(s string) {
		mu.Lock()
		notes = append(notes, s)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer poll.close()
	var w [5]*os.File
	for i := range 3 {
		var r int
		r, w[i] = heldPipe(t)
		poll.leave(r)
	}
	if !refused(w[0], 10*time.Second) {
		t.Fatal("the oldest of 3 pipes left behind, past the most of 2, was not closed")
	}
	if refused(w[1], 100*time.Millisecond) || refused(w[2], 100*time.Millisecond) {
		t.Fatal("a pipe left behind within the most kept was closed")
	}
	r, w3 := heldPipe(t)
	w[3] = w3
	poll.leave(r)
	if !refused(w[1], 10*time.Second) || refused(w[2], 100*time.Millisecond) {
		t.Fatal("a fourth pipe left behind did not close the oldest still open, and it alone")
	}
	// The holder of one closes it: a place is free, and the next pipe
	// left behind closes none.
	w[2].Close()
	for deadline := time.Now().Add(10 * time.Second); leftCount(poll) > 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d pipes still kept after a holder closed its own", leftCount(poll))
		}
	}
	r, w[4] = heldPipe(t)
	poll.leave(r)
	if refused(w[3], 100*time.Millisecond) || refused(w[4], 100*time.Millisecond) {
		t.Fatal("a pipe was closed with room for it")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "fan: more than 2 output pipes of ended jobs are held open") {
		t.Fatalf("notices %q, want one saying pipes are closed past 2", notes)
	}
}

// leftBehindRoom keeps a sixteenth of the descriptors for pipes left
// behind, at least one and at most maxLeftBehind; FitBudget counts them,
// so that grouped jobs run fewer at once rather than fail for want of a
// descriptor.
func TestLeftBehindRoom(t *testing.T) {
	for _, c := range []struct{ avail, want int }{
		{0, 1}, {15, 1}, {200, 12}, {1 << 20, maxLeftBehind},
	} {
		if got := leftBehindRoom(c.avail); got != c.want {
			t.Errorf("leftBehindRoom(%d) = %d, want %d", c.avail, got, c.want)
		}
	}
	for _, req := range []BudgetRequest{{}, {Remote: true}, {LineBuffer: true}, {Ungrouped: true}, {DryRun: true}} {
		req.Buffered = 16
		b, err := FitBudget(req)
		if err != nil {
			t.Fatal(err)
		}
		piped := !req.Ungrouped && !req.LineBuffer && !req.DryRun
		if piped != (b.LeftBehind > 0) {
			t.Errorf("%+v: %+v: want room for pipes left behind with grouped output only", req, b)
		}
	}
}
