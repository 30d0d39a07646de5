package runner

import (
	"os"

	"fan/input"
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
