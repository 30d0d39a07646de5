package input

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// After a drain, what the reading goroutine still yields from its buffer
// is consumed input: when every read wakes on the drain, settle waits for
// it however late it comes (a loaded machine), and only otherwise gives up
// after stopWait.
func TestSettleWaitsForLateItemsWhenReadsWake(t *testing.T) {
	late := func() <-chan read[int] {
		ch := make(chan read[int])
		go func() {
			time.Sleep(stopWait + 300*time.Millisecond)
			ch <- read[int]{v: 7}
			ch <- read[int]{err: ErrStopped}
		}()
		return ch
	}
	var got []int
	settle(late(), func(v int) { got = append(got, v) }, true)
	if len(got) != 1 || got[0] != 7 {
		t.Errorf("patient settle took %v, want the late item [7]", got)
	}
	got = nil
	settle(late(), func(v int) { got = append(got, v) }, false)
	if len(got) != 0 {
		t.Errorf("impatient settle took %v after stopWait, want nothing", got)
	}
}

// A gate over a pipe or a regular file wakes its reads; one over a reader
// it cannot poll does not.
func TestGateWakes(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.CreateTemp(t.TempDir(), "items")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !wakes(NewGate(r), NewGate(f)) {
		t.Error("gates over a pipe and a regular file: reads should wake")
	}
	if wakes(NewGate(r), NewGate(struct{ io.Reader }{strings.NewReader("x")})) {
		t.Error("a gate over an unpollable reader: reads may not wake")
	}
}
