package runner

import (
	"cmp"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Capture through pipes (grouped output with a MemorySpool): a job writes
// its stdout and stderr into pipes; a goroutine a pipe, started and waited
// for by the job's run, moves what comes with splice(2) into a memory file
// while the job's output fits its memory budget, and beyond it into a
// spool file, after copying there what the memory file held. A stream the
// job writes nothing into takes no file at all.
//
// The job's end: once the executor's Wait returns, the job's processes
// have exited and its group was swept, so fan closes its own copies of the
// write ends and the reads see end of file at once. Only a process that
// left the job's group (setsid) can keep a write end open; after
// captureGrace, what is in the pipe is taken without waiting and the pipe
// is closed: what such a process writes later is lost, as it is with GNU
// parallel, which reads a job's files when the job ends.

// captureGrace is how long a job's pipes are waited on for end of file
// after the job has ended. A swept job's processes close their ends within
// microseconds, or the few milliseconds a big process takes to exit; a
// process that escaped the group may hold one for ever. 150 ms is well
// past the first on a loaded machine and short against a job's start-up.
const captureGrace = 150 * time.Millisecond

// captureChunk is the most that is moved by one splice: a pipe's default
// size, and the memory reserved from the budgets for one move.
const captureChunk = 64 << 10

// spillPipeSize is the size a pipe is grown to once its output spills,
// and the most one splice then moves: 1 MiB, the default most an
// unprivileged process may ask for (/proc/sys/fs/pipe-max-size). With
// 64 KiB pipes, a job writing 1 GiB makes the capture wake and splice
// 16,384 times; measured in BENCHMARKS.md.
const spillPipeSize = 1 << 20

// MemorySpool is a Spool that also lends memory files (memfd), within a
// budget of bytes held in all of them together. Put takes memory files
// back too, and gives their bytes back to the budget. It must be safe for
// concurrent use.
type MemorySpool interface {
	Spool
	// GetMemory returns an empty memory file, or an error when the system
	// makes none (memfd_create refused): output then goes to spool files
	// from its first byte.
	GetMemory() (*os.File, error)
	// Reserve takes up to n bytes of the budget and returns how many it
	// got; Release gives back bytes reserved and not held after all.
	Reserve(n int64) int64
	Release(n int64)
	// JobMemory is how many bytes of one job's output are held in memory
	// at most.
	JobMemory() int64
}

// jobCapture is the capture of one attempt's output streams.
type jobCapture struct {
	out, err *pipeCapture // out is nil when the job writes its stdout directly
	inMemory atomic.Int64 // bytes of the job's output in memory files
	taken    bool         // results handed the files on
}

// pipeCapture keeps what a job writes into one pipe.
type pipeCapture struct {
	job   *jobCapture
	spool MemorySpool
	r, w  *os.File // r is non-blocking, on the netpoller; w is the job's
	rc    syscall.RawConn
	done  chan struct{}
	stop  atomic.Bool // end gave up waiting for end of file

	// Owned by the capture's goroutine until done is closed.
	f        *os.File  // the memory or spool file; nil until bytes arrive
	mem      bool      // f is a memory file
	n        int64     // bytes in f
	failed   error     // why output could not be kept; the rest is dropped
	noSplice bool      // f takes no splice: bytes are copied through scratch
	grown    bool      // the pipe was asked to grow to spillPipeSize
	first    [256]byte // the first bytes: most jobs' whole output
	scratch  []byte    // for copying, when splice cannot be used
}

// newJobCapture makes the pipes of an attempt's stdout (unless direct) and
// stderr, and starts moving what comes through them.
func newJobCapture(sp MemorySpool, direct bool) (*jobCapture, error) {
	j := &jobCapture{}
	var err error
	if !direct {
		if j.out, err = j.pipe(sp); err != nil {
			return nil, err
		}
	}
	if j.err, err = j.pipe(sp); err != nil {
		j.end()
		return nil, err
	}
	return j, nil
}

// pipe makes one stream's pipe and starts its goroutine.
func (j *jobCapture) pipe(sp MemorySpool) (*pipeCapture, error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, os.NewSyscallError("pipe2", err)
	}
	// Only the read end is non-blocking: the job writes as into any pipe.
	if _, err := unix.FcntlInt(uintptr(fds[0]), unix.F_SETFL, unix.O_RDONLY|unix.O_NONBLOCK); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, os.NewSyscallError("fcntl", err)
	}
	c := &pipeCapture{job: j, spool: sp, done: make(chan struct{}),
		r: os.NewFile(uintptr(fds[0]), "|0"), w: os.NewFile(uintptr(fds[1]), "|1")}
	rc, err := c.r.SyscallConn()
	if err != nil {
		c.r.Close()
		c.w.Close()
		return nil, err
	}
	c.rc = rc
	go c.run()
	return c, nil
}

// stdout and stderr are the write ends the job gets.
func (j *jobCapture) stdout() *os.File {
	if j.out == nil {
		return nil
	}
	return j.out.w
}

func (j *jobCapture) stderr() *os.File { return j.err.w }

// started closes fan's copies of the write ends once a job of this
// machine has started: its processes hold their own. A remote executor
// writes into them until Wait returns; then end closes them.
func (j *jobCapture) started() {
	for _, c := range [2]*pipeCapture{j.out, j.err} {
		if c != nil && c.w != nil {
			c.w.Close()
			c.w = nil
		}
	}
}

// end closes fan's write ends, waits up to captureGrace for the reads to
// see end of file, takes what is left in the pipes without waiting, and
// closes them. It is called once the job's processes are gone (or it
// never started), and may be called again.
func (j *jobCapture) end() {
	j.started()
	cs := [2]*pipeCapture{j.out, j.err}
	var grace *time.Timer
	expired := false
	for _, c := range cs {
		if c == nil || c.r == nil {
			continue
		}
		select {
		case <-c.done:
		default:
			if grace == nil {
				grace = time.NewTimer(captureGrace)
			}
			if !expired {
				select {
				case <-c.done:
				case <-grace.C:
					expired = true
				}
			}
			if expired {
				// Its goroutine takes what is there and stops.
				c.stop.Store(true)
				c.r.SetReadDeadline(time.Now())
				<-c.done
			}
		}
		c.r.Close()
		c.r = nil
	}
	if grace != nil {
		grace.Stop()
	}
}

// results are the files holding the job's stdout and stderr, rewound, or
// nil for streams it wrote nothing into, their sizes together, and a
// failure to keep them. It ends the capture first; the caller owns the
// files.
func (j *jobCapture) results() (out, errf *os.File, size int64, err error) {
	j.end()
	j.taken = true
	out, n1, e1 := j.out.result()
	errf, n2, e2 := j.err.result()
	return out, errf, n1 + n2, cmp.Or(e1, e2)
}

// release ends a capture whose results are not wanted (the job did not
// start, or its host was lost) and gives its files back. j may be nil.
func (j *jobCapture) release() {
	if j == nil || j.taken {
		return
	}
	j.end()
	j.taken = true
	for _, c := range [2]*pipeCapture{j.out, j.err} {
		if c != nil && c.f != nil {
			c.spool.Put(c.f)
			c.f = nil
		}
	}
}

// result is what the capture kept, its file rewound.
func (c *pipeCapture) result() (*os.File, int64, error) {
	if c == nil || c.f == nil {
		return nil, 0, c.error()
	}
	if _, err := c.f.Seek(0, io.SeekStart); err != nil && c.failed == nil {
		c.failed = err
	}
	return c.f, c.n, c.failed
}

func (c *pipeCapture) error() error {
	if c == nil {
		return nil
	}
	return c.failed
}

// run moves what comes through the pipe until end of file, or until end
// gives up waiting for it; then it takes what the pipe holds still.
func (c *pipeCapture) run() {
	defer close(c.done)
	err := c.rc.Read(func(fd uintptr) bool { return c.move(int(fd)) })
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.rc.Control(func(fd uintptr) { c.drain(int(fd)) })
	}
}

// drain takes what the pipe holds, without waiting: at most a pipeful,
// as a process writing into it still could refill it for ever.
func (c *pipeCapture) drain(fd int) {
	size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		size = captureChunk
	}
	for moved := 0; moved < size; {
		n, err := c.step(fd)
		switch {
		case n > 0:
			moved += n
		case err == unix.EINTR:
		case err == nil || err == unix.EAGAIN:
			return
		default:
			c.fail(err)
		}
	}
}

// move moves what the pipe holds now; it reports false when the pipe is
// empty and still open for writing (wait), or when end gave up waiting
// (the read then fails with its deadline), true at end of file.
func (c *pipeCapture) move(fd int) bool {
	for !c.stop.Load() {
		n, err := c.step(fd)
		switch {
		case n > 0 || err == unix.EINTR:
		case err == unix.EAGAIN:
			return false
		case err == nil: // n == 0: end of file
			return true
		default:
			c.fail(err)
		}
	}
	return false
}

// step moves one piece: into a memory file within the budgets, otherwise
// into a spool file; after a failure it reads the piece and drops it, so
// that the job is not blocked.
func (c *pipeCapture) step(fd int) (int, error) {
	switch {
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
			if err != unix.ENOMEM && err != unix.ENOSPC {
				return int(n), err
			}
			// The memory file cannot grow (a memory cgroup at its
			// limit): on to a spool file.
		}
		if err := c.spill(); err != nil {
			return 0, err
		}
	}
	return c.toSpool(fd)
}

// keepFirst takes a file for the stream's first bytes and writes them
// into it: a memory file when the budgets have room.
func (c *pipeCapture) keepFirst(b []byte) error {
	if got := c.reserveUpTo(int64(len(b))); got < int64(len(b)) {
		c.unreserve(got) // not room for them all: a spool file
	} else {
		f, err := c.spool.GetMemory()
		if err == nil {
			c.f, c.mem = f, true
			n, err := f.Write(b)
			c.unreserve(got - int64(n))
			c.n = int64(n)
			return err
		}
		c.unreserve(got) // no memory files here: spool files from the start
	}
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
	err = copyFile(f, mem, c.n)
	c.job.inMemory.Add(-c.n)
	c.spool.Put(mem) // its bytes go back to the budget
	return err
}

// copyFile appends the first n bytes of src to dst: the kernel moves them
// (sendfile), or, where it cannot, they are copied through memory.
func copyFile(dst, src *os.File, n int64) error {
	var off int64
	for off < n {
		w, err := unix.Sendfile(int(dst.Fd()), int(src.Fd()), &off, int(n-off))
		switch {
		case err == unix.EINTR:
		case err == unix.EINVAL || err == unix.ENOSYS:
			_, err = io.Copy(dst, io.NewSectionReader(src, off, n-off))
			return err
		case err != nil:
			return err
		case w == 0:
			return io.ErrUnexpectedEOF
		}
	}
	return nil
}

// toSpool splices the next piece into the spool file, or copies it where
// the file's file system takes no splice.
func (c *pipeCapture) toSpool(fd int) (int, error) {
	if !c.grown {
		// Big output: fewer, larger moves. Refused past the user's
		// share of pipe memory (pipe-user-pages-soft): then not.
		c.grown = true
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
