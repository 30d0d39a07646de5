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

// FitBudget keeps -j and the window as asked when the limits hold them,
// and never leaves a run with no job at all.
func TestFitBudget(t *testing.T) {
	if openFileLimit() < 4096 {
		t.Skip("the open-file limit here is low")
	}
	b, err := FitBudget(BudgetRequest{Jobs: 4, Window: 100, PerJob: DescriptorsPerJob(false, false), KeepOrder: true})
	if err != nil || b.Jobs != 4 || b.Window != 100 || b.LimitedBy == "" {
		t.Errorf("FitBudget(-j 4) = %+v, %v; want 4 jobs, a window of 100", b, err)
	}
	if b, err := FitBudget(BudgetRequest{PerJob: 1, DryRun: true}); err != nil || b.Jobs < 1 {
		t.Errorf("FitBudget(-j 0) = %+v, %v; want a job or more", b, err)
	}
}
