package output

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fan-run/fan/input"
)

// A failed block that must wait for those before it is moved out of the
// buffer it was cut from (a big one to the hold's file) and reads back
// byte for byte; one whose turn it is goes out as it is, at once; a block
// that passed lets those behind it go.
func TestBlockOrderHoldsWhatWaits(t *testing.T) {
	o := newBlockOrder(t.TempDir())
	defer o.hold.Close()
	body := map[int64][]byte{1: []byte("one\n"), 3: bytes.Repeat([]byte("three\n"), 20000), 4: []byte("four\n")}
	blocks := map[int64]*input.Block{}
	failed := func(seq int64) waitingBlock {
		blocks[seq] = &input.Block{Seq: seq, Data: bytes.Clone(body[seq])}
		return waitingBlock{block: blocks[seq], rec: failureRecord{Seq: seq}}
	}
	for _, end := range []struct {
		seq int64
		wb  waitingBlock
	}{{3, failed(3)}, {2, waitingBlock{}}, {4, failed(4)}} {
		if ready := o.end(end.seq, end.wb); len(ready) > 0 {
			t.Fatalf("block %d: %d written with block 1 not ended", end.seq, len(ready))
		}
	}
	ready := o.end(1, failed(1))
	var got []int64
	for _, w := range ready {
		got = append(got, w.rec.Seq)
		var b bytes.Buffer
		w.block.WriteBody(&b)
		if !bytes.Equal(b.Bytes(), body[w.rec.Seq]) {
			t.Errorf("block %d reads back %d bytes, want %d", w.rec.Seq, b.Len(), len(body[w.rec.Seq]))
		}
		if waited := w.rec.Seq != 1; waited == (w.block == input.Refeedable(blocks[w.rec.Seq])) {
			t.Errorf("block %d: waited %v, yet moved out of its buffer %v", w.rec.Seq, waited, !waited)
		}
	}
	if fmt.Sprint(got) != "[1 3 4]" {
		t.Fatalf("blocks written %v, want [1 3 4]", got)
	}
	if _, inMemory := ready[1].block.(*input.Block); inMemory {
		t.Errorf("a %d-byte block waited in memory, not in the hold's file", len(body[3]))
	}
	if rest := o.rest(); len(rest) > 0 {
		t.Errorf("%d blocks still wait after every block ended", len(rest))
	}
}

// A block that never ends (it cannot, but a gap must not lose what is
// behind it) leaves the later failed blocks to rest, in input order.
func TestBlockOrderRestAfterGap(t *testing.T) {
	o := newBlockOrder(t.TempDir())
	for _, seq := range []int64{4, 3} {
		if ready := o.end(seq, waitingBlock{block: &input.Block{Seq: seq}, rec: failureRecord{Seq: seq}}); len(ready) > 0 {
			t.Fatalf("block %d written with block 1 not ended", seq)
		}
	}
	o.end(1, waitingBlock{})
	var got []int64
	for _, w := range o.rest() {
		got = append(got, w.rec.Seq)
	}
	if fmt.Sprint(got) != "[3 4]" {
		t.Errorf("rest gave %v, want [3 4]", got)
	}
}
