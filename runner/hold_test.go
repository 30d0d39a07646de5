package runner

import (
	"context"
	"testing"
	"time"
)

func TestHoldHoldsStartsWhileTwoJobsWaitOverTheLimit(t *testing.T) {
	h := &hold{limit: 100}
	h.add(500) // one job alone, however large, holds nothing back
	if h.over() {
		t.Fatal("one job's output held starts back")
	}
	h.add(10)
	if !h.over() {
		t.Fatal("two jobs with 510 bytes over a limit of 100 did not hold starts back")
	}
	started := make(chan bool)
	go func() { started <- h.wait(context.Background()) }()
	select {
	case <-started:
		t.Fatal("a start went ahead while the hold was full")
	case <-time.After(50 * time.Millisecond):
	}
	h.release(500)
	select {
	case ok := <-started:
		if !ok {
			t.Fatal("wait failed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writing the output did not let the start go ahead")
	}
}

func TestHoldWaitEndsWithItsContext(t *testing.T) {
	h := &hold{limit: 1}
	h.add(5)
	h.add(5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if h.wait(ctx) {
		t.Fatal("wait succeeded on an ended context")
	}
}

func TestHoldWithoutLimitNeverHolds(t *testing.T) {
	h := &hold{}
	for range 10 {
		h.add(1 << 30)
	}
	if h.over() || !h.wait(context.Background()) {
		t.Fatal("a hold without a limit held starts back")
	}
	h.release(0) // a result without output: nothing to uncount
}
