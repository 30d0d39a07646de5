package output

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/runner"
)

// liveRun is a sink in --line-buffer mode running in the background, fed
// by hand-made jobs.
type liveRun struct {
	t         *testing.T
	out       *os.File
	spool     *Spool
	keepOrder bool
	events    chan runner.Event
	done      chan struct{}
	// With keepOrder, the pool hands results on in input order: those
	// that end early wait here for the ones before them.
	ended map[int64]*runner.Result
	next  int64
}

func startLive(t *testing.T, keepOrder bool, tag func(*runner.Result) string) *liveRun {
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.CreateTemp(t.TempDir(), "err")
	if err != nil {
		t.Fatal(err)
	}
	spool := NewSpool(t.TempDir(), 0)
	s := &Sink{Stdout: out, Stderr: errf, KeepOrder: keepOrder, LineBuffer: true, Tag: tag, Spool: spool}
	lr := &liveRun{t: t, out: out, spool: spool, keepOrder: keepOrder, events: make(chan runner.Event),
		done: make(chan struct{}), ended: map[int64]*runner.Result{}, next: 1}
	go func() {
		s.Run(&runner.Stream{Events: lr.events})
		close(lr.done)
	}()
	return lr
}

// start starts job seq and returns its stdout file, as the job sees it.
func (lr *liveRun) start(seq int64) *runner.Result {
	r := &runner.Result{Item: input.Item{Seq: seq, Args: []string{"arg"}}}
	var err error
	if r.Stdout, err = lr.spool.Get(); err != nil {
		lr.t.Fatal(err)
	}
	if r.Stderr, err = lr.spool.Get(); err != nil {
		lr.t.Fatal(err)
	}
	live := &runner.LiveFiles{Stdout: dupFile(lr.t, r.Stdout), Stderr: dupFile(lr.t, r.Stderr)}
	lr.events <- runner.Event{Kind: runner.Started, Result: r, Live: live}
	return r
}

// dupFile is a descriptor of f of the sink's own, as the pool makes it.
func dupFile(t *testing.T, f *os.File) *os.File {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), f.Name())
}

func (lr *liveRun) end(r *runner.Result) {
	r.Stdout.Seek(0, 0)
	if !lr.keepOrder {
		lr.events <- runner.Event{Kind: runner.Finished, Result: r}
		return
	}
	lr.ended[r.Item.Seq] = r
	for lr.ended[lr.next] != nil {
		lr.events <- runner.Event{Kind: runner.Finished, Result: lr.ended[lr.next]}
		delete(lr.ended, lr.next)
		lr.next++
	}
}

// written is what the sink has written to stdout so far.
func (lr *liveRun) written() string {
	b, err := os.ReadFile(lr.out.Name())
	if err != nil {
		lr.t.Fatal(err)
	}
	return string(b)
}

// waitFor waits until stdout is want.
func (lr *liveRun) waitFor(want string) {
	lr.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for lr.written() != want {
		if time.Now().After(deadline) {
			lr.t.Fatalf("stdout is %q, want %q", lr.written(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stays checks that stdout stays want for a while.
func (lr *liveRun) stays(want string) {
	lr.t.Helper()
	time.Sleep(200 * time.Millisecond)
	if got := lr.written(); got != want {
		lr.t.Fatalf("stdout is %q, want %q", got, want)
	}
}

func (lr *liveRun) close() {
	close(lr.events)
	<-lr.done
}

func TestLineBufferKeepOrder(t *testing.T) {
	lr := startLive(t, true, nil)
	j1, j2 := lr.start(1), lr.start(2)
	j2.Stdout.WriteString("2a\n")
	j1.Stdout.WriteString("1a\n1b")
	lr.waitFor("1a\n") // the head streams, only whole lines
	lr.stays("1a\n")   // job 2 waits its turn
	j2.Stdout.WriteString("2b\n")
	lr.end(j2) // job 2 ends first: still behind job 1
	lr.stays("1a\n")
	j1.Stdout.WriteString("\n")
	lr.waitFor("1a\n1b\n")
	j3 := lr.start(3)
	j3.Stdout.WriteString("3a\n")
	lr.stays("1a\n1b\n")
	lr.end(j1) // job 2's buffered lines follow, then job 3 is the head
	lr.waitFor("1a\n1b\n2a\n2b\n3a\n")
	j3.Stdout.WriteString("3b") // unterminated: written as it is when the job ends
	lr.end(j3)
	lr.close()
	if got := lr.written(); got != "1a\n1b\n2a\n2b\n3a\n3b" {
		t.Fatalf("stdout is %q", got)
	}
}

func TestLineBufferUnorderedTagged(t *testing.T) {
	lr := startLive(t, false, func(r *runner.Result) string { return strings.Repeat("t", int(r.Item.Seq)) })
	j1, j2 := lr.start(1), lr.start(2)
	j1.Stdout.WriteString("a")
	j2.Stdout.WriteString("x\n")
	lr.waitFor("tt\tx\n") // any job's whole lines pass
	j1.Stdout.WriteString("b\nc")
	lr.waitFor("tt\tx\nt\tab\n")
	lr.end(j2)
	lr.end(j1)
	lr.close()
	if got := lr.written(); got != "tt\tx\nt\tab\nt\tc\n" {
		t.Fatalf("stdout is %q", got)
	}
}
