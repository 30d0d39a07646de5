package runner

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fan-run/fan/input"
)

// Results that end early wait for the ones before them; a result missing
// from the middle holds back the rest only until the end, when they go out
// in order rather than be dropped.
func TestOrdererInputOrder(t *testing.T) {
	out := make(chan Event, 8)
	o := newOrderer(out, nil, 8)
	done := make(chan struct{})
	go func() { o.run(); close(done) }()
	for _, ticket := range []int64{2, 1, 0, 5, 4} { // 3 never comes
		o.in <- ticketed{ticket: ticket, r: &Result{Item: input.Item{Seq: ticket + 1}}}
	}
	close(o.in)
	<-done
	close(out)
	var seqs []int64
	for ev := range out {
		seqs = append(seqs, ev.Result.Item.Seq)
	}
	if want := []int64{1, 2, 3, 5, 6}; !slices.Equal(seqs, want) {
		t.Fatalf("results in order %v, want %v", seqs, want)
	}
}

// With -k, a slow first job lets at most a window of later jobs start:
// the window bounds what waits behind it by itself.
func TestKeepOrderWindowBounds(t *testing.T) {
	release := make(chan struct{})
	exec := &fakeExec{hold: map[int64]chan struct{}{1: release}}
	p := &Pool{Jobs: 0, Exec: exec, KeepOrder: true, Window: 4,
		Template: NewTemplate(TemplateOptions{Words: []string{"true"}, Shell: "/bin/sh"})}
	items := make(chan input.Item)
	go func() {
		for i := int64(1); i <= 20; i++ {
			items <- input.Item{Seq: i, Args: []string{"x"}}
		}
		close(items)
	}()
	s := NewStream(0)
	go p.Run(context.Background(), context.Background(), items, s)
	time.Sleep(200 * time.Millisecond)
	if n := exec.started(); n != 4 {
		t.Fatalf("%d jobs started behind a running first one, want the window's 4", n)
	}
	close(release)
	var seqs []int64
	for ev := range s.Events {
		if ev.Kind == Finished {
			seqs = append(seqs, ev.Result.Item.Seq)
		}
	}
	if len(seqs) != 20 || !slices.IsSorted(seqs) {
		t.Fatalf("finished %v, want 1..20 in order", seqs)
	}
}

// An attempt that never reached its job (a transport failure) runs again
// without spending a retry, and the job's own failure still counts.
func TestTransportFailureSpendsNoRetry(t *testing.T) {
	exec := &fakeExec{lose: 2, status: 3}
	p := &Pool{Jobs: 1, Exec: exec, Retries: 2,
		Template: NewTemplate(TemplateOptions{Words: []string{"true"}, Shell: "/bin/sh"})}
	items := make(chan input.Item, 1)
	items <- input.Item{Seq: 1, Args: []string{"x"}}
	close(items)
	rs := runPool(t, p, items)
	if len(rs) != 1 || rs[0].Status != 3 || rs[0].Attempts != 2 {
		t.Fatalf("results %+v: want one, status 3, after 2 attempts of its own", rs)
	}
	if exec.starts != 4 {
		t.Fatalf("%d starts, want 2 lost and 2 that ran", exec.starts)
	}
}

// fakeExec is an Executor whose jobs exit with status at once, or when
// their hold channel closes; the first lose starts fail as transport
// failures.
type fakeExec struct {
	mu     sync.Mutex
	hold   map[int64]chan struct{}
	lose   int
	status int
	starts int
}

func (f *fakeExec) started() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts
}

func (f *fakeExec) Start(a *Attempt) (Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	if f.lose > 0 {
		f.lose--
		return nil, &TransportError{Host: "h1", Err: context.DeadlineExceeded}
	}
	return fakeProc{hold: f.hold[a.Seq], status: f.status}, nil
}

func (f *fakeExec) Suspend() {}
func (f *fakeExec) Resume()  {}

type fakeProc struct {
	hold   chan struct{}
	status int
}

func (p fakeProc) Wait(stop, kill context.Context, seq TermSeq) (Exit, error) {
	if p.hold != nil {
		<-p.hold
	}
	return Exit{Status: syscall.WaitStatus(p.status << 8)}, nil
}

// When memory runs short (--memfree), the youngest running job is ended
// and put back in the queue: it runs again, and the ended attempt counts
// neither as a failure nor as a retry.
func TestEvictYoungest(t *testing.T) {
	dir := t.TempDir()
	var evicted atomic.Bool
	p := &Pool{Jobs: 2, Delay: 300 * time.Millisecond, // b starts after a: it is the youngest
		Template: NewTemplate(TemplateOptions{Words: []string{`echo run >> ` + dir + `/{}; if [ {} = b ] && [ ! -e ` + dir + `/again ]; then touch ` + dir + `/again; sleep 30; fi; sleep 1.5`}, Shell: "/bin/sh"}),
		Evict:    func() bool { return !evicted.Swap(true) }}
	items := make(chan input.Item, 2)
	items <- input.Item{Seq: 1, Args: []string{"a"}}
	items <- input.Item{Seq: 2, Args: []string{"b"}}
	close(items)
	rs := runPool(t, p, items)
	if len(rs) != 2 || !rs[0].OK() || !rs[1].OK() || rs[0].Attempts != 1 || rs[1].Attempts != 1 {
		t.Fatalf("results %+v: want two successes of one attempt each", rs)
	}
	b, _ := os.ReadFile(dir + "/b")
	if string(b) != "run\nrun\n" {
		t.Fatalf("job b ran %q, want twice", b)
	}
}

// The status report lists the running jobs, in input order, with their
// slots and commands.
func TestRunningJobs(t *testing.T) {
	release := make(chan struct{})
	exec := &fakeExec{hold: map[int64]chan struct{}{1: release, 2: release}}
	p := &Pool{Jobs: 2, Exec: exec, Template: NewTemplate(TemplateOptions{Words: []string{"true"}})}
	items := make(chan input.Item, 3)
	for i := int64(1); i <= 3; i++ {
		items <- input.Item{Seq: i, Args: []string{strconv.FormatInt(i, 10)}}
	}
	close(items)
	s := NewStream(16)
	go p.Run(context.Background(), context.Background(), items, s)
	var jobs []RunningJob
	for deadline := time.Now().Add(10 * time.Second); len(jobs) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		jobs = p.RunningJobs()
	}
	if len(jobs) != 2 || jobs[0].Seq != 1 || jobs[1].Seq != 2 || jobs[1].Slot.N != 2 || !strings.HasSuffix(jobs[1].Command, "true 2") {
		t.Fatalf("running %+v: want jobs 1 and 2 in slots 1 and 2", jobs)
	}
	close(release)
	for range s.Events {
	}
}

// A job is listed as running from before its spawn, whose process may be
// at work before Start returns, and comes off the list when the spawn
// fails.
func TestRunningFromBeforeTheSpawn(t *testing.T) {
	exec := &gatedStart{entered: make(chan struct{}), fail: make(chan struct{})}
	p := &Pool{Jobs: 1, Exec: exec, Template: NewTemplate(TemplateOptions{Words: []string{"true"}})}
	items := make(chan input.Item, 1)
	items <- input.Item{Seq: 1, Args: []string{"a"}}
	close(items)
	s := NewStream(16)
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background(), context.Background(), items, s) }()
	<-exec.entered
	if jobs := p.RunningJobs(); len(jobs) != 1 || jobs[0].Seq != 1 || p.Running() != 1 {
		t.Errorf("while the job spawns: running %+v (%d counted), want job 1", jobs, p.Running())
	}
	close(exec.fail)
	var rs []*Result
	for ev := range s.Events {
		if ev.Kind == Finished {
			rs = append(rs, ev.Result)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Status != 126 {
		t.Fatalf("results %+v: want job 1 failed to start, status 126", rs)
	}
	if jobs := p.RunningJobs(); len(jobs) != 0 || p.Running() != 0 {
		t.Fatalf("after its spawn failed: running %+v (%d counted), want none", jobs, p.Running())
	}
}

// gatedStart is an Executor whose Start closes entered, then waits for
// fail to close and fails.
type gatedStart struct {
	entered, fail chan struct{}
}

func (g *gatedStart) Start(a *Attempt) (Process, error) {
	close(g.entered)
	<-g.fail
	return nil, &StartError{Name: "job", Status: 126, Reason: "refused by the test"}
}

func (g *gatedStart) Suspend() {}
func (g *gatedStart) Resume()  {}
