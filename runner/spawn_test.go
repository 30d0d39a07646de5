package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// forEachSpawnPath runs f with jobs started through vforkSpawn and
// through syscall.ForkExec in turn.
func forEachSpawnPath(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	was := vforkOff.Load()
	defer vforkOff.Store(was)
	for _, off := range []bool{false, true} {
		name := "vfork"
		if off {
			name = "ForkExec"
		}
		vforkOff.Store(off)
		t.Run(name, f)
	}
}

// runJob spawns sh -c script with stdio and waits for it.
func runJob(t *testing.T, dir, script string, stdio []uintptr) syscall.WaitStatus {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := spawn(&Command{Path: sh, Args: []string{sh, "-c", script}, Dir: dir}, []string{"PATH=" + os.Getenv("PATH")}, stdio, nil)
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	ws, _ := pr.wait(bg, bg, nil, false)
	return ws
}

// A job starts in its directory, as the leader of a process group of its
// own, with no signal blocked and the descriptors it was handed; its
// shell's signal dispositions are the same on both paths (the shell sets
// some of its own: the job's are the defaults, but for those fan
// inherited ignored).
func TestSpawnSetsUpTheJob(t *testing.T) {
	dispositions := map[bool]string{}
	forEachSpawnPath(t, func(t *testing.T) {
		dir := t.TempDir()
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
		ws := runJob(t, dir, script, []uintptr{0, w.Fd(), w.Fd()})
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
		if !strings.Contains(out.String(), "\nSigBlk: 0000000000000000\n") {
			t.Errorf("the job starts with signals blocked:\n%s", out)
		}
		_, sigs, _ := strings.Cut(out.String(), "\n")
		dispositions[vforkOff.Load()] = sigs
	})
	if dispositions[false] != dispositions[true] {
		t.Errorf("the job's signals differ: through vfork\n%s\nthrough ForkExec\n%s", dispositions[false], dispositions[true])
	}
}

// The standard descriptors a job is handed may be fan's own 0 to 2 in any
// order: each ends up where it was meant to, though its number is another
// entry's place. Run in a process of its own (TestSpawnHelper), whose
// stdout and stderr the job is handed crossed.
func TestSpawnCrossesStandardDescriptors(t *testing.T) {
	forEachSpawnPath(t, func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSpawnHelper$")
		cmd.Env = append(os.Environ(), "FAN_SPAWN_HELPER=1", fmt.Sprintf("FAN_SPAWN_VFORK_OFF=%v", vforkOff.Load()))
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
	if os.Getenv("FAN_SPAWN_HELPER") == "" {
		t.Skip("run by TestSpawnCrossesStandardDescriptors")
	}
	vforkOff.Store(os.Getenv("FAN_SPAWN_VFORK_OFF") == "true")
	if ws := runJob(t, "", "echo to stdout; echo to stderr >&2", []uintptr{0, 2, 1}); ws.ExitStatus() != 0 {
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
	forEachSpawnPath(t, func(t *testing.T) {
		before := openDescriptors(t)
		for _, tc := range cases {
			pr, err := spawn(&tc.c, nil, []uintptr{0, 1, 2}, nil)
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

// The open-file limit jobs get is learnt from a job ForkExec started,
// unless that job's limit is the one the Go runtime raises to, which says
// nothing; after nofileTries such jobs it is given up.
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
	setJob := func(cur uint64) {
		t.Helper()
		if err := unix.Prlimit(job.Process.Pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: cur, Max: hard.Max}, nil); err != nil {
			t.Fatal(err)
		}
	}

	n := nofileLimit{raised: unix.Rlimit{Cur: hard.Max - 1, Max: hard.Max}}
	n.once.Do(func() {}) // fan's limit taken as raised
	setJob(hard.Max - 1)
	n.learn(job.Process.Pid)
	if _, known := n.get(); known {
		t.Fatal("a job holding the raised limit taught the limit")
	}
	setJob(100)
	n.learn(job.Process.Pid)
	if lim, known := n.get(); !known || lim == nil || lim.Cur != 100 || lim.Max != hard.Max {
		t.Fatalf("after a job with 100: %v, %v; want 100 known", lim, known)
	}

	n = nofileLimit{raised: unix.Rlimit{Cur: hard.Max - 1, Max: hard.Max}}
	n.once.Do(func() {})
	setJob(hard.Max - 1)
	for range nofileTries {
		n.learn(job.Process.Pid)
	}
	setJob(100)
	n.learn(job.Process.Pid)
	if _, known := n.get(); known {
		t.Error("learnt after giving up")
	}
}
