package output

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// copyFile writes the rest of src, a regular file, to dst. The kernel moves
// the bytes (sendfile); where it cannot, they are copied through memory.
func copyFile(dst, src *os.File) error {
	off, err := src.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	st, err := src.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	rc, err := dst.SyscallConn()
	if err != nil {
		return copyPlain(dst, src, off)
	}
	in := int(src.Fd())
	for off < size {
		var n int
		var serr error
		err := rc.Write(func(fd uintptr) bool {
			n, serr = unix.Sendfile(int(fd), in, &off, int(min(size-off, 1<<30)))
			return serr != unix.EAGAIN
		})
		if err == nil {
			err = serr
		}
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			return copyPlain(dst, src, off)
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

func copyPlain(dst io.Writer, src *os.File, off int64) error {
	_, err := io.Copy(dst, io.NewSectionReader(src, off, 1<<62))
	return err
}
