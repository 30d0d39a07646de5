// Package chans sends and receives on a channel unless a done channel
// closes first, the way the stages hand items on: the common case, a
// channel with room or a value waiting, is a single non-blocking send or
// receive, which costs far less than a select of two cases; only when
// that would block does the caller wait on both.
package chans

// Send sends v on ch and reports true, or reports false without sending
// when done is closed first. Once done is closed, Send does not send,
// even to a channel with room: a stopped stage hands nothing more on.
func Send[T any](ch chan<- T, v T, done <-chan struct{}) bool {
	select {
	case <-done:
		return false
	default:
	}
	select {
	case ch <- v:
		return true
	default:
	}
	select {
	case ch <- v:
		return true
	case <-done:
		return false
	}
}

// Receive receives from ch, as v, ok := <-ch does, with stopped false; or
// reports stopped when done is closed first. Once done is closed, Receive
// takes nothing, even from a channel that holds values.
func Receive[T any](ch <-chan T, done <-chan struct{}) (v T, ok, stopped bool) {
	select {
	case <-done:
		return v, false, true
	default:
	}
	select {
	case v, ok = <-ch:
		return v, ok, false
	default:
	}
	select {
	case v, ok = <-ch:
		return v, ok, false
	case <-done:
		return v, false, true
	}
}
