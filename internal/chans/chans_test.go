package chans

import (
	"testing"
	"time"
)

// Send and Receive hand a value on when the channel is ready, wait while
// it is not, and give up once done closes, even on a ready channel.
func TestSendAndReceive(t *testing.T) {
	done := make(chan struct{})
	ch := make(chan int, 1)
	if !Send(ch, 1, done) {
		t.Fatal("Send to a channel with room did not send")
	}
	sent := make(chan bool)
	go func() { sent <- Send(ch, 2, done) }()
	select {
	case <-sent:
		t.Fatal("Send to a full channel did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	if v, ok, stopped := Receive(ch, done); v != 1 || !ok || stopped {
		t.Fatalf("Receive gave %d, %v, %v; want 1, true, false", v, ok, stopped)
	}
	if !<-sent {
		t.Fatal("a waiting Send did not send once there was room")
	}
	close(done)
	if Send(make(chan int, 1), 3, done) {
		t.Error("Send sent after done closed")
	}
	if _, ok, stopped := Receive(ch, done); ok || !stopped {
		t.Errorf("Receive took a value after done closed")
	}
	if len(ch) != 1 {
		t.Errorf("the channel holds %d values, want the 1 left", len(ch))
	}
}

// A Send or Receive that waits gives up when done closes.
func TestWaitEndsWithDone(t *testing.T) {
	done := make(chan struct{})
	go func() { time.Sleep(20 * time.Millisecond); close(done) }()
	if Send(make(chan int), 1, done) {
		t.Error("Send on a channel no one reads sent")
	}
	if _, _, stopped := Receive(make(chan int), done); !stopped {
		t.Error("Receive on a channel no one writes did not stop")
	}
	if v, ok, stopped := Receive(closedChan(), nil); v != 0 || ok || stopped {
		t.Errorf("Receive on a closed channel gave %d, %v, %v; want 0, false, false", v, ok, stopped)
	}
}

func closedChan() chan int {
	c := make(chan int)
	close(c)
	return c
}

// BenchmarkSend is the common case, a channel with room.
func BenchmarkSend(b *testing.B) {
	ch := make(chan int, 1)
	done := make(chan struct{})
	for i := range b.N {
		Send(ch, i, done)
		<-ch
	}
}

// BenchmarkSelectTwo is what Send saves: a select of two cases each time.
func BenchmarkSelectTwo(b *testing.B) {
	ch := make(chan int, 1)
	done := make(chan struct{})
	for i := range b.N {
		select {
		case ch <- i:
		case <-done:
		}
		<-ch
	}
}
