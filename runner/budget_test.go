package runner

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestFitDescriptors: -j and the -k window shrink to what the open-file
// limit holds, and stay as given when it holds them.
func TestFitDescriptors(t *testing.T) {
	for _, c := range []struct {
		limit, jobs, window, per int
		keep                     bool
		wantJobs, wantWindow     int
	}{
		{1 << 20, 8, 4104, 3, true, 8, 4104},       // plenty: unchanged
		{1024, 2, 4098, 3, true, 2, 2 + (960-6)/2}, // -k behind a slow job: the window shrinks
		{1024, 0, 4096, 3, true, 160, 160 + 240},   // -k -j 0: half the descriptors, 3 a job
		{1024, 0, 4096, 3, false, 192, 4096},       // -j 0: 3 a job and 2 for its result
		{1024, 500, 4596, 5, false, 137, 4596},     // --line-buffer: 5 a job
		{1024, 600, 0, 1, false, 320, 0},           // -u
		{256, 60, 4156, 3, false, 38, 4156},        // ulimit -n 256: -j 60 is lowered
		{256, 60, 4156, 7, false, 21, 4156},        // grouped, local jobs
		{256, 60, 4156, 9, false, 17, 4156},        // grouped over ssh: the write ends too
		{10, 4, 100, 3, true, 1, 1 + 1},            // a tiny limit still runs one job
	} {
		jobs, window := fitDescriptors(c.limit, fdReserve, c.jobs, c.window, c.per, c.keep)
		if jobs != c.wantJobs || window != c.wantWindow {
			t.Errorf("fitDescriptors(%d, %d, %d, %d, %v) = %d, %d; want %d, %d",
				c.limit, c.jobs, c.window, c.per, c.keep, jobs, window, c.wantJobs, c.wantWindow)
		}
	}
}

// fitProcesses lowers -j to the tasks the process limit leaves, two a job,
// never below one.
func TestFitProcesses(t *testing.T) {
	for _, c := range []struct{ jobs, room, want int }{
		{40, 10, 5},
		{4, 10, 4},
		{0, 10, 5}, // no limit: what fits
		{8, 1, 1},  // even no room leaves one job, which waits for processes
		{8, -5, 1},
	} {
		if got := fitProcesses(c.jobs, tasksPerJob, c.room); got != c.want {
			t.Errorf("fitProcesses(%d, %d, %d) = %d, want %d", c.jobs, tasksPerJob, c.room, got, c.want)
		}
	}
}

// userTasks counts threads, as the process limit does: at least this
// process's own.
func TestUserTasks(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	var own int
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			own, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if n := userTasks(os.Getuid()); n < own || own == 0 {
		t.Errorf("userTasks = %d, below this process's %d threads", n, own)
	}
}

// A grouped job run over ssh holds its pipes' write ends until ssh
// exits: it is counted two descriptors above a local one.
func TestDescriptorsPerJob(t *testing.T) {
	local, remote := BudgetRequest{}.perJob(), BudgetRequest{Remote: true}.perJob()
	if remote != local+2 || (BudgetRequest{Ungrouped: true, Remote: true}).perJob() != 1 || (BudgetRequest{LineBuffer: true, Remote: true}).perJob() != 5 {
		t.Fatalf("grouped: %d a local job, %d a remote one; want 2 more remote, and -u and --lb as they were", local, remote)
	}
}

// FitBudget keeps -j and the window as asked when the limits hold them,
// and never leaves a run with no job at all.
func TestFitBudget(t *testing.T) {
	if openFileLimit() < 4096 {
		t.Skip("the open-file limit here is low")
	}
	b, err := FitBudget(BudgetRequest{Jobs: 4, Window: 100, KeepOrder: true})
	if err != nil || b.Jobs != 4 || b.Window != 100 || b.LimitedBy == "" {
		t.Errorf("FitBudget(-j 4) = %+v, %v; want 4 jobs, a window of 100", b, err)
	}
	if b, err := FitBudget(BudgetRequest{Ungrouped: true, DryRun: true}); err != nil || b.Jobs < 1 {
		t.Errorf("FitBudget(-j 0) = %+v, %v; want a job or more", b, err)
	}
}

// The task limit of fan's cgroup (pids.max, v1 or v2, the tightest of its
// ancestors) counts as a low process limit when it could not hold the
// jobs: the room is what it leaves, less fan's reserve for its threads.
func TestCgroupRoom(t *testing.T) {
	v2 := "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
	v1 := "36 31 0:33 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
	for _, c := range []struct {
		name        string
		files       map[string]string
		jobs        int
		room, limit int
		low         bool
	}{
		{"no cgroup files", nil, 4, 0, 0, false},
		{"v2, no limit", map[string]string{
			"proc/self/mountinfo":            v2,
			"proc/self/cgroup":               "0::/job\n",
			"sys/fs/cgroup/job/pids.max":     "max\n",
			"sys/fs/cgroup/job/pids.current": "12\n",
		}, 4, 0, 0, false},
		{"v2, an ancestor's limit leaves less", map[string]string{
			"proc/self/mountinfo":               v2,
			"proc/self/cgroup":                  "0::/ci/job\n",
			"sys/fs/cgroup/ci/job/pids.max":     "1000\n",
			"sys/fs/cgroup/ci/job/pids.current": "10\n",
			"sys/fs/cgroup/ci/pids.max":         "100\n",
			"sys/fs/cgroup/ci/pids.current":     "50\n",
		}, 50, 50 - threadReserve, 100, true},
		{"v1, far above what the jobs need", map[string]string{
			"proc/self/mountinfo":                 v1,
			"proc/self/cgroup":                    "8:pids:/box\n0::/\n",
			"sys/fs/cgroup/pids/box/pids.max":     "10000\n",
			"sys/fs/cgroup/pids/box/pids.current": "10\n",
		}, 4, 0, 0, false},
		{"v1, full", map[string]string{
			"proc/self/mountinfo":                 v1,
			"proc/self/cgroup":                    "8:pids:/box\n0::/\n",
			"sys/fs/cgroup/pids/box/pids.max":     "40\n",
			"sys/fs/cgroup/pids/box/pids.current": "40\n",
		}, 4, -threadReserve, 40, true},
	} {
		room, limit, low := cgroupRoom(readCgroups(mapFS(c.files)), c.jobs, tasksPerJob)
		if room != c.room || limit != c.limit || low != c.low {
			t.Errorf("%s: room %d, limit %d, low %v; want %d, %d, %v", c.name, room, limit, low, c.room, c.limit, c.low)
		}
	}
}
