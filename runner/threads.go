package runner

import (
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// spareThreads is how many idle threads fan makes ready under a low
// process limit: more than it ever has in blocking system calls at once
// when its jobs wait on the netpoller (stdin, stdout, stderr, the books,
// a spawn), and well within the tasks it keeps for itself (threadReserve).
const spareThreads = 8

// KeepThreadsFew prepares the executor for a low process limit (ulimit
// -u, or a cgroup's pids.max), under which other programs may take every
// task left while fan runs. Jobs then wait for their exit on the
// netpoller, none in a blocking wait that holds a thread, and the Go
// runtime is given spareThreads idle threads now: it takes an idle one
// when it needs a thread, and makes one only when none is idle, a
// failure it cannot survive (it aborts with "pthread_create failed").
// Without threads in hand, a full cgroup could kill fan rather than
// make it wait.
func (l *Local) KeepThreadsFew() {
	l.FewThreads = true
	startIdleThreads(spareThreads)
}

// startIdleThreads makes the runtime start n more threads and leaves them
// idle: n goroutines each hold a thread of their own at once (a goroutine
// locked to its thread and blocked keeps it from the others), then let go
// and end. The runtime keeps the threads of goroutines that unlocked
// before ending, for later use.
func startIdleThreads(n int) {
	var held, release sync.WaitGroup
	held.Add(n)
	release.Add(1)
	for range n {
		go func() {
			runtime.LockOSThread()
			held.Done()
			release.Wait()
			runtime.UnlockOSThread()
		}()
	}
	held.Wait() // n threads exist now; they go idle as the goroutines end
	release.Done()
}

// spareProcs is what spare Ps have been given to the Go scheduler, and
// how it reads and sets the runtime's GOMAXPROCS (replaced in tests).
type spareProcs struct {
	given  atomic.Int32 // Ps given beyond base
	mu     sync.Mutex
	base   int // the runtime's GOMAXPROCS before; 0 until first asked
	procs  func(int) int
	getenv func(string) string
}

// give makes sure that the Go scheduler has n Ps (the right to run Go
// code on a thread) more than the runtime's default, unless the user set
// GOMAXPROCS; n is how many jobs wait in a blocking waitid, each holding
// its P in the system call. When no P is left idle, the runtime's monitor
// thread (sysmon) takes one back from such a waiter within 20 µs, and
// each time it does it starts again to wake every 20 µs, for a
// millisecond at least: with short jobs, that was every job. With a P for
// each waiter, one is idle whenever fan's own goroutines run, the waiters
// keep theirs, and the monitor slows down to its 10 ms. On W1 this cut
// fan's own CPU per job by a tenth or more (BENCHMARKS.md). The cost:
// more threads than CPUs may run fan's Go code at once, shared out by
// the kernel, which fan's light work does not notice. n is at most
// blockingWaits, and the Ps are never taken back.
func (s *spareProcs) give(n int) {
	if int(s.given.Load()) >= n {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base == 0 {
		s.base = s.procs(0)
		if s.getenv("GOMAXPROCS") != "" {
			s.given.Store(math.MaxInt32) // the user's choice stands
			return
		}
	}
	if int(s.given.Load()) < n {
		s.procs(s.base + n)
		s.given.Store(int32(n))
	}
}

// spare is the process's: the runtime's GOMAXPROCS, the environment's.
var spare = spareProcs{procs: runtime.GOMAXPROCS, getenv: os.Getenv}
