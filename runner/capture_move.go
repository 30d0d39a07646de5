package runner

import (
	"math"

	"golang.org/x/sys/unix"

	"github.com/fan-run/fan/internal/sendfile"
)

// How a job's output is moved out of its pipe (by the capturePoll's loop
// or a mover goroutine, see capture_poll.go), in the states a stream goes
// through: nothing yet (no file taken); in a memory file, within the
// job's and the spool's memory budgets; spilled into a spool file (the
// pipe grown once a pipeful has passed: big); failed (what comes is read and dropped, so that the job is
// not blocked). See capture_pipe.go.

// How a pump ends.
type pumped int

const (
	pumpedEmpty pumped = iota // the pipe is empty, still open for writing
	pumpedEnd                 // at end of file: every write end is closed
	pumpedCut                 // cut short (a limit, or while said no): more may wait
)

// pump moves what the pipe holds, piece by piece (step), until it runs
// empty or ends, or most bytes have moved, or while says to stop (checked
// before each piece; nil is never).
func (c *pipeCapture) pump(fd, most int, while func() bool) pumped {
	for moved := 0; moved < most && (while == nil || while()); {
		n, err := c.step(fd)
		switch {
		case n > 0:
			moved += n
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			return pumpedEmpty
		case err == nil: // n == 0
			return pumpedEnd
		default:
			c.fail(err)
		}
	}
	return pumpedCut
}

// small says whether a turn of the loop goes on moving: the stream is not
// big (toSpool) and end has not given up waiting for it.
func (c *pipeCapture) small() bool { return !c.big && !c.stop.Load() }

// wanted says whether a mover goes on moving: end has not given up
// waiting for the pipe, and the run is not over.
func (c *pipeCapture) wanted() bool { return !c.stop.Load() && !c.poll.stop.Load() }

// drain takes what the pipe holds, without waiting: at most a pipeful,
// as a process writing into it still could refill it for ever. It
// reports whether the pipe is at its end.
func (c *pipeCapture) drain(fd int) (eof bool) {
	size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		size = captureChunk
	}
	return c.pump(fd, size, nil) == pumpedEnd
}

// move moves what the pipe holds now; it reports false when the pipe is
// empty and still open for writing (wait), or when end gave up waiting or
// the run is over, true at end of file.
func (c *pipeCapture) move(fd int) bool {
	return c.pump(fd, math.MaxInt, c.wanted) == pumpedEnd
}

// step moves one piece: into a memory file within the budgets, otherwise
// into a spool file; after a failure it reads the piece and drops it, so
// that the job is not blocked, and from a pipe left behind by its job
// it drops it (discard).
func (c *pipeCapture) step(fd int) (int, error) {
	switch {
	case c.left:
		return c.discard(fd)
	case c.failed != nil:
		return unix.Read(fd, c.buffer())
	case c.f == nil:
		// The first bytes are read here, so that no file is taken for a
		// stream that stays empty.
		n, err := unix.Read(fd, c.first[:])
		if n <= 0 {
			return n, err
		}
		if err := c.keepFirst(c.first[:n]); err != nil {
			c.fail(err)
		}
		return n, nil
	case c.mem:
		if got := c.reserve(); got > 0 {
			n, err := unix.Splice(fd, nil, int(c.f.Fd()), nil, int(got), unix.SPLICE_F_NONBLOCK)
			c.unreserve(got - max(int64(n), 0))
			c.n += max(int64(n), 0)
			if err == nil || err == unix.EAGAIN || err == unix.EINTR {
				return int(n), err
			}
			// The memory file cannot grow (a memory cgroup at its
			// limit): on to a spool file, which fails in turn if the
			// pipe was the trouble.
		}
		if err := c.spill(); err != nil {
			return 0, err
		}
	}
	return c.toSpool(fd)
}

// keepFirst takes a file for the stream's first bytes and writes them
// into it: a memory file when the budgets have room and it takes them,
// else a spool file.
func (c *pipeCapture) keepFirst(b []byte) error {
	got := c.reserveUpTo(int64(len(b)))
	if got == int64(len(b)) {
		if f, err := c.spool.GetMemory(); err == nil {
			n, err := f.Write(b)
			if err == nil {
				c.f, c.mem, c.n = f, true, int64(n)
				return nil
			}
			// It cannot grow (a memory cgroup at its limit): what it
			// took goes back with it, and a spool file takes them all.
			c.job.inMemory.Add(-int64(n))
			c.unreserve(got - int64(n))
			c.spool.Put(f)
			got = 0
		}
		// Else no memory files here: spool files from the start.
	}
	c.unreserve(got)
	f, err := c.spool.Get()
	if err != nil {
		return err
	}
	c.f = f
	n, err := f.Write(b)
	c.n = int64(n)
	return err
}

// reserve takes memory for the next move from the job's budget and the
// spool's: up to captureChunk, 0 when either is spent.
func (c *pipeCapture) reserve() int64 {
	return c.reserveUpTo(captureChunk)
}

// reserveUpTo reserves up to want bytes from both budgets.
func (c *pipeCapture) reserveUpTo(want int64) int64 {
	want = min(want, c.spool.JobMemory()-c.job.inMemory.Load())
	if want <= 0 {
		return 0
	}
	got := c.spool.Reserve(want)
	c.job.inMemory.Add(got)
	return got
}

// unreserve gives back n reserved bytes that were not used.
func (c *pipeCapture) unreserve(n int64) {
	if n > 0 {
		c.spool.Release(n)
		c.job.inMemory.Add(-n)
	}
}

// spill moves what the memory file holds into a spool file, which takes
// the rest of the stream, and gives the memory file back.
func (c *pipeCapture) spill() error {
	f, err := c.spool.Get()
	if err != nil {
		return err
	}
	mem := c.f
	c.f, c.mem = f, false
	_, err = sendfile.Range(f, mem, 0, c.n)
	c.job.inMemory.Add(-c.n)
	c.spool.Put(mem) // its bytes go back to the budget
	return err
}

// toSpool splices the next piece into the spool file, or copies it where
// the file's file system takes no splice.
//
// The stream is big once a pipeful has passed into the spool file: then
// its pipe is grown, for fewer, larger moves (refused past the user's
// share of pipe memory, pipe-user-pages-soft: then not), and it is moved
// by a mover goroutine, on Go's netpoller once its pipe runs empty
// (toNetpoller). A small stream in a spool file (spilled from its first
// byte, as the memory budget was spent or no memory file was made) stays
// with the capturePoll's loop, in a pipe of the default size.
func (c *pipeCapture) toSpool(fd int) (int, error) {
	if !c.big && c.n >= captureChunk {
		c.big = true
		unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, spillPipeSize)
	}
	if !c.noSplice {
		n, err := unix.Splice(fd, nil, int(c.f.Fd()), nil, spillPipeSize, unix.SPLICE_F_NONBLOCK)
		if err != unix.EINVAL {
			c.n += max(int64(n), 0)
			return int(n), err
		}
		c.noSplice = true
	}
	b := c.buffer()
	n, err := unix.Read(fd, b)
	if n <= 0 {
		return n, err
	}
	w, err := c.f.Write(b[:n])
	c.n += int64(w)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// buffer is the buffer for copying what splice cannot move, and for
// reading what is dropped after a failure; made when first needed.
func (c *pipeCapture) buffer() []byte {
	if c.scratch == nil {
		c.scratch = make([]byte, captureChunk)
	}
	return c.scratch
}

// fail notes that the stream's output cannot be kept; what it holds is
// kept for what it is worth, the rest is read and dropped.
func (c *pipeCapture) fail(err error) {
	if c.failed == nil {
		c.failed = err
	}
}
