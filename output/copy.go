package output

import (
	"errors"
	"io"
	"os"

	"github.com/fan-run/fan/internal/sendfile"
)

// copyRange writes the bytes of src, a regular file, from off up to end to
// dst, in the kernel where it can (sendfile.Range). A file that shrank
// meanwhile (a --lb job truncating its own output) gives what it holds.
func copyRange(dst, src *os.File, off, end int64) error {
	_, err := sendfile.Range(dst, src, off, end)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}
