package runner

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fan-run/fan/input"
)

// testSpool lends unlinked files from a test directory; it can be made to
// report its filesystem full, or to fail to make files. It is safe for
// concurrent use, as a Spool must be.
type testSpool struct {
	dir    string
	full   bool
	refuse error
}

func (s *testSpool) Get() (*os.File, error) {
	if s.refuse != nil {
		return nil, s.refuse
	}
	f, err := os.CreateTemp(s.dir, "spool")
	if err == nil {
		os.Remove(f.Name())
	}
	return f, err
}

func (s *testSpool) Put(f *os.File) { f.Close() }
func (s *testSpool) Full() bool     { return s.full }
func (s *testSpool) Dir() string    { return s.dir }

// runOne runs the shell line through a pool with spool sp and returns its
// one result.
func runOne(t *testing.T, sp Spool, line string) Result {
	t.Helper()
	return runItem(t, &Pool{Jobs: 1, Template: NewTemplate(TemplateOptions{Words: []string{line}, Shell: "/bin/sh"}), Spool: sp})
}

// runItem runs one item through p and returns its result.
func runItem(t *testing.T, p *Pool) Result {
	t.Helper()
	items := make(chan input.Item, 1)
	items <- input.Item{Seq: 1, Args: []string{"x"}}
	close(items)
	rs := runPool(t, p, items)
	if len(rs) != 1 {
		t.Fatalf("%d results for one item", len(rs))
	}
	return rs[0]
}

// A job that wrote output while the spool's filesystem was full may have
// lost some of it without saying so: its result carries a CaptureError,
// fan's own failure, whatever the job's status.
func TestCaptureFullSpool(t *testing.T) {
	sp := &testSpool{dir: t.TempDir(), full: true}
	r := runOne(t, sp, "echo out; true")
	var ce *CaptureError
	if !errors.As(r.Err, &ce) || !errors.Is(r.Err, syscall.ENOSPC) || r.OK() {
		t.Fatalf("result %+v: want a CaptureError for ENOSPC", r)
	}
	// A job that wrote nothing and succeeded lost nothing.
	if r := runOne(t, sp, "true"); r.Err != nil || !r.OK() {
		t.Fatalf("a silent job on a full spool: %+v, want success", r)
	}
}

// No spool file for a job: the job does not start, and the result says why
// as fan's own failure (not a status 127 of the job's).
func TestCaptureNoSpoolFile(t *testing.T) {
	sp := &testSpool{dir: t.TempDir(), refuse: syscall.ENOSPC}
	r := runOne(t, sp, "echo out")
	var ce *CaptureError
	if !r.NotStarted || !errors.As(r.Err, &ce) || r.Status == 127 {
		t.Fatalf("result %+v: want not started, with a CaptureError", r)
	}
}

// When the system cannot make another process (EAGAIN: the user's process
// limit), the job waits and tries again instead of failing at once, and the
// user is told once.
func TestSpawnWaitsForProcesses(t *testing.T) {
	refusals := 3
	startProcess = func(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error) {
		if refusals > 0 {
			refusals--
			return nil, syscall.EAGAIN
		}
		return spawn(c, env, stdio, inherited)
	}
	defer func() { startProcess = spawn }()
	var notes []string
	l, err := NewLocal()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Notify = func(s string) { notes = append(notes, s) }
	p := &Pool{Jobs: 1, Exec: l, Template: NewTemplate(TemplateOptions{Words: []string{"true"}, Shell: "/bin/sh"})}
	if r := runItem(t, p); !r.OK() || refusals != 0 {
		t.Fatalf("result %+v after the refusals: want success", r)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "cannot start another process now") {
		t.Fatalf("notices %q: want one saying fan waits", notes)
	}
}

// When no process can be started for a long time and none of fan's own
// jobs runs (so none can free one), the job fails at last, saying why;
// not before forkRetryAlone.
func TestSpawnGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		startProcess = func(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error) {
			return nil, syscall.EAGAIN
		}
		defer func() { startProcess = spawn }()
		l := &Local{}
		start := time.Now()
		_, err := l.spawnWaiting(&Command{Path: "/bin/true"}, &Attempt{Seq: 7}, nil)
		var se *StartError
		if !errors.As(err, &se) || se.Status != 126 || !strings.Contains(se.Error(), "job 7: no process could be started for 1m0s") {
			t.Fatalf("error %v: want job 7's StartError saying the task limit stayed full", err)
		}
		if waited := time.Since(start); waited < forkRetryAlone {
			t.Errorf("gave up after %v, before %v", waited, forkRetryAlone)
		}
	})
}
