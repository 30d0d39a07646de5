package output

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fan-run/fan/input"
)

// Whatever order the jobs end in, the failed blocks come out in input
// order, each once, as soon as every block before it has ended, and
// byte for byte, though those that waited were moved out of their
// buffers.
func TestBlockOrderWritesInInputOrder(t *testing.T) {
	for run := range 50 {
		rnd := rand.New(rand.NewPCG(uint64(run), 7))
		n := 1 + rnd.IntN(300)
		failed := map[int64]bool{}
		ends := rnd.Perm(n)
		o := newBlockOrder(t.TempDir())
		var got []int64
		known := map[int64]bool{}
		for _, i := range ends {
			seq := int64(i + 1)
			known[seq] = true
			var wb waitingBlock
			if rnd.IntN(3) == 0 {
				failed[seq] = true
				wb.block = &input.Block{Seq: seq, Data: []byte(fmt.Sprintf("%d\n", seq))}
				wb.rec.Seq = seq
			}
			for _, w := range o.end(seq, wb) {
				for s := int64(1); s < w.rec.Seq; s++ {
					if !known[s] {
						t.Fatalf("run %d: block %d was written before block %d ended", run, w.rec.Seq, s)
					}
				}
				var body bytes.Buffer
				w.block.WriteBody(&body)
				if body.String() != fmt.Sprintf("%d\n", w.rec.Seq) {
					t.Fatalf("run %d: block %d reads back %q", run, w.rec.Seq, body.String())
				}
				got = append(got, w.rec.Seq)
			}
		}
		if rest := o.rest(); len(rest) > 0 {
			t.Fatalf("run %d: %d blocks still wait after every block ended", run, len(rest))
		}
		var want []int64
		for s := int64(1); s <= int64(n); s++ {
			if failed[s] {
				want = append(want, s)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("run %d: blocks written %v, want %v", run, got, want)
		}
		o.hold.Close()
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
