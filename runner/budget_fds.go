package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// fdReserve is the descriptors fan keeps for itself, whatever -j: its
// standard streams, the input files, the joblog and failures files, the
// fork's error pipe, the netpoller's and the runtime's own. Under a low
// limit (below fdCounted), fan counts those open at start instead and
// keeps fdSpare more.
const (
	fdReserve = 64
	fdCounted = 4096
	fdSpare   = 16
)

// descriptorReserve is what fan keeps for itself under the open-file limit
// (see fdReserve).
func descriptorReserve(limit int) int {
	if limit >= fdCounted {
		return fdReserve
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fdReserve
	}
	return len(fds) + fdSpare
}

// fitDescriptors makes -j and the -k window fit in limit open files (ulimit
// -n), so that jobs wait for descriptors rather than fail with "too many
// open files"; aside is what is set aside for fan and its output stage
// (FitBudget). A running job holds perJob (BudgetRequest.perJob), a
// finished result waiting to be written perResult (its perResult). Without
// -k (keepOrder), a job's slot is given back once its result is handed to
// the output stage, whose results aside counts: until then the slot holds
// the result instead of the job, fewer descriptors, so running jobs get
// what is left at perJob each. With -k, a window of results waits behind
// the oldest job: running jobs get half, the window the rest, perResult
// for each finished result in it. jobs 0 (no limit) becomes that share
// too.
func fitDescriptors(limit, aside, jobs, window, perJob, perResult int, keepOrder bool) (int, int) {
	avail := max(limit-aside, 2*perJob)
	most := max(1, avail/perJob)
	if keepOrder {
		most = max(1, avail/2/perJob)
	}
	if jobs == 0 || jobs > most {
		jobs = most
	}
	if keepOrder && window > 0 {
		window = min(window, jobs+max(0, (avail-jobs*perJob)/max(perResult, 1)))
	}
	return jobs, window
}

// leftBehindRoom is how many of avail descriptors are kept for output
// pipes left behind by ended jobs (capture_left.go): a sixteenth, at
// least one and at most maxLeftBehind, so that the jobs a low limit allows
// are few fewer (under ulimit -n 1024 that room is 49, and grouped -j 100
// still runs all 100 at once; -j 200 runs 100, about 6 fewer than without
// it). Under such a limit, where that sixteenth is a few dozen, jobs that
// each leave a process behind holding their output then run as fast as
// ever, their oldest pipes closed; they do not fail for want of a
// descriptor.
func leftBehindRoom(avail int) int {
	return min(max(avail/16, 1), maxLeftBehind)
}

// openFileLimit is the soft limit on open files (Go raises it to the hard
// limit at start-up), or a large number when it cannot be read.
func openFileLimit() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 1 << 30
	}
	return int(rl.Cur)
}
