package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// childCgroup makes a cgroup of the controller's hierarchy (cgroup v1's
// mount of it, else cgroup v2 where the controller is enabled) under the
// test's own cgroup there, and removes it at the end of the test. It skips
// the test, saying why, where none can be made (no such hierarchy, not
// root, a read-only /sys in a container).
func childCgroup(t *testing.T, controller string) (dir string, v2 bool) {
	t.Helper()
	own := map[string]string{} // hierarchy key (controller list, or "" for v2) -> own path
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		t.Skipf("cannot read /proc/self/cgroup: %v", err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := strings.SplitN(sc.Text(), ":", 3); len(p) == 3 {
			own[p[1]] = p[2]
		}
	}
	f.Close()
	base := ""
	for key, path := range own {
		if slices.Contains(strings.Split(key, ","), controller) {
			base = filepath.Join("/sys/fs/cgroup", key, path)
			if _, err := os.Stat(base); err != nil {
				base = filepath.Join("/sys/fs/cgroup", controller, path)
			}
		}
	}
	if base == "" {
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			b, err := os.ReadFile(filepath.Join(root, own[""], "cgroup.subtree_control"))
			if err == nil && slices.Contains(strings.Fields(string(b)), controller) {
				base, v2 = filepath.Join(root, own[""]), true
				break
			}
		}
	}
	if base == "" {
		t.Skipf("no cgroup hierarchy with the %s controller that this test could use", controller)
	}
	dir = filepath.Join(base, fmt.Sprintf("fan-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-")))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a %s cgroup (%v): this test needs root and a writable cgroup file system", controller, err)
	}
	t.Cleanup(func() {
		// The processes in it have ended; the kernel may take a moment to
		// let go of the cgroup.
		for i := 0; ; i++ {
			err := os.Remove(dir)
			if err == nil || os.IsNotExist(err) {
				return
			}
			if i == 100 {
				t.Errorf("cannot remove the test's cgroup %s: %v", dir, err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return dir, v2
}

func writeCgroup(t *testing.T, dir, name, value string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644); err != nil {
		t.Fatalf("cgroup %s: %v", name, err)
	}
}

// inCgroup is a command that runs fan with args inside the cgroup dir:
// a shell moves itself there, then becomes fan.
func inCgroup(dir string, args ...string) *exec.Cmd {
	return exec.Command("sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec fan "$@"`, dir}, args...)...)
}

// slotsUsed runs eight overlapping jobs printing their slot ({%}) under
// cmd and returns the slots they used: the lowest free slot is taken, so
// these are 1 to the number of jobs run at once.
func slotsUsed(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	cmd.Args = append(cmd.Args, "sleep 0.3; echo {%}", ":::", "1", "2", "3", "4", "5", "6", "7", "8")
	out, status := stdoutAndStatus(t, cmd)
	if status != 0 {
		t.Fatalf("%q: exit %d", cmd.Args, status)
	}
	slots := strings.Fields(out)
	slices.Sort(slots)
	return strings.Join(slices.Compact(slots), " ")
}

// The default -j is the CPUs fan may really use: in a cgroup with a quota
// of one CPU, one job runs at a time, and -j +1 and -j 200% count from
// that one CPU, not from the machine's.
func TestDefaultJobsFollowCgroupCPUQuota(t *testing.T) {
	t.Parallel()
	if runtime.NumCPU() < 2 {
		t.Skip("the machine has one CPU: a quota of one changes nothing to see")
	}
	dir, v2 := childCgroup(t, "cpu")
	if v2 {
		writeCgroup(t, dir, "cpu.max", "100000 100000")
	} else {
		writeCgroup(t, dir, "cpu.cfs_period_us", "100000")
		writeCgroup(t, dir, "cpu.cfs_quota_us", "100000")
	}
	if got := slotsUsed(t, exec.Command("fan", "-j", "2")); got != "1 2" {
		t.Fatalf("outside the cgroup, -j 2 used slots %q", got)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "1"},
		{[]string{"-j", "+1"}, "1 2"},
		{[]string{"-j", "200%"}, "1 2"},
		{[]string{"-j", "3"}, "1 2 3"}, // a count is a count
	} {
		if got := slotsUsed(t, inCgroup(dir, c.args...)); got != c.want {
			t.Errorf("in a cgroup of 1 CPU, fan %q used slots %q, want %q", c.args, got, c.want)
		}
	}
	// Half a CPU rounds up to one job.
	if v2 {
		writeCgroup(t, dir, "cpu.max", "50000 100000")
	} else {
		writeCgroup(t, dir, "cpu.cfs_quota_us", "50000")
	}
	if got := slotsUsed(t, inCgroup(dir)); got != "1" {
		t.Errorf("in a cgroup of half a CPU, fan used slots %q, want \"1\"", got)
	}
}

// The affinity mask counts as well: taskset to one CPU runs one job at a
// time.
func TestDefaultJobsFollowAffinity(t *testing.T) {
	t.Parallel()
	taskset, err := exec.LookPath("taskset")
	if err != nil || runtime.NumCPU() < 2 {
		t.Skip("needs taskset and two CPUs")
	}
	if got := slotsUsed(t, exec.Command(taskset, "-c", "0", "fan")); got != "1" {
		t.Errorf("fan on one CPU used slots %q, want \"1\"", got)
	}
}

// memoryJob holds 60M until the file go.NAME exists; job b, on its first
// run only, grows by 500M more half a second after it starts.
const memoryJob = `
import os, sys, time
name = sys.argv[1]
open('start.%s.%d' % (name, os.getpid()), 'w').close()
a = b'x' * (60 << 20)
if name == 'b' and not os.path.exists('growing'):
    time.sleep(0.5)
    open('growing', 'w').close()
    c = b'y' * (500 << 20)
    open('grown', 'w').close()
while not os.path.exists('go.' + name):
    time.sleep(0.02)
`

// --memfree: in a memory-limited cgroup, whose headroom is the memory
// available, the youngest job is put back in the queue when less than half
// of --memfree is left, and runs again later: neither a failure nor a
// retry (one run in all is allowed), and the run succeeds. The sizes: an
// 800M cgroup; fan and two jobs of 60M leave about 650M; b's growth by
// 500M leaves about 100M, well below half of --memfree 400M and well
// above nothing (no kill for memory).
func TestMemFreeEvictsTheYoungest(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 to make jobs that use memory")
	}
	dir, v2 := childCgroup(t, "memory")
	if v2 {
		writeCgroup(t, dir, "memory.max", fmt.Sprint(800<<20))
	} else {
		writeCgroup(t, dir, "memory.limit_in_bytes", fmt.Sprint(800<<20))
	}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "job.py"), []byte(memoryJob), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := inCgroup(dir, "--memfree", "400M", "--joblog", "jl", python+" job.py {}", ":::", "a", "b")
	cmd.Dir = work
	var stderr strings.Builder
	cmd.Stderr = &stderr
	go func() {
		// Both end once the eviction has had the time to happen: ten
		// seconds after b has grown (fan asks every second), however long
		// a loaded machine took to get there (filling 500M took more than
		// ten seconds under a load of 30).
		var grown time.Time
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			if starts, _ := filepath.Glob(filepath.Join(work, "start.*")); len(starts) >= 3 {
				break
			}
			if _, err := os.Stat(filepath.Join(work, "grown")); err == nil && grown.IsZero() {
				grown = time.Now()
			}
			if !grown.IsZero() && time.Since(grown) > 10*time.Second {
				break
			}
		}
		os.WriteFile(filepath.Join(work, "go.a"), nil, 0o644)
		os.WriteFile(filepath.Join(work, "go.b"), nil, 0o644)
	}()
	_, status := stdoutAndStatus(t, cmd)
	if status != 0 {
		t.Fatalf("exit %d; stderr:\n%s", status, stderr.String())
	}
	starts, _ := filepath.Glob(filepath.Join(work, "start.*"))
	if len(starts) != 3 {
		t.Fatalf("jobs started %d times, want 3 (one put back and started again); stderr:\n%s", len(starts), stderr.String())
	}
	if !strings.Contains(stderr.String(), "fan: --memfree: memory is short: putting job ") {
		t.Errorf("stderr does not say a job was put back:\n%s", stderr.String())
	}
	jl, _ := os.ReadFile(filepath.Join(work, "jl"))
	if lines := strings.Split(strings.TrimSpace(string(jl)), "\n"); len(lines) != 3 {
		t.Errorf("the joblog has %d lines, want a header and one per job:\n%s", len(lines), jl)
	}
}
