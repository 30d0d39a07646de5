package runner

import (
	"os"
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
