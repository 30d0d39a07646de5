package runner

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fan-run/fan/input"
)

// feeder writes an item's Stdin into a pipe that the job reads as its
// standard input (pipe mode). A job that exits without reading all of it
// is not an error: the rest is dropped (the write fails with EPIPE once
// the job's tree, the pipe's only reader, is gone). The methods of a nil
// feeder do nothing, for jobs that read /dev/null.
type feeder struct {
	r, w *os.File
	in   input.Stdin
	done chan int64 // the bytes written, once the writer is done
}

func newFeeder(in input.Stdin) (*feeder, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &feeder{r: r, w: w, in: in}, nil
}

// started is called once the attempt has started (ok) or failed to: fan
// lets go of the pipe's read end, which the job holds now, and starts
// writing.
func (f *feeder) started(ok bool) {
	if f == nil {
		return
	}
	f.r.Close()
	if !ok {
		f.w.Close()
		return
	}
	f.done = make(chan int64, 1)
	go func() {
		n, _ := f.in.WriteTo(f.w)
		f.w.Close()
		f.done <- n
	}()
}

// wait waits for the writer, once the job has ended, and returns how many
// bytes the job was given.
func (f *feeder) wait() int64 {
	if f == nil || f.done == nil {
		return 0
	}
	return <-f.done
}

// StdinMode is how a job is given its block in pipe mode.
type StdinMode uint8

const (
	// OnStdin: the job reads the block on its standard input.
	OnStdin StdinMode = iota
	// InFile: {} names a temporary file holding the block (--cat).
	InFile
	// InFIFO: {} names a temporary FIFO the block is written into
	// (--fifo); a job that does not open it is not waited for.
	InFIFO
)

// blockFile is the temporary file or FIFO of one attempt (--cat, --fifo).
type blockFile struct {
	path string
	mode StdinMode
	in   input.Stdin
	sent int64
	ran  chan struct{} // closed when the job has ended
	done chan struct{} // closed when the FIFO's writer is done
}

// newBlockFile makes the file or FIFO for an attempt at path (from
// blockPath), the file holding the block already. It fails if something
// is there already: the name was printed (-t) as the one the job reads.
func newBlockFile(path string, mode StdinMode, in input.Stdin) (*blockFile, error) {
	b := &blockFile{path: path, mode: mode, in: in}
	if mode == InFIFO {
		if err := unix.Mkfifo(path, 0o600); err != nil {
			return nil, &os.PathError{Op: "mkfifo", Path: path, Err: err}
		}
		return b, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	b.sent, err = in.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return b, nil
}

// blockPath names a new file for an attempt's block in dir ("" is
// $TMPDIR), as os.CreateTemp would: a random name, made with O_EXCL (or
// mkfifo) so that nothing put there in between is used. It is named
// apart from making it so that -t can print the command with the name
// before the attempt makes the file.
func blockPath(dir string) string {
	if dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "fan-block-"+strconv.FormatUint(rand.Uint64(), 36))
}

// started starts writing into the FIFO once the job opens it.
func (b *blockFile) started() {
	if b == nil || b.mode != InFIFO {
		return
	}
	b.ran, b.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(b.done)
		f := b.openWriter()
		if f == nil {
			return // the job never opened it
		}
		b.sent, _ = b.in.WriteTo(f)
		f.Close()
	}()
}

// openWriter opens the FIFO for writing once a reader has it open, or
// returns nil when the job ended first.
func (b *blockFile) openWriter() *os.File {
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		fd, err := unix.Open(b.path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), b.path) // non-blocking: Go's poller waits for room
		}
		select {
		case <-b.ran:
			return nil
		case <-time.After(wait):
		}
	}
}

// ended waits for the FIFO's writer, removes the file, and returns how many
// bytes the job was given. Later calls do nothing and return 0.
func (b *blockFile) ended() int64 {
	if b == nil || b.path == "" {
		return 0
	}
	if b.ran != nil {
		close(b.ran)
		<-b.done
	}
	os.Remove(b.path)
	b.path = ""
	return b.sent
}
