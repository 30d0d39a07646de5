package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/fan-run/fan/input"
)

func TestHeadOfLineNext(t *testing.T) {
	var h headOfLine
	if !h.next(0) || h.next(1) {
		t.Fatal("with nothing written, only the first job is next")
	}
	h.written.Add(1)
	if h.next(0) || !h.next(1) || h.next(2) {
		t.Fatal("with one result written, only the second job is next")
	}
	h.directEnd.Store(2) // job 2 (ticket 1) wrote straight to stdout and ended
	if !h.next(2) {
		t.Fatal("the job after a direct job that ended is not next before its result is written")
	}
	if h.next(3) {
		t.Fatal("a job two places behind is next")
	}
}

// runDirect runs the shell lines as jobs with Direct set to a file,
// writing each result as the output stage would, and returns the results
// and what the jobs wrote straight into the file.
func runDirect(t *testing.T, p *Pool, lines ...string) ([]Result, string) {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	p.Direct = out
	p.Template = NewTemplate(TemplateOptions{Words: []string{"sh", "-c", "{}"}, Shell: "/bin/sh"})
	p.Spool = &testSpool{dir: t.TempDir()}
	items := make(chan input.Item, len(lines))
	for i, line := range lines {
		items <- input.Item{Seq: int64(i + 1), Args: []string{line}}
	}
	close(items)
	rs := runPoolWriting(t, p, items, true)
	b, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	return rs, string(b)
}

// One job at a time with -k: each is next when it starts, so each writes
// its stdout straight to fan's; its stderr is still captured. The first
// is next from the start; a later one only once the output stage has
// written the one before it, which on a loaded machine may come after the
// later job started: that one is then captured, as it must be, and its
// output kept whole.
func TestDirectOneAtATime(t *testing.T) {
	rs, out := runDirect(t, &Pool{Jobs: 1, KeepOrder: true}, "echo 1", "echo 2; echo e >&2", "echo 3")
	if !rs[0].Direct {
		t.Fatal("job 1 did not write straight to stdout")
	}
	var direct string
	for i, r := range rs {
		want := strconv.Itoa(i+1) + "\n"
		if r.Direct {
			if r.Stdout != nil {
				t.Fatalf("job %d went direct and its stdout was captured too", r.Item.Seq)
			}
			direct += want
			continue
		}
		if got := read(t, &testSpool{dir: t.TempDir()}, r.Stdout); got != want {
			t.Fatalf("job %d's captured stdout is %q", r.Item.Seq, got)
		}
	}
	if out != direct {
		t.Fatalf("stdout got %q, want %q", out, direct)
	}
	if rs[1].Stderr == nil {
		t.Fatal("job 2's stderr was not captured")
	}
}

// A job that starts while the one before it runs is captured: its output
// must wait for its turn.
func TestDirectOnlyTheNextJob(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "flag")
	rs, out := runDirect(t, &Pool{Jobs: 2, KeepOrder: true},
		"while [ ! -e "+flag+" ]; do sleep 0.01; done; echo 1",
		"echo 2; touch "+flag)
	if out != "1\n" {
		t.Fatalf("stdout got %q", out)
	}
	if !rs[0].Direct || rs[1].Direct || rs[1].Stdout == nil {
		t.Fatalf("direct: job 1 %v, job 2 %v (captured %v)", rs[0].Direct, rs[1].Direct, rs[1].Stdout != nil)
	}
}

// Only a job's last attempt may go direct: what a failed attempt wrote is
// dropped.
func TestDirectOnlyTheLastAttempt(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "flag")
	rs, out := runDirect(t, &Pool{Jobs: 1, KeepOrder: true, Retries: 2},
		"if [ -e "+flag+" ]; then echo second; else echo first; touch "+flag+"; exit 1; fi")
	if out != "second\n" || !rs[0].Direct || rs[0].Attempts != 2 {
		t.Fatalf("stdout %q, direct %v, attempts %d", out, rs[0].Direct, rs[0].Attempts)
	}
}

// Without -k, with jobs one at a time (the only way the caller gives
// Direct then: output.Sink.HandOver), each job goes direct.
func TestDirectUnorderedOneAtATime(t *testing.T) {
	rs, out := runDirect(t, &Pool{Jobs: 1}, "echo 1", "echo 2")
	if out != "1\n2\n" || !rs[0].Direct || !rs[1].Direct {
		t.Fatalf("-j1: stdout %q, direct %v %v", out, rs[0].Direct, rs[1].Direct)
	}
}
