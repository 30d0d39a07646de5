package runner

import (
	"cmp"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Capture through pipes (grouped output with a MemorySpool): a job writes
// its stdout and stderr into pipes, whose read ends the pool's
// capturePoll watches (capture_poll.go). What comes is moved with
// splice(2) into a memory file while the job's output fits its memory
// budget, and beyond it into a spool file, after copying there what the
// memory file held. A stream the job writes nothing into takes no file at
// all, and no goroutine.
//
// The job's end: once the executor's Wait returns, the job's processes
// have exited and its group was swept, so fan closes its own copies of the
// write ends and the reads see end of file at once. Only a process that
// left the job's group (setsid) can keep a write end open; after
// captureGrace, what is in the pipe is taken without waiting, and the
// pipe is left behind (capturePoll.leave): what such a process writes
// later is dropped until the run ends, or until the pipe is closed for
// want of room (capture_left.go), lost as it is with GNU parallel, which
// reads a job's files when the job ends.

// captureGrace is how long a job's pipes are waited on for end of file
// after the job has ended. A swept job's processes close their ends within
// microseconds, or the few milliseconds a big process takes to exit; a
// process that escaped the group may hold one for ever. 150 ms is well
// past the first on a loaded machine and short against a job's start-up.
const captureGrace = 150 * time.Millisecond

// captureChunk is the most that is moved by one splice: a pipe's default
// size, and the memory reserved from the budgets for one move.
const captureChunk = 64 << 10

// spillPipeSize is the size a pipe is grown to once its output is big (a
// pipeful has passed into a spool file), and the most one splice then
// moves: 1 MiB, the default most an unprivileged process may ask for
// (/proc/sys/fs/pipe-max-size). With 64 KiB pipes, a job writing 1 GiB
// makes the capture wake and splice 16,384 times; measured in
// BENCHMARKS.md.
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
	out, err *pipeCapture   // out is nil when the job writes its stdout directly
	inMemory atomic.Int64   // bytes of the job's output in memory files
	taken    bool           // results handed the files on
	pipes    [2]pipeCapture // out and err point here: one allocation a job
}

// pipeCapture keeps what a job writes into one pipe.
type pipeCapture struct {
	job     *jobCapture
	spool   MemorySpool
	poll    *capturePoll
	fd      int      // the read end, non-blocking
	wfd     int      // the write end, the job's; -1 once fan closed its copy
	w       *os.File // wfd as a file, made only for an executor that writes into it itself
	id      uint64   // in poll
	done    chan struct{}
	left    bool                    // left behind by its job: what comes is dropped (capture_left.go)
	stop    atomic.Bool             // end gave up waiting for end of file
	netRead atomic.Pointer[os.File] // the read end, once on Go's netpoller (toNetpoller)

	mu    sync.Mutex
	armed bool // watched and not taken: take hands it over (capturePoll)

	// Owned by whoever has taken the pipe (see capturePoll) until done is
	// closed.
	f        *os.File  // the memory or spool file; nil until bytes arrive
	mem      bool      // f is a memory file
	n        int64     // bytes in f
	failed   error     // why output could not be kept; the rest is dropped
	noSplice bool      // f takes no splice: bytes are copied through scratch
	big      bool      // a pipeful has passed into the spool file: see toSpool
	first    [256]byte // the first bytes: most jobs' whole output
	scratch  []byte    // for copying, when splice cannot be used
}

// newJobCapture makes the pipes of an attempt's stdout (unless direct) and
// stderr, and has poll watch them.
func newJobCapture(sp MemorySpool, poll *capturePoll, direct bool) (*jobCapture, error) {
	j := &jobCapture{}
	var err error
	if !direct {
		if j.out, err = j.pipe(&j.pipes[0], sp, poll); err != nil {
			return nil, err
		}
	}
	if j.err, err = j.pipe(&j.pipes[1], sp, poll); err != nil {
		j.end()
		return nil, err
	}
	return j, nil
}

// pipe makes one stream's pipe, kept by c, and has poll watch it.
func (j *jobCapture) pipe(c *pipeCapture, sp MemorySpool, poll *capturePoll) (*pipeCapture, error) {
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
	// The write end stays a bare descriptor: a local job is handed it as
	// it is, and an *os.File would cost an fcntl and a cleanup per pipe.
	*c = pipeCapture{job: j, spool: sp, poll: poll, fd: fds[0], wfd: fds[1], done: make(chan struct{})}
	if err := poll.watch(c); err != nil {
		unix.Close(c.fd)
		unix.Close(c.wfd)
		return nil, err
	}
	return c, nil
}

// stdout and stderr are the write ends the job gets, as files, for an
// executor that writes into them itself (a remote one).
func (j *jobCapture) stdout() *os.File {
	if j.out == nil {
		return nil
	}
	return j.out.file()
}

func (j *jobCapture) stderr() *os.File { return j.err.file() }

// fds are the bare write ends, for a local job: out is -1 when the job
// writes its stdout directly.
func (j *jobCapture) fds() (out, err int) {
	out = -1
	if j.out != nil {
		out = j.out.wfd
	}
	return out, j.err.wfd
}

// file is the write end as a file, which then owns it.
func (c *pipeCapture) file() *os.File {
	if c.w == nil && c.wfd >= 0 {
		c.w = os.NewFile(uintptr(c.wfd), "|1")
	}
	return c.w
}

// started closes fan's copies of the write ends once a job of this
// machine has started: its processes hold their own. A remote executor
// writes into them until Wait returns; then end closes them.
func (j *jobCapture) started() {
	for _, c := range [2]*pipeCapture{j.out, j.err} {
		if c == nil || c.wfd < 0 {
			continue
		}
		if c.w != nil {
			c.w.Close() // it owns wfd
		} else {
			unix.Close(c.wfd)
		}
		c.w, c.wfd = nil, -1
	}
}

// end closes fan's write ends, waits up to captureGrace for the pipes to
// be at their end, takes what is left in them without waiting, and
// closes them. It is called once the job's processes are gone (or it
// never started), and may be called again.
func (j *jobCapture) end() {
	j.started()
	cs := [2]*pipeCapture{j.out, j.err}
	for _, c := range cs {
		// Most often at its end already, its event not yet taken: a read
		// tells, with no wait for the loop.
		if c != nil && c.take() {
			c.turn()
		}
	}
	if !waitClosed(cs, captureGrace) {
		for _, c := range cs {
			c.giveUp()
		}
		for _, c := range cs {
			if c != nil {
				<-c.done
			}
		}
	}
}

// waitClosed waits up to d for the pipes (nil ones are none) to be
// closed, and reports whether they all were.
func waitClosed(cs [2]*pipeCapture, d time.Duration) bool {
	var grace *time.Timer
	for _, c := range cs {
		if c == nil || c.closed() {
			continue
		}
		if grace == nil {
			grace = time.NewTimer(d)
			defer grace.Stop()
		}
		select {
		case <-c.done:
		case <-grace.C:
			return false
		}
	}
	return true
}

// closed says whether the pipe is closed, at its end or given up.
func (c *pipeCapture) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// giveUp stops waiting for the pipe's end of file: whoever has it takes
// what is there and closes it (see settle and pollBig). c may be nil.
func (c *pipeCapture) giveUp() {
	if c == nil || c.closed() {
		return
	}
	c.stop.Store(true)
	if c.take() {
		c.settle(false)
	} else if r := c.netRead.Load(); r != nil {
		r.SetReadDeadline(time.Now()) // wakes its mover
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
