package output

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// copyRange writes the bytes of src, a regular file, from off up to end to
// dst. The kernel moves them (sendfile); where it cannot, they are copied
// through memory. src's file offset is neither used nor moved: a job may
// still be writing through it.
func copyRange(dst, src *os.File, off, end int64) error {
	rc, err := dst.SyscallConn()
	if err != nil {
		return copyPlain(dst, src, off, end)
	}
	in := int(src.Fd())
	for off < end {
		var n int
		var serr error
		err := rc.Write(func(fd uintptr) bool {
			for {
				n, serr = unix.Sendfile(int(fd), in, &off, int(min(end-off, 1<<30)))
				if serr != unix.EINTR {
					return serr != unix.EAGAIN
				}
			}
		})
		if err == nil {
			err = serr
		}
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			return copyPlain(dst, src, off, end)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			break // the file shrank
		}
	}
	return nil
}

func copyPlain(dst io.Writer, src *os.File, off, end int64) error {
	_, err := io.Copy(dst, io.NewSectionReader(src, off, end-off))
	return err
}
