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
// (at most one per slot) share the blocks of the input. As in GNU
// parallel, each of the first blocks starts a job of its own until Jobs
// have started, so that no job starts without input (one block, one
// job); every later block goes to the next job in turn that has taken
// its last one from fan: a job that keeps up gets its share, a slow one
// (whose stdin is full) is passed over. Each job's stdin starts with the
// header, once.
//
// A job's blocks are not kept: a failed job's input cannot be written to
// the failures file (its record beside it says so).
type RoundRobin struct {
	// Blocks cuts the input, read through Gate.
	Blocks *BlockSplitter
	Gate   Closer
	// Jobs is how many jobs share the input, at most.
	Jobs int
	// Count, when set, is incremented for every job (item) sent, and
	// Offset set to how much of the input was read, through the end of the
	// last block read.
	Count, Offset *atomic.Int64
	// DryRun sends Jobs items and reads nothing: no job runs.
	DryRun bool

	taken chan struct{} // a job took a block, or ended (capacity 1)
	mu    sync.Mutex
	jobs  []*dealt // the jobs sent, in order; guarded by mu
	left  int      // jobs sent that have not ended; guarded by mu
	next  int      // the job whose turn it is; guarded by mu
}

// Run starts a job for each of the first Jobs blocks, then deals the
// rest of the blocks to those jobs until the input ends (or ctx ends:
// what was read already is still dealt to the running jobs), and closes
// out.
func (rr *RoundRobin) Run(ctx context.Context, out chan<- Item) error {
	defer close(out)
	rr.taken = make(chan struct{}, 1)
	if rr.DryRun {
		for rr.send(out, nil) {
		}
		return nil
	}
	stop := context.AfterFunc(ctx, rr.Gate.Close)
	defer stop()
	defer rr.endInput()
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
		if ctx.Err() == nil && rr.send(out, b) {
			continue
		}
		if err := rr.deal(ctx, b); err != nil {
			return err
		}
	}
}

// send starts one more job, its stdin beginning with first, unless Jobs
// have started; it reports whether it did.
func (rr *RoundRobin) send(out chan<- Item, first *Block) bool {
	rr.mu.Lock()
	if len(rr.jobs) >= rr.Jobs {
		rr.mu.Unlock()
		return false
	}
	d := &dealt{rr: rr, first: first, in: make(chan *Block, 1), starting: true, sent: time.Now()}
	rr.jobs = append(rr.jobs, d)
	rr.left++
	seq := len(rr.jobs)
	rr.mu.Unlock()
	if rr.Count != nil {
		rr.Count.Add(1)
	}
	out <- Item{Seq: int64(seq), Args: []string{""}, Stdin: d} // the consumer drains out until it is closed
	return true
}

// startGrace is how long a block waits for a job that is still starting
// (its process being made) before it may go to one that runs: long
// enough for a start on a busy machine, short enough that a job the
// pool cannot start yet (a lowered -j, a --load gate) holds nothing up.
const startGrace = 200 * time.Millisecond

// deal gives b to the next job in turn with room for it, waiting for
// one. Once ctx has ended (a drain), it waits only a moment, then drops
// b and returns ctx's error.
func (rr *RoundRobin) deal(ctx context.Context, b *Block) error {
	var late <-chan time.Time
	done := ctx.Done()
	for {
		dealt, gone, wait := rr.offer(b)
		switch {
		case dealt:
			return nil
		case gone:
			// Every job has ended (or stopped reading): nobody is left
			// to take the rest of the input.
			b.Release()
			return ErrJobsGone
		}
		if late == nil && ctx.Err() != nil {
			late, done = time.After(stopWait), nil
		}
		var again <-chan time.Time
		if wait > 0 {
			again = time.After(wait)
		}
		select {
		case <-rr.taken:
		case <-again:
		case <-done: // look once more, then wait only a moment
		case <-late:
			b.Release()
			return ctx.Err()
		}
	}
}

// offer gives b to the next job in turn that has room for it (its last
// block taken), and says whether one had; or says gone: all Jobs have
// started, and every one has ended. While a job is starting, for up to
// startGrace, b waits for it rather than go to those that started
// first: offer then says how long to wait before offering again.
func (rr *RoundRobin) offer(b *Block) (dealt, gone bool, wait time.Duration) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, j := range rr.jobs {
		if left := startGrace - time.Since(j.sent); j.starting && left > 0 {
			return false, false, left
		}
	}
	for i := range rr.jobs {
		at := (rr.next + i) % len(rr.jobs)
		j := rr.jobs[at]
		if j.ended {
			continue
		}
		select {
		case j.in <- b:
			rr.next = at + 1
			return true, false, 0
		default:
		}
	}
	return false, rr.left == 0 && len(rr.jobs) >= rr.Jobs, 0
}

// endInput tells every job that there are no more blocks.
func (rr *RoundRobin) endInput() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, d := range rr.jobs {
		close(d.in)
	}
}

// wake wakes deal, if it waits.
func (rr *RoundRobin) wake() {
	select {
	case rr.taken <- struct{}{}:
	default:
	}
}

// dealt is one job's share of a round-robin input: the block that
// started it (nil in a dry run), then those dealt to it on in.
type dealt struct {
	rr    *RoundRobin
	first *Block
	in    chan *Block // holds the next block; closed at the end of the input
	// starting: the job has neither begun to take its input nor ended;
	// ended: it takes no more. Both guarded by rr.mu.
	starting, ended bool
	sent            time.Time // when the job was sent to be started
	done            sync.Once
}

// Abandon says that this job takes no more blocks: it has ended, or it
// could not start. The blocks it was given and did not write are
// dropped with it.
func (d *dealt) Abandon() {
	d.done.Do(func() {
		if d.first != nil {
			d.first.Release()
		}
		d.rr.mu.Lock()
		d.starting, d.ended = false, true
		d.rr.left--
		select {
		case b, ok := <-d.in:
			if ok {
				b.Release()
			}
		default:
		}
		d.rr.mu.Unlock()
		d.rr.wake()
	})
}

// Len implements Stdin: unknown until the job has taken its blocks.
func (d *dealt) Len() int64 { return 0 }

// WriteTo implements Stdin: the header once, the first block, then every
// block dealt to this job, until the input ends. A job that stops
// reading leaves the rest to the others.
func (d *dealt) WriteTo(w io.Writer) (int64, error) {
	defer d.Abandon()
	if d.first == nil {
		return 0, nil
	}
	d.rr.mu.Lock()
	d.starting = false
	d.rr.mu.Unlock()
	d.rr.wake()
	n, err := w.Write(d.first.Header)
	total := int64(n)
	for b, more := d.first, true; more && err == nil; {
		n, err = w.Write(b.Data)
		total += int64(n)
		if b != d.first {
			b.Release() // the first goes in Abandon
		}
		if err == nil {
			b, more = <-d.in
			d.rr.wake()
		}
	}
	return total, err
}
