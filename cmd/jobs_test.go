package cmd

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseJobs(t *testing.T) {
	for _, c := range []struct {
		s    string
		ncpu int
		want int
	}{
		{"", 4, 4},
		{"1", 4, 1},
		{"16", 4, 16},
		{"0", 4, 0}, // no limit
		{"50%", 4, 2},
		{"50%", 1, 1}, // at least one
		{"100%", 4, 4},
		{"200%", 4, 8},
		{"150%", 3, 4},
		{"12.5%", 16, 2},
		{"+1", 4, 5},
		{"+0", 4, 4},
		{"-1", 4, 3},
		{"-1", 1, 1},
		{"-100", 4, 1},
		// beyond what could run at once: capped, not overflowed
		{"9223372036854775807", 4, maxJobs},
		{"+9223372036854775807", 4, maxJobs},
		{"99999999999999999999", 4, maxJobs}, // beyond an int too
		{"+99999999999999999999", 4, maxJobs},
		{"-99999999999999999999", 4, 1},
		{"1e300%", 4, maxJobs},
	} {
		got, err := parseJobs(c.s, c.ncpu)
		if err != nil || got != c.want {
			t.Errorf("parseJobs(%q, %d) = %d, %v; want %d", c.s, c.ncpu, got, err, c.want)
		}
	}
	for _, s := range []string{"abc", "1.5", "%", "0%", "-5%", "x%", "+", "-", "+x", "--1", " 2", "2 ", "1e3", "0x10", "++1", "+-1", "-+1"} {
		_, err := parseJobs(s, 4)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--jobs: ") || !strings.Contains(err.Error(), "(try -j 4") {
			t.Errorf("parseJobs(%q): %v, want a usage error that says what to try", s, err)
		}
	}
}

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
