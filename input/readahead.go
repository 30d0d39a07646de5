package input

import (
	"time"

	"github.com/fan-run/fan/internal/chans"
)

// read is one value read, or the error that ended reading.
type read[T any] struct {
	v   T
	err error
}

// readAhead calls next in a goroutine of its own, so that the caller can
// wait for a value and for a drain at once, and hands each result over on
// the returned channel, up to and including the first error; up to buffer
// of them wait there, so that the goroutines need not wake each other for
// every value. Once stop closes, it ends; a value read meanwhile goes to
// drop, when set.
func readAhead[T any](next func() (T, error), stop <-chan struct{}, drop func(T), buffer int) <-chan read[T] {
	ch := make(chan read[T], buffer)
	go func() {
		for {
			v, err := next()
			if !chans.Send(ch, read[T]{v, err}, stop) {
				if drop != nil && err == nil {
					drop(v)
				}
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// settle takes, after a drain closed the input's gates, what the reading
// goroutine still yields from what was read already: take gets each value
// until an error comes. When the gates wake every read (patient), that
// error is sure to come, and settle waits for it however long the loaded
// machine takes: giving up would lose items fan has taken from the input.
// Otherwise a read that was already blocked may never end, and settle
// gives up when no value comes within stopWait.
func settle[T any](ch <-chan read[T], take func(T), patient bool) {
	var timer *time.Timer
	var expired <-chan time.Time // never, when patient
	if !patient {
		timer = time.NewTimer(stopWait)
		defer timer.Stop()
		expired = timer.C
	}
	for {
		select {
		case n := <-ch:
			if n.err != nil {
				return
			}
			take(n.v)
			if timer != nil {
				timer.Reset(stopWait)
			}
		case <-expired:
			return
		}
	}
}
