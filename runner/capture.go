package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Capture: a job's stdout and stderr are kept in files lent by a Spool, so
// that output can be grouped (written whole when the job ends, or in input
// order with -k) without passing through fan's own buffers. With a
// MemorySpool the job writes into pipes, and what comes is moved into
// memory files up to the spool's budget and into spool files beyond it
// (capture_pipe.go); otherwise (--line-buffer, whose output the sink reads
// from the files as it grows) the job writes into spool files itself.
// Spool files are unlinked temporary files, so nothing is left behind.
// "Spilled output" is output held in them.

// Spool lends the files that jobs write their stdout and stderr into. It
// must be safe for concurrent use.
type Spool interface {
	// Get returns an empty file, positioned at its start.
	Get() (*os.File, error)
	// Put takes back a file that Get returned, with whatever it holds.
	Put(*os.File)
}

// FullSpool is a Spool that can tell whether the filesystem its files are
// on is full. The pool asks after a job that wrote output or failed: its
// writes may have been cut short, and the job may not have said so.
type FullSpool interface {
	Full() bool
	Dir() string
}

// EmptyPutter is a Spool that can take back, with no system call, a file
// its caller has found empty and positioned at its start. The pool uses it,
// when the Spool has it, for the output files jobs leave empty (most jobs'
// stderr).
type EmptyPutter interface {
	PutEmpty(*os.File)
}

// A CaptureError is fan's own failure to capture a job's output: no pipe
// or temporary file could be made for it, or their filesystem was full, so
// what it wrote may be cut short. Like a failure to write
// fan's own output, it ends the run.
type CaptureError struct {
	Dir string // where the spool files are
	Err error
}

func (e *CaptureError) Error() string {
	where := " in " + e.Dir
	if strings.Contains(e.Err.Error(), e.Dir) {
		where = "" // the error says where already
	}
	return fmt.Sprintf("cannot keep job output%s: %v (free space there, or set TMPDIR to a directory with room)", where, e.Err)
}

func (e *CaptureError) Unwrap() error { return e.Err }

// capture sets up the capture of a job's output: with a MemorySpool (and
// not Live), pipes whose capture the returned jobCapture runs
// (capture_pipe.go); with another Spool, files from it that the job
// writes into; without a spool (--ungroup) the job writes to fan's own
// stdout and stderr. With direct set, only its stderr is captured: its
// stdout goes there (Result.Direct).
func (p *Pool) capture(r *Result, direct *os.File) (*jobCapture, error) {
	if p.Spool == nil {
		return nil, nil
	}
	r.Direct = direct != nil
	if ms, ok := p.Spool.(MemorySpool); ok && !p.Live {
		if p.capPoll == nil {
			return nil, p.captureError(p.pollErr)
		}
		jc, err := newJobCapture(ms, p.capPoll, direct != nil)
		if err != nil {
			return nil, p.captureError(err)
		}
		return jc, nil
	}
	var err error
	if direct == nil {
		r.Stdout, err = p.Spool.Get()
	}
	if err == nil {
		r.Stderr, err = p.Spool.Get()
	}
	if err != nil {
		p.discard(r)
		return nil, p.captureError(err)
	}
	return nil, nil
}

// captured takes a finished job's output: from its pipes' capture (jc),
// or from its output files, which it rewinds, giving back the empty ones
// and checking that the spool's filesystem did not fill up under them.
func (p *Pool) captured(r *Result, jc *jobCapture) {
	if jc != nil {
		var err error
		r.Stdout, r.Stderr, r.held, err = jc.results()
		if err != nil {
			r.Err = p.captureError(err)
		}
		return
	}
	var out, errs int64
	r.Stdout, out = p.keep(r.Stdout)
	r.Stderr, errs = p.keep(r.Stderr)
	r.held = out + errs // counted in the hold if it is the job's final result
	if full, ok := p.Spool.(FullSpool); ok && (r.Stdout != nil || r.Stderr != nil || !r.OK()) && full.Full() {
		r.Err = p.captureError(syscall.ENOSPC)
	}
}

// captureError wraps a failure to capture output with where the spool is.
func (p *Pool) captureError(err error) error {
	dir := os.TempDir()
	if full, ok := p.Spool.(FullSpool); ok {
		dir = full.Dir()
	}
	return &CaptureError{Dir: dir, Err: err}
}

// keep rewinds a captured output file and tells its size, or gives it back
// at once when the job wrote nothing into it. One lseek to the end tells
// the size and, for the common empty file, leaves it ready for the next
// job.
func (p *Pool) keep(f *os.File) (*os.File, int64) {
	if f == nil {
		return nil, 0
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil && size == 0 {
		if e, ok := p.Spool.(EmptyPutter); ok {
			e.PutEmpty(f)
		} else {
			p.Spool.Put(f)
		}
		return nil, 0
	}
	f.Seek(0, io.SeekStart)
	return f, max(size, 0)
}

// discard gives back the output files of a result that will not be written.
func (p *Pool) discard(r *Result) {
	for _, f := range []*os.File{r.Stdout, r.Stderr} {
		if f != nil {
			p.Spool.Put(f)
		}
	}
	r.Stdout, r.Stderr, r.held = nil, nil, 0
}

// dup returns a descriptor of f of the caller's own, closed on exec from
// the moment it exists: set apart (dup, then FD_CLOEXEC), a job started
// in between by another goroutine inherited it.
func dup(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
