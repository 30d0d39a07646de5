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
// open files". A running job holds perJob (descriptorsPerJob); a finished
// result waiting to be written holds up to two files. Without -k
// (keepOrder), a few results wait, up to one a job: running jobs get what
// is left after fan's reserve, perJob and two each. With -k, a window of
// results waits behind the oldest job: running jobs get half, the window
// the rest. jobs 0 (no limit) becomes that share too.
func fitDescriptors(limit, reserve, jobs, window, perJob int, keepOrder bool) (int, int) {
	avail := max(limit-reserve, 2*perJob)
	most := max(1, avail/(perJob+2))
	if keepOrder {
		most = max(1, avail/2/perJob)
	}
	if jobs == 0 || jobs > most {
		jobs = most
	}
	if keepOrder && window > 0 {
		window = min(window, jobs+max(0, (avail-jobs*perJob)/2))
	}
	return jobs, window
}

// leftBehindRoom is how many of avail descriptors are kept for output
// pipes left behind by ended jobs (capture_left.go): a sixteenth, at
// least one and at most maxLeftBehind, so that the jobs a low limit allows
// are few fewer (under ulimit -n 1024, grouped -j 100 runs 83 at once,
// about 6 fewer than without that room). Under such a limit, where that
// sixteenth is a few dozen, jobs that each leave a process behind holding
// their output then run as fast as ever, their oldest pipes closed; they
// do not fail for want of a descriptor.
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
