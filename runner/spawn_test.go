package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// spawnPath starts a job one way.
type spawnPath func(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error)

// vforkPath starts a job through vforkSpawn, giving it fan's open-file
// limit, and fails the test if it cannot.
func vforkPath(t *testing.T) spawnPath {
	return func(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error) {
		pid, pidfd, err := vforkSpawn(c, env, stdio, nil)
		if errors.Is(err, errVforkUnsupported) {
			t.Fatalf("%v (GOARCH %s)", err, runtime.GOARCH)
		}
		if err != nil {
			return nil, err
		}
		return started(pid, pidfd), nil
	}
}

// forkExecPath starts a job through syscall.ForkExec.
func forkExecPath(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error) {
	pid, pidfd, err := forkExec(c, env, stdio, inherited)
	if err != nil {
		return nil, err
	}
	return started(pid, pidfd), nil
}

// forEachSpawnPath runs f with jobs started through vforkSpawn and
// through syscall.ForkExec in turn. The first is skipped, saying why,
// where fan cannot start jobs that way (another architecture, a kernel
// before 5.5, a filter refusing clone3): they all start the other way
// there.
func forEachSpawnPath(t *testing.T, f func(t *testing.T, start spawnPath)) {
	t.Helper()
	t.Run("vfork", func(t *testing.T) {
		if !vforkWorks() {
			t.Skipf("jobs start through ForkExec here: %v", errVforkUnsupported)
		}
		f(t, vforkPath(t))
	})
	t.Run("ForkExec", func(t *testing.T) { f(t, forkExecPath) })
}

// vforkWorks reports whether vforkSpawn can start a process here.
func vforkWorks() bool {
	pid, pidfd, err := vforkSpawn(&Command{Path: "/nonexistent", Args: []string{"x"}}, nil, []uintptr{0, 1, 2}, nil)
	if err == nil {
		unix.Close(pidfd)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
	return !errors.Is(err, errVforkUnsupported)
}

// runJob starts sh -c script with stdio and waits for it.
func runJob(t *testing.T, start spawnPath, dir, script string, stdio []uintptr) syscall.WaitStatus {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := start(&Command{Path: sh, Args: []string{sh, "-c", script}, Dir: dir}, []string{"PATH=" + os.Getenv("PATH")}, stdio, nil)
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	ws, _ := pr.wait(bg, bg, nil, false)
	return ws
}

// A job starts in its directory, as the leader of a process group of its
// own, with the descriptors it was handed, and with the same signal mask
// and dispositions whichever way it was started: ForkExec's, which are
// the thread's mask and the default for every signal the Go runtime
// catches. (exec resets caught signals itself, so what the child must
// not do, run a handler of fan's, shows only as a crash.)
func TestSpawnSetsUpTheJob(t *testing.T) {
	signals := map[string]string{}
	forEachSpawnPath(t, func(t *testing.T, start spawnPath) {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		script := `read pid _ _ _ pgid _ < /proc/self/stat
			echo "pwd=$(pwd) leader=$([ "$pid" = "$pgid" ] && echo yes)"
			while read -r key value; do
				case $key in SigBlk: | SigIgn: | SigCgt:) echo "$key $value"; esac
			done < /proc/self/status
			echo stderr >&2`
		ws := runJob(t, start, dir, script, []uintptr{0, w.Fd(), w.Fd()})
		w.Close()
		out := new(bytes.Buffer)
		out.ReadFrom(r)
		if ws.ExitStatus() != 0 {
			t.Fatalf("status %v; output %q", ws, out)
		}
		head := fmt.Sprintf("pwd=%s leader=yes\n", dir)
		if !strings.HasPrefix(out.String(), head) || !strings.HasSuffix(out.String(), "\nstderr\n") {
			t.Errorf("the job printed\n%s\nwant it to start with\n%sand end with stderr", out, head)
		}
		_, signals[t.Name()], _ = strings.Cut(out.String(), "\n")
	})
	vfork, forkExec := signals[t.Name()+"/vfork"], signals[t.Name()+"/ForkExec"]
	if vfork != "" && vfork != forkExec {
		t.Errorf("the job's signals differ: through vfork\n%s\nthrough ForkExec\n%s", vfork, forkExec)
	}
}

// The standard descriptors a job is handed may be fan's own 0 to 2 in any
// order: each ends up where it was meant to, though its number is another
// entry's place. Run in a process of its own (TestSpawnHelper), whose
// stdout and stderr the job is handed crossed.
func TestSpawnCrossesStandardDescriptors(t *testing.T) {
	forEachSpawnPath(t, func(t *testing.T, start spawnPath) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSpawnHelper$")
		path := filepath.Base(t.Name())
		cmd.Env = append(os.Environ(), "FAN_SPAWN_HELPER="+path)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), "to stderr\n") || !strings.HasPrefix(stderr.String(), "to stdout\n") {
			t.Errorf("stdout %q, stderr %q: want the job's stdout on stderr and its stderr on stdout", stdout.String(), stderr.String())
		}
	})
}

// TestSpawnHelper is TestSpawnCrossesStandardDescriptors's process.
func TestSpawnHelper(t *testing.T) {
	start := spawnPath(forkExecPath)
	switch os.Getenv("FAN_SPAWN_HELPER") {
	case "":
		t.Skip("run by TestSpawnCrossesStandardDescriptors")
	case "vfork":
		start = vforkPath(t)
	}
	if ws := runJob(t, start, "", "echo to stdout; echo to stderr >&2", []uintptr{0, 2, 1}); ws.ExitStatus() != 0 {
		t.Fatalf("status %v", ws)
	}
}

// A job that cannot start reports why, and leaves no process and no
// descriptor behind.
func TestSpawnFailures(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		c    Command
		want error
	}{
		{Command{Path: filepath.Join(dir, "missing"), Args: []string{"missing"}}, syscall.ENOENT},
		{Command{Path: plain, Args: []string{"plain"}}, syscall.EACCES},
		{Command{Path: sh, Args: []string{sh, "-c", "true"}, Dir: filepath.Join(dir, "nowhere")}, syscall.ENOENT},
		{Command{Path: sh, Args: []string{sh, "-c", "true"}, Dir: plain}, syscall.ENOTDIR},
	}
	forEachSpawnPath(t, func(t *testing.T, start spawnPath) {
		before := openDescriptors(t)
		for _, tc := range cases {
			pr, err := start(&tc.c, nil, []uintptr{0, 1, 2}, nil)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s in %q: error %v, want %v", tc.c.Path, tc.c.Dir, err, tc.want)
			}
			if pr != nil {
				t.Errorf("%s: a process for a job that did not start", tc.c.Path)
			}
		}
		if _, err := unix.Wait4(-1, nil, unix.WNOHANG, nil); err != unix.ECHILD {
			t.Errorf("a child is left: wait4 gave %v", err)
		}
		if after := openDescriptors(t); after != before {
			t.Errorf("%d descriptors open before, %d after", before, after)
		}
	})
}

func openDescriptors(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// A job's open-file limit, through vforkSpawn, is the one given, set
// only while fan's is still the raised one (someone may have changed it
// since, as ForkExec allows for).
func TestVforkSetsTheLimit(t *testing.T) {
	if !vforkWorks() {
		t.Skipf("jobs start through ForkExec here: %v", errVforkUnsupported)
	}
	var fan unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &fan); err != nil {
		t.Fatal(err)
	}
	if fan.Cur < 200 {
		t.Skipf("a soft open-file limit of %d leaves no room to test", fan.Cur)
	}
	for _, tc := range []struct {
		raised unix.Rlimit
		want   string
	}{
		{fan, "100"},
		{unix.Rlimit{Cur: fan.Cur - 1, Max: fan.Max}, strconv.FormatUint(fan.Cur, 10)},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		sh, _ := exec.LookPath("sh")
		lim := &jobLimit{limit: unix.Rlimit{Cur: 100, Max: fan.Max}, raised: tc.raised}
		pid, pidfd, err := vforkSpawn(&Command{Path: sh, Args: []string{sh, "-c", "ulimit -Sn"}}, nil, []uintptr{0, w.Fd(), 2}, lim)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		out := new(bytes.Buffer)
		out.ReadFrom(r)
		r.Close()
		unix.Close(pidfd)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		if got := strings.TrimSpace(out.String()); got != tc.want {
			t.Errorf("fan's limit %v, raised %v: the job's soft limit is %s, want %s", fan, tc.raised, got, tc.want)
		}
	}
}

// The open-file limit jobs get is learnt from jobs ForkExec started: the
// first two that agree on a limit that can be the one fan was started
// with. A limit a job may have set itself since (soft at the hard one or
// one below, another hard limit) counts for nothing; after nofileTries
// jobs the search is given up.
func TestNofileLearnt(t *testing.T) {
	var hard unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &hard); err != nil {
		t.Fatal(err)
	}
	if hard.Max < 200 {
		t.Skipf("a hard open-file limit of %d leaves no room to test", hard.Max)
	}
	job := exec.Command("sleep", "30")
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer job.Wait()
	defer job.Process.Kill()
	raised := unix.Rlimit{Cur: hard.Max - 1, Max: hard.Max}
	fresh := func() *nofileLimit {
		n := &nofileLimit{raised: raised}
		n.once.Do(func() {}) // fan's limit taken as raised
		return n
	}
	read := func(n *nofileLimit, cur, max uint64) {
		t.Helper()
		if err := unix.Prlimit(job.Process.Pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: cur, Max: max}, nil); err != nil {
			t.Fatal(err)
		}
		n.learn(job.Process.Pid)
	}

	n := fresh()
	read(n, hard.Max-1, hard.Max) // a Go program's
	read(n, hard.Max, hard.Max)   // a JVM's
	read(n, 100, hard.Max)
	if _, known := n.get(); known {
		t.Fatal("learnt from one job")
	}
	read(n, 101, hard.Max)
	if _, known := n.get(); known {
		t.Fatal("learnt from two jobs apart")
	}
	read(n, 101, hard.Max)
	if lim, known := n.get(); !known || lim == nil || lim.limit != (unix.Rlimit{Cur: 101, Max: hard.Max}) || lim.raised != raised {
		t.Fatalf("after two jobs with 101: %+v, %v; want 101 known", lim, known)
	}

	n = fresh()
	for range nofileTries {
		read(n, 100+uint64(n.tries), hard.Max)
	}
	read(n, 100+nofileTries, hard.Max)
	read(n, 100+nofileTries, hard.Max)
	if _, known := n.get(); known {
		t.Error("learnt after giving up")
	}

	n = fresh()
	read(n, 100, hard.Max-2) // another hard limit (last: it cannot be raised again)
	read(n, 100, hard.Max-2)
	if _, known := n.get(); known {
		t.Error("learnt a limit with another hard limit")
	}
}
