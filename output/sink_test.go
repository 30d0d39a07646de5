package output

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"fan/input"
	"fan/runner"
)

// liveRun is a sink in --line-buffer mode running in the background, fed
// by hand-made jobs.
type liveRun struct {
	t       *testing.T
	out     *os.File
	spool   *Spool
	hook    func(*runner.Result)
	results chan runner.Result
	done    chan struct{}
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
	lr := &liveRun{t: t, out: out, spool: spool, hook: s.StartHook(), results: make(chan runner.Result), done: make(chan struct{})}
	go func() {
		s.Run(lr.results)
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
	lr.hook(r)
	return r
}

func (lr *liveRun) end(r *runner.Result) {
	r.Stdout.Seek(0, 0)
	lr.results <- *r
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
	close(lr.results)
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
	j3.Stdout.WriteString("3b") // unterminated: completed when the job ends
	lr.end(j3)
	lr.close()
	if got := lr.written(); got != "1a\n1b\n2a\n2b\n3a\n3b\n" {
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

// TestKeepOrderStragglers: under -k, results still waiting for an earlier
// one when the results end are written in order and counted, not dropped.
func TestKeepOrderStragglers(t *testing.T) {
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sink{Stdout: out, Stderr: out, KeepOrder: true, Spool: NewSpool(t.TempDir(), 0)}
	results := make(chan runner.Result, 3)
	for _, seq := range []int64{3, 2, 5} { // 1 and 4 never come
		r := runner.Result{Item: input.Item{Seq: seq}, DryRun: true,
			Command: runner.Command{Args: []string{"echo", strconv.FormatInt(seq, 10)}}}
		results <- r
	}
	close(results)
	stats, err := s.Run(results)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out.Name())
	if got := string(b); got != "echo 2\necho 3\necho 5\n" {
		t.Errorf("written %q, want the three in order", got)
	}
	if got := stats.OK + stats.Failed + stats.NotStarted; got != 3 {
		t.Errorf("counted %d results, want 3 (%+v)", got, stats)
	}
}
