package runner

import (
	"os"
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

// newBlockFile makes the file or FIFO for an attempt in dir, the file
// holding the block already.
func newBlockFile(dir string, mode StdinMode, in input.Stdin) (*blockFile, error) {
	f, err := os.CreateTemp(dir, "fan-block-")
	if err != nil {
		return nil, err
	}
	b := &blockFile{path: f.Name(), mode: mode, in: in}
	if mode == InFile {
		b.sent, err = in.WriteTo(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(b.path)
			return nil, err
		}
		return b, nil
	}
	f.Close()
	os.Remove(b.path)
	if err := unix.Mkfifo(b.path, 0o600); err != nil {
		return nil, err
	}
	return b, nil
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
