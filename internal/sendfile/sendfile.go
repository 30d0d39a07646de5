// Package sendfile copies a range of a regular file into another file, a
// pipe or a socket, in the kernel where it can.
package sendfile

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Range writes the bytes of src, a regular file, from off up to end to dst,
// and returns how many it wrote. The kernel moves them (sendfile(2)),
// waiting on Go's poller while dst (a pipe or socket) is full; where the
// kernel cannot for these two files, they are copied through memory. src's
// file offset is neither used nor moved: a job may still be writing
// through it. A src that ends before end is io.ErrUnexpectedEOF, after
// what it held was written.
func Range(dst, src *os.File, off, end int64) (int64, error) {
	rc, err := dst.SyscallConn()
	if err != nil {
		return plain(dst, src, off, end)
	}
	in, start := int(src.Fd()), off
	var serr error
	werr := rc.Write(func(fd uintptr) bool {
		for off < end {
			n, e := unix.Sendfile(int(fd), in, &off, int(min(end-off, 1<<30)))
			switch {
			case e == unix.EAGAIN:
				return false // wait until dst takes more
			case e == unix.EINTR:
			case e != nil:
				serr = e
				return true
			case n == 0:
				serr = io.ErrUnexpectedEOF // the file shrank
				return true
			}
		}
		return true
	})
	if errors.Is(serr, unix.EINVAL) || errors.Is(serr, unix.ENOSYS) {
		// Not for these files (sendfile moved nothing then: it fails
		// before the first byte).
		n, err := plain(dst, src, off, end)
		return off - start + n, err
	}
	if serr == nil {
		serr = werr
	}
	return off - start, serr
}

// plain copies through memory what Range cannot have the kernel move.
func plain(dst io.Writer, src *os.File, off, end int64) (int64, error) {
	n, err := io.Copy(dst, io.NewSectionReader(src, off, end-off))
	if err == nil && n < end-off {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
