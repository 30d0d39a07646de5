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
		p.batchHeld += t.r.Item.Held()
		if len(p.batch) == DryBatch || p.batchHeld >= dryBatchBytes {
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
	p.batch, p.batchHeld = make([]*Result, 0, DryBatch), 0
}

// render is a dry run's attempt of a job: its command, rendered in slot,
// in a Result the output stage gives back (Stream.Recycle). A block of
// stdin the job would have read is abandoned, as for a job that cannot
// start.
func (p *Pool) render(item *input.Item, slot Slot) *Result {
	if a, ok := item.Stdin.(input.Abandoner); ok {
		a.Abandon()
	}
	r := p.stream.dryResult()
	*r = Result{Item: *item, Slot: slot.N, Host: slot.Host, Command: p.Template.Render(item, slot.N), DryRun: true}
	return r
}
