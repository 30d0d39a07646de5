package output

import (
	"bufio"
	"bytes"
	"io"
)

// chunk is how much of a job's output is read into memory at a time when
// it must be looked at (line ends, tags); the rest of it stays in its file.
const chunk = 64 << 10

// lastNewline returns the offset of the last '\n' of src between from and
// to, or -1. It reads backwards from to, a chunk at a time.
func lastNewline(src io.ReaderAt, from, to int64, buf []byte) (int64, error) {
	for to > from {
		start := max(from, to-int64(len(buf)))
		b := buf[:to-start]
		if _, err := src.ReadAt(b, start); err != nil {
			return -1, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i), nil
		}
		to = start
	}
	return -1, nil
}

// writeTagged writes src from off up to end to w with tag at the start of
// every line; off must be the start of a line. It returns the last byte
// written, or 0 when there was nothing to write.
func writeTagged(w *bufio.Writer, src io.ReaderAt, off, end int64, tag string, buf []byte) (byte, error) {
	var last byte
	atStart := true
	for off < end {
		b := buf[:min(int64(len(buf)), end-off)]
		n, err := src.ReadAt(b, off)
		if n == 0 && err != nil {
			return last, err
		}
		b = b[:n]
		off += int64(n)
		last = b[n-1]
		for len(b) > 0 {
			if atStart {
				w.WriteString(tag)
				atStart = false
			}
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				w.Write(b)
				break
			}
			w.Write(b[:i+1])
			b = b[i+1:]
			atStart = true
		}
	}
	return last, nil
}
