package runner

import (
	"context"

	"github.com/fan-run/fan/internal/chans"
	"github.com/fan-run/fan/internal/inorder"
)

// The -k window. Jobs run in parallel and end in any order; with KeepOrder
// their results must still come out in input order, so a result that ends
// early waits for those before it. The window bounds how many jobs may be
// started but not yet handed on: the dispatcher takes a place before it
// starts a job, and the place comes free when the job's result is handed
// to the output stage. A slow first job thus holds back at most a window
// of finished results (and their output files), whatever the input's
// length: memory and descriptors stay bounded by themselves, with no call
// back from the output stage.

// window is the places of the -k window; nil when there is no bound.
type window chan struct{}

// newWindow makes a window of n places; nil for n 0. The results that
// wait in the events channel, once handed on, are not counted: that
// channel is bounded by itself.
func newWindow(n int) window {
	if n <= 0 {
		return nil
	}
	return make(window, n)
}

// take waits for a place; it fails when ctx ends first.
func (w window) take(ctx context.Context) bool {
	return w == nil || chans.Send(w, struct{}{}, ctx.Done())
}

// give frees a place.
func (w window) give() {
	if w != nil {
		<-w
	}
}

// ticketed is a result with the place in input order of its item, and
// whether it holds a place in the window.
type ticketed struct {
	ticket int64
	held   bool
	r      *Result
}

// orderer hands results on as Finished events in the order of their
// tickets: the order the dispatcher took their items in.
type orderer struct {
	in    chan ticketed
	out   chan<- Event
	win   window
	queue inorder.Queue[ticketed]
}

func newOrderer(out chan<- Event, win window, buffered int) *orderer {
	return &orderer{in: make(chan ticketed, buffered), out: out, win: win, queue: inorder.New[ticketed](0)}
}

// run hands results on until in is closed. A result missing from the
// middle (there should be none: every item yields one) holds back the rest
// only until the end, when they go out in order rather than be dropped.
func (o *orderer) run() {
	for ended := range o.in {
		for _, t := range o.queue.End(ended.ticket, ended, true) {
			o.hand(t)
		}
	}
	for _, t := range o.queue.Rest() {
		o.hand(t)
	}
}

func (o *orderer) hand(t ticketed) {
	o.out <- Event{Kind: Finished, Result: t.r}
	if t.held {
		o.win.give()
	}
}
