package runner

import (
	"os"
	"runtime"
	"sync"
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

// spareP gives the Go scheduler one P (the right to run Go code on a
// thread) more than it has, once, unless the user set GOMAXPROCS. A job
// waited for in a blocking waitid holds its P in the system call. When
// none is left idle, the runtime's monitor thread (sysmon) takes one back
// from such a waiter within 20 µs, and each time it does it starts again
// to wake every 20 µs, for a millisecond at least: with -j of 2 or more
// and short jobs, that was every job. With a P to spare, the waiters keep
// theirs and the monitor slows down to its 10 ms. On W1 at -j2 this cut
// fan's own CPU per job by about a fifth (BENCHMARKS.md). The cost: one
// more thread than there are CPUs may run fan's Go code at once, shared
// out by the kernel, which fan's light work does not notice.
var spareP = sync.OnceFunc(func() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	}
})
