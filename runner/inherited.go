package runner

import (
	"os"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// inheritedDescriptors lists the descriptors past the standard three that
// fan was started with and that its jobs inherit: those open without
// close-on-exec (every descriptor fan opens itself has it). A job gets
// them as with xargs and GNU parallel (`fan ... 9>lock` lets every job use
// fd 9). Read once, by NewLocal; the list is sorted.
func inheritedDescriptors() []int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var fds []int
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	slices.Sort(fds)
	return fds
}

// clearOfInherited returns stdio, the descriptors a job starts with, such
// that starting it does not close an inherited descriptor in the job.
//
// syscall.ForkExec, in the child before exec, puts descriptors of its own
// at the numbers just past the highest in stdio (forkScratch): its error
// pipe, and a copy of any entry numbered below its place. Those copies
// are close-on-exec, so whatever the job inherited at those numbers is
// gone in it. With fan's descriptors spread over hundreds of numbers, a
// job handed fd 250 lost an inherited fd 251.
//
// When one of those numbers is inherited, the highest entry is copied
// past every inherited descriptor, so that no clash can follow: one
// fcntl, and moved (the copy, or -1) to close once the job has started.
// stdio itself is not changed. inherited is sorted, as
// inheritedDescriptors gives it.
func clearOfInherited(stdio []uintptr, inherited []int) (out []uintptr, moved int, err error) {
	first, last, hi := forkScratch(stdio)
	i, _ := slices.BinarySearch(inherited, first)
	if i == len(inherited) || inherited[i] > last {
		return stdio, -1, nil
	}
	copied, err := unix.FcntlInt(stdio[hi], unix.F_DUPFD_CLOEXEC, inherited[len(inherited)-1]+1)
	if err != nil {
		return stdio, -1, os.NewSyscallError("fcntl", err)
	}
	out = slices.Clone(stdio)
	out[hi] = uintptr(copied)
	return out, copied, nil
}

// forkScratch is the numbers syscall.ForkExec may put descriptors of its
// own at in the child, first to last, for stdio: one past the highest
// entry or past len(stdio), whichever is more, for its error pipe, and
// one more for each entry numbered below its place. hi is the place of
// the highest entry (0 when none is past len(stdio)).
func forkScratch(stdio []uintptr) (first, last, hi int) {
	top, used := len(stdio), 1
	for i, fd := range stdio {
		if int(fd) > top {
			top, hi = int(fd), i
		}
		if int(fd) < i {
			used++
		}
	}
	return top + 1, top + used, hi
}
