package runner

import "github.com/fan-run/fan/input"

// DryBatch is how many of a dry run's results go to the output stage in
// one event, at most; dryBatchBytes, how many bytes of input they may hold
// (a batch ends with the item that reaches it): a packed item can be a
// whole command line.
const (
	DryBatch      = 64
	dryBatchBytes = 64 << 10
)

// dryDelivery sets up how a dry run's results reach the output stage
// without -k: in batches of up to DryBatch, in input order, so that the
// two stages do not hand a million results over one at a time. Results
// come only from the dispatcher's goroutine (nothing runs), which sends
// the batch when it is full, before it waits for the next item (Run),
// and at the end. The returned function, called at the end, sends the
// last batch and closes the events.
func (p *Pool) dryDelivery() func() {
	p.batch = make([]*Result, 0, DryBatch)
	p.deliver = func(t ticketed) {
		p.batch = append(p.batch, t.r)
		// The bytes of the batch's items are what the dispatcher counted
		// out of the read-ahead since it began (Dispatched): every item it
		// takes in a dry run is delivered at once, in turn.
		if len(p.batch) == DryBatch || p.goneB.Load()-p.batchFrom >= dryBatchBytes {
			p.flushDry()
		}
	}
	return func() {
		p.flushDry()
		close(p.events)
	}
}

// flushDry sends the results of the batch, if any, as one Finished event.
func (p *Pool) flushDry() {
	if len(p.batch) == 0 {
		return
	}
	p.events <- Event{Kind: Finished, Batch: p.batch}
	p.batch, p.batchFrom = make([]*Result, 0, DryBatch), p.goneB.Load()
}

// render is a dry run's attempt of a job: its command, rendered in slot,
// in a Result the output stage gives back (Stream.Recycle). A block of
// stdin the job would have read is abandoned, as for a job that cannot
// start.
func (p *Pool) render(item *input.Item, slot Slot) *Result {
	abandon(item)
	n := p.drySlots.next(p.limit())
	slot.N = n
	r := p.stream.dryResult()
	r.Item, r.Slot = *item, slot
	r.Command, r.DryRun = p.Template.Render(item, slot), true
	return r
}

// limit is how many jobs may run at once now (0: no limit): the slots'
// limit where they tell it, else Jobs.
func (p *Pool) limit() int {
	if l, ok := p.slots.(interface{ Limit() int }); ok {
		return l.Limit()
	}
	return p.Jobs
}

// drySlots numbers the job slots ({%}) of a dry run. Nothing runs, so the
// slot a job took is free again at once, and every job would be in slot
// 1; instead each job is numbered as in a real run where the jobs end in
// the order they started, each when a later one needs its slot: the
// lowest free number while fewer than the limit are taken, so 1 2 1 2 1
// with -j 2, and 1 2 3 4 5 without a limit. That is what GNU parallel's
// dry run prints, when its own bookkeeping does not race (it varies from
// run to run). Only the dispatcher's goroutine uses it.
type drySlots struct {
	numbers SlotNumbers
	// held is a queue of the numbers of the jobs taken to be running,
	// the oldest at held[gone].
	held  []int
	gone  int
	count int // the jobs numbered without a limit
}

// next returns the next job's slot number, with limit jobs at once.
func (d *drySlots) next(limit int) int {
	if limit <= 0 {
		d.count++
		return d.count
	}
	for len(d.held)-d.gone >= limit {
		d.numbers.Put(d.held[d.gone])
		d.gone++
	}
	if d.gone > 0 && d.gone >= len(d.held)/2 {
		// Move the running ones to the front, so that the queue reuses
		// its room: re-slicing past each one that ends would make append
		// grow it every few jobs.
		d.held, d.gone = d.held[:copy(d.held, d.held[d.gone:])], 0
	}
	num := d.numbers.Take()
	d.held = append(d.held, num)
	return num
}
