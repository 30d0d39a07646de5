package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// These tests hold fan to GNU parallel where it claims parallel's
// behaviour for --halt, --joblog, --resume and --resume-failed: the same
// command line is run through both and what a user sees is compared.

// runTool runs a shell command line with $TOOL standing for the tool under
// test ("fan" or "parallel --will-cite") in dir, and returns its stdout and
// exit status.
func runTool(t *testing.T, dir, tool, script string) (string, int) {
	t.Helper()
	c := exec.Command("/bin/sh", "-c", script)
	c.Dir = dir
	c.Env = append(os.Environ(), "TOOL="+tool)
	return stdoutAndStatus(t, c)
}

func needParallel(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (apt-get install -y parallel): cannot compare with it")
	}
}

// bothTools runs script through fan and GNU parallel, each in a fresh
// directory, and fails when stdout or the exit status differ.
func bothTools(t *testing.T, script string) {
	t.Helper()
	fanOut, fanStatus := runTool(t, t.TempDir(), "fan", script)
	parOut, parStatus := runTool(t, t.TempDir(), "parallel --will-cite", script)
	if fanOut != parOut || fanStatus != parStatus {
		t.Errorf("%s\nfan:      status %d, stdout %q\nparallel: status %d, stdout %q",
			script, fanStatus, fanOut, parStatus, parOut)
	}
}

func TestHaltLikeParallel(t *testing.T) {
	t.Parallel()
	needParallel(t)
	// Jobs run one at a time so that which jobs ran is the same in both.
	for _, h := range []string{
		"never", "now,fail=1", "soon,fail=1", "now,fail=2", "soon,fail=2",
		"soon,fail=50%", "now,fail=30%", "soon,fail=90%", "now,success=1",
		"soon,success=2", "soon,done=1", "soon,done=2", "now,done=50%", "1", "2",
	} {
		t.Run(h, func(t *testing.T) {
			t.Parallel()
			bothTools(t, `$TOOL -j1 --halt `+h+` 'echo {}; exit {}' ::: 0 3 0 4 0 5`)
		})
	}
	// Packed jobs (-X) count for a percentage too.
	bothTools(t, `$TOOL -X -n1 -j1 --halt soon,fail=50% false ::: 1 2 3 4 5 6 7 8 9 10`)
	// A job killed by a signal: the status a shell reports, 128+signal.
	bothTools(t, `$TOOL -j1 --halt now,fail=1 'kill -9 $$' ::: 1`)
}

// joblogColumns reads a joblog and keeps the columns that do not depend on
// time: Seq, Host, Send, Receive, Exitval, Signal and Command, sorted by Seq.
func joblogColumns(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var rows []string
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 9 {
			t.Fatalf("%s line %d has %d columns, want 9: %q", path, i+1, len(f), l)
		}
		if i == 0 {
			rows = append(rows, l) // the header, whole
			continue
		}
		rows = append(rows, strings.Join(slices.Concat(f[:2], f[4:]), "\t"))
	}
	slices.Sort(rows[1:])
	return rows
}

func TestJoblogLikeParallel(t *testing.T) {
	t.Parallel()
	needParallel(t)
	for _, script := range []string{
		`$TOOL --joblog log 'exit {}' ::: 0 1 2`,
		`$TOOL --joblog log echo ::: a bb ccc`,
		`$TOOL --joblog log 'echo {}; echo err >&2' ::: x yy`,
		`$TOOL --joblog log 'kill -TERM $$' ::: 1`,
		`$TOOL --joblog log --timeout 1 'sleep {}' ::: 0.1 5`,
		// A job --halt now stops has no line: it did not finish.
		`$TOOL -j2 --joblog log --halt now,fail=1 'sleep {}; exit 1' ::: 5 0.2`,
		// Pipe mode: Send is the block's bytes, Receive the output's.
		`seq 10 | $TOOL -k --joblog log --pipe -N3 'wc -l'`,
		`seq 100 | $TOOL -k --joblog log --pipe --block 50 cat`,
		`printf 'h\na\nbb\nccc\n' | $TOOL -k --joblog log --pipe --header : -N1 'cat; exit 1'`,
	} {
		t.Run(script, func(t *testing.T) {
			t.Parallel()
			fanDir, parDir := t.TempDir(), t.TempDir()
			runTool(t, fanDir, "fan", script)
			runTool(t, parDir, "parallel --will-cite", script)
			fan := joblogColumns(t, filepath.Join(fanDir, "log"))
			par := joblogColumns(t, filepath.Join(parDir, "log"))
			if !slices.Equal(fan, par) {
				t.Errorf("joblog columns differ\nfan:\n%s\nparallel:\n%s", strings.Join(fan, "\n"), strings.Join(par, "\n"))
			}
		})
	}
}

func TestResumeLikeParallel(t *testing.T) {
	t.Parallel()
	needParallel(t)
	// A first run fails on some items; the second run, resuming from its
	// joblog, must run what GNU parallel runs.
	first := `$TOOL -j1 --joblog log 'echo run {}; test {} -lt 3' ::: 1 2 3 4 >/dev/null; `
	for _, script := range []string{
		first + `$TOOL -j1 --joblog log --resume 'echo run {}' ::: 1 2 3 4 5 6`,
		first + `$TOOL -j1 --joblog log --resume-failed 'echo run {}' ::: 1 2 3 4 5 6`,
		first + `$TOOL -j1 --joblog log --resume-failed 'echo run {}' ::: 1 2 3 4 5 6; $TOOL -j1 --joblog log --resume-failed 'echo again {}' ::: 1 2 3 4 5 6`,
		// --halt stops the first run half way; --resume runs the rest.
		`$TOOL -j1 --joblog log --halt now,fail=1 'echo run {}; test {} -ne 2' ::: 1 2 3 4 >/dev/null; $TOOL -j1 --joblog log --resume 'echo run {}' ::: 1 2 3 4`,
		// A job that --halt now stopped runs again on --resume.
		`$TOOL -j2 --joblog log --halt now,fail=1 'sleep {}; exit 1' ::: 5 0.2 >/dev/null; $TOOL -j1 -k --joblog log --resume 'echo run {}' ::: 5 0.2 7`,
		// A job a signal ended on its own failed: --resume-failed runs it again.
		`$TOOL -j1 --joblog log 'test -e done{} || { touch done{}; kill -9 $$; }' ::: a b; $TOOL -j1 -k --joblog log --resume-failed 'echo run {}' ::: a b`,
	} {
		t.Run(script, func(t *testing.T) {
			t.Parallel()
			bothTools(t, script)
		})
	}
}

// TestResumeFromParallelJoblog: a joblog written by GNU parallel is one
// fan can resume from.
func TestResumeFromParallelJoblog(t *testing.T) {
	t.Parallel()
	needParallel(t)
	dir := t.TempDir()
	runTool(t, dir, "parallel --will-cite", `$TOOL -j1 --joblog log 'test {} -lt 3' ::: 1 2 3 4`)
	out, status := runTool(t, dir, "fan", `$TOOL -j1 -k --joblog log --resume-failed 'echo run {}' ::: 1 2 3 4 5`)
	if out != "run 3\nrun 4\nrun 5\n" || status != 0 {
		t.Errorf("fan --resume-failed on parallel's joblog: status %d, stdout %q; want run 3, 4 and 5", status, out)
	}
}
