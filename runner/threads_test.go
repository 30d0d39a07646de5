package runner

import (
	"os"
	"slices"
	"testing"
)

// The threads are started, and stay: the runtime keeps them for later.
func TestStartIdleThreads(t *testing.T) {
	tasks := func() int {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			t.Skipf("cannot count threads: %v", err)
		}
		return len(ents)
	}
	startIdleThreads(spareThreads)
	// spareThreads held at once, plus one for the runtime's monitor and
	// one running this test at the least.
	if n := tasks(); n < spareThreads+2 {
		t.Errorf("%d threads after startIdleThreads(%d), want at least %d", n, spareThreads, spareThreads+2)
	}
}

// Spare Ps grow with the jobs in a blocking wait, never shrink, and are
// not given at all when the user set GOMAXPROCS.
func TestSpareProcs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   string
		gives []int
		want  []int // GOMAXPROCS settings made, in order
	}{
		{"grows with the waiters", "", []int{1, 2, 2, 1, 5}, []int{3, 4, 7}},
		{"the user's GOMAXPROCS stands", "3", []int{1, 2, 16}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var set []int
			s := &spareProcs{
				procs: func(n int) int {
					if n > 0 {
						set = append(set, n)
					}
					return 2
				},
				getenv: func(name string) string {
					if name == "GOMAXPROCS" {
						return tc.env
					}
					return ""
				},
			}
			for _, n := range tc.gives {
				s.give(n)
			}
			if !slices.Equal(set, tc.want) {
				t.Errorf("GOMAXPROCS set to %v, want %v", set, tc.want)
			}
		})
	}
}

// Only a run whose every job can wait blocking gets spare Ps: -j 1000
// would otherwise run its start-up burst on some 50 threads.
func TestLocalSparesP(t *testing.T) {
	for most, want := range map[int]bool{0: false, 1: true, blockingWaits: true, blockingWaits + 1: false, 1000: false} {
		if got := (&Local{MostJobs: most}).sparesP(); got != want {
			t.Errorf("MostJobs %d: spares %v, want %v", most, got, want)
		}
	}
}
