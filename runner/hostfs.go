package runner

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// hostFS is this machine's file system, for the small files of /proc and
// /sys that a run reads as it starts (fan's cgroups, their CPU quotas and
// task limits) and, for --load, --memfree and -j auto, again while jobs
// run. ReadFile opens, reads and closes a file with plain system
// calls: os.Open would also register it with Go's poller and stat it,
// about nine system calls a file instead of three, and make an os.File
// with a cleanup for each. Names are rooted at /, as os.DirFS("/") has
// them; Open is os.DirFS's.
type hostFS struct{}

func (hostFS) Open(name string) (fs.File, error) { return os.DirFS("/").Open(name) }

// ReadFile reads the whole of the file name (fs.ReadFileFS).
func (hostFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fd, err := unix.Open("/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open("/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	b := make([]byte, 0, 4096) // a /proc or /sys file's page, read at once
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		switch {
		case err == unix.EINTR:
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		case n == 0:
			return b, nil
		default:
			b = b[:len(b)+n]
		}
	}
}
