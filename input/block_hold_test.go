package input

import (
	"bytes"
	"strings"
	"testing"
)

// A block held in the file reads back the same bytes, says the same
// offset and size, and gives its memory back to the splitter's pool.
func TestBlockHoldKeepsBytesNotMemory(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	in := "h\n" + strings.Repeat(line, 12*holdMin/100)
	s, err := NewBlockSplitter(strings.NewReader(in), 4*holdMin, Records{Header: ":"})
	if err != nil {
		t.Fatal(err)
	}
	h := &BlockHold{Dir: t.TempDir()}
	defer h.Close()
	var held []Refeedable
	var body bytes.Buffer
	for {
		b, err := s.Next()
		if err != nil {
			break
		}
		want := string(b.Data)
		got := h.Hold(b)
		if moved := got != Refeedable(b); moved != (len(want) >= holdMin) {
			t.Fatalf("block %d (%d bytes): moved to the file %v", b.Seq, len(want), moved)
		}
		if got != Refeedable(b) && !b.released.Load() {
			t.Errorf("block %d was not released once held", b.Seq)
		}
		if got.Len() != int64(len("h\n")+len(want)) || string(got.Head()) != "h\n" {
			t.Errorf("block %d: Len %d, Head %q", b.Seq, got.Len(), got.Head())
		}
		if got.Where() != int64(len("h\n")+body.Len()) {
			t.Errorf("block %d: Where %d, want %d", b.Seq, got.Where(), len("h\n")+body.Len())
		}
		body.WriteString(want)
		held = append(held, got)
	}
	if len(held) < 2 {
		t.Fatalf("%d blocks: the test wants several", len(held))
	}
	// Read back after all were written: each its own range of the file.
	var all bytes.Buffer
	for _, b := range held {
		var one bytes.Buffer
		if _, err := b.WriteTo(&one); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(one.String(), "h\n") {
			t.Errorf("a held block's stdin does not start with the header: %.10q", one.String())
		}
		b.WriteBody(&all)
	}
	if all.String() != body.String() || "h\n"+all.String() != in {
		t.Errorf("held blocks read back %d bytes, not the input's %d", all.Len(), body.Len())
	}
}

// A block too small to be worth a write stays as it is.
func TestBlockHoldLeavesSmallBlocks(t *testing.T) {
	h := &BlockHold{Dir: t.TempDir()}
	defer h.Close()
	b := &Block{Seq: 1, Data: []byte("a\n")}
	if got := h.Hold(b); got != Refeedable(b) {
		t.Errorf("a 2-byte block was moved to the file")
	}
}
