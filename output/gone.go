package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// readerGone reports whether f is a pipe (or socket) whose reading end has
// been closed, without writing to it: poll reports POLLERR on such a write
// end. A terminal or a file never reports it.
func readerGone(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		}
	})
	return gone
}
