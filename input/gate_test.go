package input

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// pipe returns the two ends of a pipe, closed when the test ends.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestGateWakesWaitingRead: a Read waiting on a pipe when the gate closes
// returns ErrStopped, and the bytes written after that stay in the pipe.
func TestGateWakesWaitingRead(t *testing.T) {
	r, w := pipe(t)
	g := NewGate(r)
	if _, err := w.Write([]byte("before\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, err := g.Read(buf); err != nil || string(buf[:n]) != "before\n" {
		t.Fatalf("Read: %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := g.Read(buf)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the Read wait for data
	g.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrStopped) {
			t.Fatalf("waiting Read after Close: %v, want ErrStopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a Read waiting on the pipe did not wake when the gate closed")
	}
	if _, err := w.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "after\n" {
		t.Fatalf("left in the pipe: %q, %v; want \"after\\n\"", rest, err)
	}
}

// halfRecord is a pipe's two ends and a splitter over a gate on it: "a\nbc"
// was written, the first record read and the second begun.
func halfRecord(t *testing.T) (r, w *os.File, g *Gate, s *Splitter) {
	t.Helper()
	r, w = pipe(t)
	g = NewGate(r)
	s = NewSplitter(g, []byte("\n"))
	w.Write([]byte("a\nbc"))
	if rec, err := s.Next(); err != nil || rec != "a" {
		t.Fatalf("first record %q, %v", rec, err)
	}
	return r, w, g, s
}

// TestGateFinishesRecord: a record begun when the gate closes is read to
// its end, so that a drain leaves no half item consumed; nothing after it
// is read.
func TestGateFinishesRecord(t *testing.T) {
	r, w, g, s := halfRecord(t)
	g.Close()
	go func() {
		time.Sleep(10 * time.Millisecond)
		w.Write([]byte("d\n"))
	}()
	if rec, err := s.Next(); err != nil || rec != "bcd" {
		t.Fatalf("the record begun at the close: %q, %v; want \"bcd\"", rec, err)
	}
	w.Write([]byte("e\n"))
	if rec, err := s.Next(); !errors.Is(err, ErrStopped) {
		t.Fatalf("after it: %q, %v; want ErrStopped", rec, err)
	}
	w.Close()
	if rest, _ := io.ReadAll(r); string(rest) != "e\n" {
		t.Fatalf("left in the pipe: %q, want \"e\\n\"", rest)
	}
}

// TestGateFinishesOnce: after the gate closes, only the record begun then
// is finished, however fast the producer goes on writing records that
// each end in the next one's start: the drain ends.
func TestGateFinishesOnce(t *testing.T) {
	r, w := pipe(t)
	g := NewGate(r)
	s := NewSplitter(g, []byte("\n"))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		w.Write([]byte("x"))
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				if _, err := w.Write([]byte("\nx")); err != nil {
					return
				}
			}
		}
	}()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	g.Close()
	for n := 0; ; n++ {
		if _, err := s.Next(); errors.Is(err, ErrStopped) {
			break
		}
		if n > 100 {
			t.Fatal("the splitter still reads records 100 records after the gate closed")
		}
	}
}

// TestGateGivesUpOnAStalledRecord: a record whose rest does not come is
// given up on (ErrStopped) once finishTotal has passed since the close,
// however the bytes trickle in: the drain ends.
func TestGateGivesUpOnAStalledRecord(t *testing.T) {
	_, w, g, s := halfRecord(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte now and then, never the record's end
		for {
			select {
			case <-stop:
				return
			case <-time.After(finishWait / 2):
				w.Write([]byte("x"))
			}
		}
	}()
	begin := time.Now()
	g.Close()
	rec, err := s.Next()
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("a record that never ends: %q, %v; want ErrStopped", rec, err)
	}
	// The bytes taken of it are handed back, for the user to be told.
	var part *StoppedPart
	if !errors.As(err, &part) || !strings.HasPrefix(string(part.Read), "bcx") {
		t.Errorf("a record that never ends: %v, want a StoppedPart holding bcx...", err)
	}
	// Without the cap, a byte every finishWait/2 would hold the drain
	// for finishMax of them: over an hour.
	if took := time.Since(begin); took > 10*finishTotal {
		t.Errorf("gave up after %v, want about finishTotal (%v)", took, finishTotal)
	}
}
