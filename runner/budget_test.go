package runner

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestFitDescriptors: -j and the -k window shrink to what the open-file
// limit holds, and stay as given when it holds them. A slot holds either a
// running job (per) or, until the output stage has it, its result, which
// holds fewer: running jobs get what is left after fan's reserve at per
// each.
func TestFitDescriptors(t *testing.T) {
	for _, c := range []struct {
		limit, jobs, window, per, perResult int
		keep                                bool
		wantJobs, wantWindow                int
	}{
		{1 << 20, 8, 4104, 3, 2, true, 8, 4104},        // plenty: unchanged
		{1024, 2, 4098, 3, 2, true, 2, 2 + (960-6)/2},  // -k behind a slow job: the window shrinks
		{1024, 0, 4096, 3, 2, true, 160, 160 + 240},    // -k -j 0: half the descriptors, 3 a job
		{1024, 2, 4098, 5, 4, true, 2, 2 + (960-10)/4}, // -k --line-buffer: 4 a result in the window
		{1024, 0, 4096, 3, 2, false, 320, 4096},        // -j 0: 3 a job
		{1024, 500, 4596, 5, 4, false, 192, 4596},      // --line-buffer: 5 a job
		{1024, 2000, 0, 1, 0, false, 960, 0},           // -u: the pidfd alone
		{256, 60, 4156, 3, 2, false, 60, 4156},         // ulimit -n 256: -j 60 fits at 3 a job
		{256, 60, 4156, 7, 2, false, 27, 4156},         // grouped, local jobs: lowered
		{256, 60, 4156, 9, 2, false, 21, 4156},         // grouped over ssh: the write ends too
		{10, 4, 100, 3, 2, true, 1, 1 + 1},             // a tiny limit still runs one job
	} {
		jobs, window := fitDescriptors(c.limit, fdReserve, c.jobs, c.window, c.per, c.perResult, c.keep)
		if jobs != c.wantJobs || window != c.wantWindow {
			t.Errorf("fitDescriptors(%d, %d, %d, %d, %d, %v) = %d, %d; want %d, %d",
				c.limit, c.jobs, c.window, c.per, c.perResult, c.keep, jobs, window, c.wantJobs, c.wantWindow)
		}
	}
}

// TestFitOpenFiles: the budget under ulimit -n 1024 for the requests cmd
// makes (Buffered: -j, at least 16), with fan holding 10 descriptors when
// it starts (26 with its spare). Grouped -j 100 fits: 2 for each of the 101
// results the output stage may hold (the Stream's 100 and the one it
// writes), 49 pipes left behind, and 106 jobs at 7 in the 747 left; -j
// 200 gets 100, its event buffer lowered to an eighth of the limit past
// the reserve (124).
func TestFitOpenFiles(t *testing.T) {
	const limit, reserve = 1024, 26
	for _, c := range []struct {
		name                    string
		req                     BudgetRequest
		jobs, window, left, buf int
	}{
		{"grouped -j 100", BudgetRequest{Jobs: 100, Buffered: 100}, 100, 0, 49, 100},
		{"grouped -j 0", BudgetRequest{Buffered: 16}, 129, 0, 60, 16},
		{"grouped -j 200", BudgetRequest{Jobs: 200, Buffered: 200}, 100, 0, 46, 124},
		{"grouped -S -j 100", BudgetRequest{Jobs: 100, Buffered: 100, Remote: true}, 83, 0, 49, 100},
		// 4 a result: 404 aside, 594 left at 5 a job.
		{"--lb -j 200", BudgetRequest{Jobs: 200, Buffered: 200, LineBuffer: true}, 99, 0, 0, 124},
		{"-u -j 2000", BudgetRequest{Jobs: 2000, Buffered: 2000, Ungrouped: true}, 998, 0, 0, 124},
		// Half of the 747 for jobs at 7 (53), the rest for the window at 2
		// a result.
		{"grouped -k -j 100", BudgetRequest{Jobs: 100, Window: 4196, KeepOrder: true, Buffered: 100}, 53, 53 + (747-53*7)/2, 49, 100},
	} {
		b, err := fitOpenFiles(c.req, limit, reserve)
		if err != nil || b.Jobs != c.jobs || b.Window != c.window || b.LeftBehind != c.left || b.Buffered != c.buf {
			t.Errorf("%s: jobs %d, window %d, left behind %d, buffered %d, %v; want %d, %d, %d, %d",
				c.name, b.Jobs, b.Window, b.LeftBehind, b.Buffered, err, c.jobs, c.window, c.left, c.buf)
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
