package runner

import (
	"context"
	"time"

	"github.com/fan-run/fan/input"
)

// job is an item the pool has taken to run: its place in input order, and
// whether it holds a place in the -k window.
type job struct {
	item   input.Item
	ticket int64
	held   bool
}

// attempts runs a job, and again while it fails and retries are left, and
// delivers its Result. Its slot is given back between attempts, so a job
// waiting to retry does not keep other items from running. The output of
// failed attempts is dropped: only the last attempt's is kept (a job
// whose retry a drain or halt cancels is handed on with none). The first
// attempt runs in slot, starting at start (see pacer), and runs shown,
// the command -t has printed, when that is set; a retry takes a slot and a
// start of its own, and is rendered and announced when it starts.
//
// An attempt that never reached the job (a TransportError: its host could
// not be reached), or that --memfree ended to free memory, is run again,
// in whatever slot comes free, and spends no retry: the job has not
// failed.
func (p *Pool) attempts(ctx context.Context, j *job, slot Slot, start time.Time, shown *prepared) {
	for attempt := 1; ; {
		r := p.run(ctx, &j.item, slot, start, shown, p.direct(j, attempt, slot))
		r.Attempts = attempt
		lost := r.Evicted || IsTransport(r.Err)
		if !lost && (r.OK() || r.DryRun || r.NotStarted || attempt >= p.Retries) || p.intake.Err() != nil {
			if lost && r.NotStarted {
				r.Err = nil // it never ran, and the run is stopping
			}
			// Before the slot is free, so that no new job slips in past a
			// halt, and results arrive in the order the jobs ended (with
			// -j1, input order).
			p.finish(j, r)
			p.slots.Put(slot)
			return
		}
		p.slots.Put(slot)
		// What the attempt wrote is dropped now, not once the retry
		// starts: a job waiting for its retry holds no slot, so nothing
		// bounds how many wait, and none may hold a descriptor the budget
		// (FitBudget) does not count.
		p.discard(r)
		retry := Retry{Lost: lost}
		if !lost {
			retry = Retry{Number: attempt, Of: p.Retries - 1, In: backoff(p.RetryDelay, attempt)}
			attempt++
		}
		wait := retry.In
		p.events <- Event{Kind: Retrying, Result: r, Retry: retry}
		// A retry is a new start: a drain or a halt cancels it.
		var ok bool
		if Sleep(p.intake, wait) {
			slot, ok = p.retake(slot, lost)
		}
		if !ok {
			if lost && r.NotStarted {
				// It never ran, and will not now: the run is stopping,
				// or no host is left to run it (said already).
				r.Err = nil
			}
			p.finish(j, r)
			return
		}
		start, shown = p.pace.reserve(), nil
	}
}

// retake takes a slot for a job's next attempt. One that failed on its own
// terms prefers another place than failed's, where Slots can tell
// (another host); one that never reached its host goes wherever a slot is
// free (that host takes no jobs for now).
func (p *Pool) retake(failed Slot, lost bool) (Slot, bool) {
	take := p.slots.Take
	if a, ok := p.slots.(Avoider); ok && !lost {
		take = func(ctx context.Context) (Slot, bool) { return a.TakeAvoiding(ctx, failed) }
	}
	return p.takeWith(p.intake, take)
}

// finish hands over a job's final result, once --halt has counted it and
// Finished has seen it.
func (p *Pool) finish(j *job, r *Result) {
	if b, ok := j.item.Stdin.(input.Refeedable); ok {
		switch {
		case r.OK():
			b.Release() // only a failed block is kept, for the failures file
		case p.KeepOrder && p.Hold != nil:
			r.Item.Stdin = p.Hold.Hold(b) // it may wait long behind a slow job
		}
	}
	p.checkHalt(r)
	if !r.DryRun && !r.NotStarted {
		p.ended.Add(1)
		if !r.OK() {
			p.failed.Add(1)
		}
	}
	if p.Finished != nil {
		p.Finished(r)
	}
	if r.Direct {
		p.stream.head.directEnd.Store(j.ticket + 1) // the next job may write straight to stdout too
	}
	if p.stream.hold.limit > 0 {
		p.stream.hold.add(r.held)
	} else {
		r.held = 0
	}
	p.deliver(ticketed{ticket: j.ticket, held: j.held, r: r})
}

// Done is how many jobs have ended after running, and how many of those
// failed (-j auto's measure of throughput and failures). It is safe to
// call from any goroutine.
func (p *Pool) Done() (ended, failed int64) {
	return p.ended.Load(), p.failed.Load()
}

// checkHalt counts a job's end for --halt and halts the run when that met
// the condition. A dry run, or a job a drain or halt kept from starting,
// has nothing to count.
func (p *Pool) checkHalt(r *Result) {
	if r.DryRun || r.NotStarted || p.OnHalt == nil {
		return
	}
	total := p.Total
	if total == nil {
		total = p.taken.Load
	}
	if h := p.halter.finished(r, total); h != nil {
		p.OnHalt(h)
	}
}
