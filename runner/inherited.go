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
// at the numbers just past the highest in stdio: its error pipe, and a
// copy of any entry numbered below its place. Those copies are
// close-on-exec, so whatever the job inherited at those numbers is gone
// in it. With fan's descriptors spread over hundreds of numbers, a job
// handed fd 250 lost an inherited fd 251.
//
// When a clash is possible, the highest entry is copied to a number past
// the clash, and the clash checked again from there. moved are the
// copies, for the caller to close once the job has started. stdio itself
// is not changed. inherited is sorted, as inheritedDescriptors gives it.
func clearOfInherited(stdio []uintptr, inherited []int) (out []uintptr, moved []int, err error) {
	out = stdio
	for len(inherited) > 0 {
		// The numbers ForkExec uses: one past the highest entry or past
		// len(stdio), whichever is more, for its pipe and each entry
		// below its place.
		top, hi := len(stdio), 0
		used := 1
		for i, fd := range out {
			if int(fd) > top {
				top, hi = int(fd), i
			}
			if int(fd) < i {
				used++
			}
		}
		first, last := top+1, top+used
		i, _ := slices.BinarySearch(inherited, first)
		if i == len(inherited) || inherited[i] > last {
			return out, moved, nil
		}
		clash := inherited[i]
		copied, err := unix.FcntlInt(out[hi], unix.F_DUPFD_CLOEXEC, clash+1)
		if err != nil {
			for _, fd := range moved {
				unix.Close(fd)
			}
			return stdio, nil, os.NewSyscallError("fcntl", err)
		}
		if len(moved) == 0 {
			out = slices.Clone(stdio)
		}
		out[hi] = uintptr(copied)
		moved = append(moved, copied)
	}
	return out, moved, nil
}
