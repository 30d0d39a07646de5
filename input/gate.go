package input

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// ErrStopped is what a closed Gate or List returns: the input was stopped
// (a drain), not ended.
var ErrStopped = errors.New("input stopped")

// A Closer is an input that yields nothing more once closed: a Gate under
// a file or stdin, or a List. A drain closes them all (Reader.Gates).
type Closer interface {
	Close()
}

// Gate is an io.Reader that reads no more once closed: bytes not yet read
// stay in their pipe or file. A drain closes the gates of the input, so
// that fan takes what it has already buffered and consumes nothing more.
// Close is safe to call from any goroutine.
//
// Over a pipe, a terminal or a socket, a Read waits in poll(2) for data or
// for Close before it reads, so that a Read already waiting when the gate
// closes returns ErrStopped rather than taking bytes that arrive later.
// Over any other reader, such a Read is not interrupted.
type Gate struct {
	r      io.Reader
	closed atomic.Bool
	// partial is set by the Splitter reading through the gate while it
	// holds the start of a record: a closed gate still lets it read the
	// rest, a byte at a time (nothing after the record is taken), once
	// per close, at most finishMax bytes and only while each comes within
	// finishWait and all within finishTotal of the close, so that a drain
	// does not leave half an item consumed and
	// half in the pipe.
	partial atomic.Bool
	rest    atomic.Int64 // bytes the closed gate may still read for it; -1 once used up
	closeAt atomic.Int64 // when the gate closed, in Unix nanoseconds
	fd      int          // r's descriptor, when Read waits in poll; else -1
	wake    int          // an eventfd that Close makes readable; -1 without fd
	regular bool         // r is a regular file: a Read never waits for data
}

// finishWait is how long a closed gate waits for each byte of the rest of
// a record, finishTotal how long after the close it waits for them all,
// and finishMax the most it reads of it (see Gate.partial). The waits are
// generous because the writer of the input may be slow to run on a loaded
// machine, and a record given up on is lost: its start was read.
const (
	finishWait  = 500 * time.Millisecond
	finishTotal = 2 * time.Second
	finishMax   = 16 << 10
)

// NewGate returns an open Gate over r.
func NewGate(r io.Reader) *Gate {
	g := &Gate{r: r, fd: -1, wake: -1}
	if f, ok := r.(*os.File); ok {
		g.fd = mayBlock(f)
		st, err := f.Stat()
		g.regular = err == nil && st.Mode().IsRegular()
	}
	if g.fd >= 0 {
		wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
		if err != nil {
			g.fd = -1
		} else {
			g.wake = wake
		}
	}
	return g
}

// mayBlock returns f's descriptor if a read from it may wait for data (it
// is not a regular file), else -1. The descriptor's mode is left alone
// (os.File.Fd would make it blocking).
func mayBlock(f *os.File) int {
	st, err := f.Stat()
	if err != nil || st.Mode().IsRegular() {
		return -1
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(d uintptr) { fd = int(d) }) != nil {
		return -1
	}
	return fd
}

// Read implements io.Reader.
func (g *Gate) Read(p []byte) (int, error) {
	if g.fd >= 0 && !g.closed.Load() {
		g.await()
	}
	if !g.closed.Load() {
		return g.r.Read(p)
	}
	if !g.partial.Load() || g.rest.Add(-1) < 0 || !g.restReady() {
		return 0, ErrStopped
	}
	return g.r.Read(p[:min(len(p), 1)])
}

// restReady reports, for a closed gate, whether the rest of a record can
// be read within finishWait and finishTotal (always, where the input
// cannot be polled).
func (g *Gate) restReady() bool {
	if g.fd < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(g.fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(finishWait)
	if end := time.Unix(0, g.closeAt.Load()).Add(finishTotal); end.Before(deadline) {
		deadline = end
	}
	for {
		n, err := unix.Poll(fds, max(0, int(time.Until(deadline)/time.Millisecond)+1)) // 0: look, do not wait
		if err != unix.EINTR {
			return err == nil && n > 0
		}
	}
}

// await waits until the input can be read without waiting (data, its end,
// or an error) or the gate is closed. An error of poll itself is left for
// the read to meet.
func (g *Gate) await() {
	fds := []unix.PollFd{{Fd: int32(g.fd), Events: unix.POLLIN}, {Fd: int32(g.wake), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			return
		}
	}
}

// Wakes reports whether a Read through the gate returns soon once the gate
// is closed, however long it has waited: r is a regular file, whose reads
// never wait for data, or Read waits in poll, which Close wakes.
func (g *Gate) Wakes() bool { return g.fd >= 0 || g.regular }

// wakes reports whether every one of cs lets a Read return soon once
// closed (see Gate.Wakes); a Closer that is not a Gate does not read.
func wakes[C Closer](cs ...C) bool {
	for _, c := range cs {
		if w, ok := any(c).(interface{ Wakes() bool }); ok && !w.Wakes() {
			return false
		}
	}
	return true
}

// Close closes the gate: every later Read returns ErrStopped, and a Read
// waiting in poll wakes to return it.
func (g *Gate) Close() {
	if !g.closed.Load() {
		g.rest.Store(finishMax) // before closed: a Read that sees closed sees them
		g.closeAt.Store(time.Now().UnixNano())
		g.closed.Store(true)
	}
	if g.wake >= 0 {
		one := [8]byte{1}
		unix.Write(g.wake, one[:])
	}
}
