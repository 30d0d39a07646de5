package input

import (
	"context"
	"io"
	"sync"
)

// Tee gives all of one input to every job of a run (--tee): each job's
// stdin is a copy of it. The jobs run at once, one per item (the caller
// makes sure there are slots for all); the input is read once, when the
// last of them has started, and each piece is written to every job still
// reading (a job that stops reading is left out from then on).
type Tee struct {
	// In is the input, read through a Gate.
	In io.Reader
	// Jobs is how many jobs share it.
	Jobs int

	once    sync.Once
	mu      sync.Mutex
	readers []io.Writer
	waiting int           // jobs not yet started or given up on
	all     chan struct{} // closed when every job has joined or given up
	done    chan struct{} // closed when the input has been copied
	err     error
}

func (t *Tee) start() {
	t.once.Do(func() {
		t.waiting = t.Jobs
		t.all, t.done = make(chan struct{}), make(chan struct{})
		if t.Jobs == 0 {
			close(t.all)
		}
	})
}

// Stdin returns the stdin of one job.
func (t *Tee) Stdin() Stdin {
	t.start()
	return &teeJob{t: t}
}

// Run copies the input to the jobs once they have all started, until the
// input ends or ctx ends.
func (t *Tee) Run(ctx context.Context) error {
	t.start()
	defer close(t.done)
	select {
	case <-t.all:
	case <-ctx.Done():
		return ctx.Err()
	}
	buf := make([]byte, 128<<10)
	for ctx.Err() == nil {
		n, err := t.In.Read(buf)
		if n > 0 {
			t.write(buf[:n])
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// write writes p to every job still reading.
func (t *Tee) write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := t.readers[:0]
	for _, w := range t.readers {
		if _, err := w.Write(p); err == nil {
			kept = append(kept, w)
		}
	}
	t.readers = kept
}

// join adds a job's stdin, or (w nil) gives up on a job that will not
// read it.
func (t *Tee) join(w io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w != nil {
		t.readers = append(t.readers, w)
	}
	if t.waiting--; t.waiting == 0 {
		close(t.all)
	}
}

// teeJob is one job's copy of the input.
type teeJob struct {
	t    *Tee
	once sync.Once
}

// Len implements Stdin: the input's length is not known ahead.
func (j *teeJob) Len() int64 { return 0 }

// WriteTo implements Stdin: it waits until the whole input was copied.
func (j *teeJob) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	joined := false
	j.once.Do(func() { j.t.join(cw); joined = true })
	if !joined {
		return 0, nil // a retry: the input went by already
	}
	<-j.t.done
	return cw.n, nil
}

// Abandon implements Abandoner: the job could not start, or has ended
// (a job that ended before it joined is not waited for).
func (j *teeJob) Abandon() { j.once.Do(func() { j.t.join(nil) }) }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
