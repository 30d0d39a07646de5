package input

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ErrJobsGone is --round-robin's error when every job has ended while
// input was left: what was not read stays in the pipe.
var ErrJobsGone = errors.New("--round-robin: every job ended before the input did (the rest of it was not read)")

// RoundRobin is the input stage of --round-robin: a few long-lived jobs
// (one per slot) share the blocks of the input, each job taking the next
// block whenever it can take more, so a slow job gets fewer. Each job's
// stdin starts with the header, once.
//
// A job's blocks are not kept: a failed job's input cannot be written to
// the failures file (its record beside it says so).
type RoundRobin struct {
	// Blocks cuts the input, read through Gate.
	Blocks *BlockSplitter
	Gate   Closer
	// Jobs is how many jobs share the input.
	Jobs int
	// Count, when set, is incremented for every job (item) sent, and
	// Offset set to how much of the input was read, through the end of the
	// last block read.
	Count, Offset *atomic.Int64
	// DryRun sends the jobs' items and reads nothing: no job runs.
	DryRun bool

	deal chan *Block
	once sync.Once
	left atomic.Int64  // jobs whose stdin is still open
	gone chan struct{} // closed when no job takes blocks any more
}

// Run sends one item per job on out, then deals the blocks to them until
// the input ends (or ctx ends: what was read already is still dealt to
// the running jobs), and closes out.
func (rr *RoundRobin) Run(ctx context.Context, out chan<- Item) error {
	rr.start()
	for i := 1; i <= rr.Jobs; i++ {
		if rr.Count != nil {
			rr.Count.Add(1)
		}
		out <- Item{Seq: int64(i), Args: []string{""}, Stdin: &dealt{rr: rr}}
	}
	close(out)
	if rr.DryRun {
		return nil
	}
	stop := context.AfterFunc(ctx, rr.Gate.Close)
	defer stop()
	defer close(rr.deal)
	for {
		b, err := rr.Blocks.Next()
		if err != nil {
			if err == io.EOF || errors.Is(err, ErrStopped) {
				return ctx.Err()
			}
			return err
		}
		if rr.Offset != nil {
			rr.Offset.Store(b.Offset + int64(len(b.Data)))
		}
		select {
		case rr.deal <- b:
		case <-rr.gone:
			// Every job has ended (or stopped reading): nobody is left
			// to take the rest of the input.
			b.Release()
			return ErrJobsGone
		case <-ctx.Done():
			if !rr.handOver(b) {
				return ctx.Err()
			}
		}
	}
}

// handOver deals a block read before a drain to a running job, if one
// takes it soon.
func (rr *RoundRobin) handOver(b *Block) bool {
	select {
	case rr.deal <- b:
		return true
	case <-rr.gone:
	case <-time.After(stopWait):
	}
	b.Release()
	return false
}

func (rr *RoundRobin) start() {
	rr.once.Do(func() {
		rr.deal, rr.gone = make(chan *Block), make(chan struct{})
		rr.left.Store(int64(rr.Jobs))
	})
}

// dealt is one job's share of a round-robin input.
type dealt struct {
	rr   *RoundRobin
	done sync.Once
}

// Abandon says that this job takes no blocks (it could not start).
func (d *dealt) Abandon() {
	d.done.Do(func() {
		if d.rr.left.Add(-1) == 0 {
			close(d.rr.gone)
		}
	})
}

// Len implements Stdin: unknown until the job has taken its blocks.
func (d *dealt) Len() int64 { return 0 }

// WriteTo implements Stdin: the header once, then every block this job
// takes, until the input ends. A job that stops reading leaves the rest
// to the others.
func (d *dealt) WriteTo(w io.Writer) (int64, error) {
	defer d.Abandon()
	var n int64
	headed := false
	for b := range d.rr.deal {
		if !headed {
			m, err := w.Write(b.Header)
			n += int64(m)
			headed = true
			if err != nil {
				b.Release()
				return n, err
			}
		}
		m, err := w.Write(b.Data)
		n += int64(m)
		b.Release()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
