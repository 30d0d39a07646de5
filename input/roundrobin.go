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
// header, once. A block that a job did not take (it ended first, or
// its stdin failed before any of the block went in) goes to another.
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

	taken chan struct{} // a job took a block, wrote one, gave one back, or ended (capacity 1)
	mu    sync.Mutex
	// Guarded by mu: the jobs sent, in order; how many have not ended;
	// the job whose turn it is; the blocks given to jobs and neither
	// written nor given back yet; the blocks given back, oldest first, to
	// be dealt again; and whether the input was ended (by endInput).
	jobs   []*dealt
	left   int
	next   int
	held   int
	back   []*Block
	closed bool
}

// Run starts a job for each of the first Jobs blocks, then deals the
// rest of the blocks to those jobs until the input ends (or ctx ends:
// what was read already is still dealt to the running jobs). It closes
// out once no job is left to start, and returns once every block was
// written to a job (a block given back meanwhile is dealt again), then
// tells the jobs that the input has ended.
func (rr *RoundRobin) Run(ctx context.Context, out chan<- Item) error {
	rr.taken = make(chan struct{}, 1)
	if rr.DryRun {
		for rr.send(out, nil) {
		}
		close(out)
		return nil
	}
	stop := context.AfterFunc(ctx, rr.Gate.Close)
	defer stop()
	defer rr.endInput()
	err := rr.dealAll(ctx, out)
	close(out)
	if err != nil || ctx.Err() != nil {
		return err
	}
	return rr.settle(ctx)
}

// dealAll reads the blocks and deals them, until the input ends.
func (rr *RoundRobin) dealAll(ctx context.Context, out chan<- Item) error {
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
	d := &dealt{rr: rr, first: first, in: make(chan *Block, 1), quit: make(chan struct{}), starting: true, sent: time.Now()}
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
			// to take the rest of the input. (endInput frees the blocks
			// given back.)
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

// offer gives b, after the blocks given back, to the next job in turn
// that has room for it (its last block taken), and says whether one had;
// or says gone: all Jobs have started, and every one has ended. While a
// job is starting, for up to startGrace, b waits for it rather than go
// to those that started first: offer then says how long to wait before
// offering again.
func (rr *RoundRobin) offer(b *Block) (dealt, gone bool, wait time.Duration) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, j := range rr.jobs {
		if left := startGrace - time.Since(j.sent); j.starting && left > 0 {
			return false, false, left
		}
	}
	if rr.placeBack() && rr.place(b) {
		return true, false, 0
	}
	return false, rr.left == 0 && len(rr.jobs) >= rr.Jobs, 0
}

// placeBack gives the blocks given back, oldest first, to the jobs with
// room for them, and says whether it placed them all. rr.mu is held.
func (rr *RoundRobin) placeBack() bool {
	for len(rr.back) > 0 && rr.place(rr.back[0]) {
		rr.back[0] = nil
		rr.back = rr.back[1:]
	}
	return len(rr.back) == 0
}

// place gives b to the next job in turn that has not ended and has room
// for it, and says whether one had. rr.mu is held.
func (rr *RoundRobin) place(b *Block) bool {
	for i := range rr.jobs {
		at := (rr.next + i) % len(rr.jobs)
		j := rr.jobs[at]
		if j.ended {
			continue
		}
		select {
		case j.in <- b:
			rr.next = at + 1
			rr.held++
			return true
		default:
		}
	}
	return false
}

// settle waits, once the input has ended, until every block dealt has
// been written to its job, dealing again those given back; it fails
// when every job has ended with some left. Once ctx has ended (a drain)
// it waits no more: what the jobs were given is still written to them.
func (rr *RoundRobin) settle(ctx context.Context) error {
	for {
		rr.mu.Lock()
		placed := rr.placeBack()
		held, left := rr.held, rr.left
		rr.mu.Unlock()
		switch {
		case placed && held == 0:
			return nil
		case held == 0 && left == 0:
			return ErrJobsGone // endInput frees the blocks given back
		}
		select {
		case <-rr.taken:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// giveBack takes back b, which a job did not take, to deal it again; once
// the input was ended, b is dropped. rr.mu is held.
func (rr *RoundRobin) giveBack(b *Block) {
	if rr.closed {
		b.Release()
		return
	}
	rr.back = append(rr.back, b)
}

// endInput tells every job that there are no more blocks, and drops the
// blocks given back that no job took.
func (rr *RoundRobin) endInput() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.closed = true
	for _, b := range rr.back {
		b.Release()
	}
	rr.back = nil
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
	in    chan *Block   // holds the next block; closed at the end of the input
	quit  chan struct{} // closed when the job has ended (Abandon)
	// starting: the job has neither begun to take its input nor ended;
	// ended: it takes no more. Both guarded by rr.mu.
	starting, ended bool
	sent            time.Time // when the job was sent to be started
	done            sync.Once
}

// Abandon says that this job takes no more blocks: it has ended, or it
// could not start. The block waiting for it is given back, to be dealt
// to another job; the block that started it is its own, and is dropped.
func (d *dealt) Abandon() {
	d.done.Do(func() {
		rr := d.rr
		rr.mu.Lock()
		if d.starting && d.first != nil {
			d.first.Release() // WriteTo has not begun, and will write nothing
		}
		d.starting, d.ended = false, true
		rr.left--
		select {
		case b, ok := <-d.in:
			if ok {
				rr.held--
				rr.giveBack(b)
			}
		default:
		}
		close(d.quit)
		rr.mu.Unlock()
		rr.wake()
	})
}

// Len implements Stdin: unknown until the job has taken its blocks.
func (d *dealt) Len() int64 { return 0 }

// WriteTo implements Stdin: the header once, the first block, then every
// block dealt to this job, until the input ends or the job does. A job
// that stops reading leaves the rest to the others. Once the job has
// ended (Abandon), it writes nothing: an attempt run again gets no
// input, which went by.
func (d *dealt) WriteTo(w io.Writer) (int64, error) {
	defer d.Abandon()
	rr := d.rr
	rr.mu.Lock()
	if d.first == nil || d.ended {
		rr.mu.Unlock()
		return 0, nil
	}
	d.starting = false
	rr.mu.Unlock()
	rr.wake()
	n, err := w.Write(d.first.Header)
	total := int64(n)
	if err == nil {
		n, err = w.Write(d.first.Data)
		total += int64(n)
	}
	d.first.Release()
	for err == nil {
		var b *Block
		select {
		case b = <-d.in:
		case <-d.quit:
		}
		if b == nil {
			break // the input or the job has ended
		}
		rr.wake()
		n, err = w.Write(b.Data)
		total += int64(n)
		rr.mu.Lock()
		rr.held--
		if n == 0 && err != nil {
			rr.giveBack(b) // none of it went in: the job had gone
		} else {
			b.Release()
		}
		rr.mu.Unlock()
		rr.wake()
	}
	return total, err
}
