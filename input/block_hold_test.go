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
		if _, moved := got.(*heldBlock); moved != (len(want) >= holdMin) {
			t.Fatalf("block %d (%d bytes): moved to the file %v", b.Seq, len(want), moved)
		}
		if !b.released.Load() {
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

// A block too small to be worth a write is copied to memory of its own,
// so that the buffer it was cut from, shared with other blocks, is free.
func TestBlockHoldCopiesSmallBlocks(t *testing.T) {
	s, err := NewBlockSplitter(strings.NewReader("a\nb\nc\n"), 2, Records{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	h := &BlockHold{Dir: t.TempDir()}
	defer h.Close()
	got := h.Hold(b)
	own, ok := got.(*Block)
	if !ok || own == b || own.c != nil {
		t.Fatalf("a %d-byte block was not copied to memory of its own: %#v", len(b.Data), got)
	}
	if !b.released.Load() {
		t.Errorf("the block was not released once copied")
	}
	if string(own.Data) != "a\n" || own.Seq != 1 || own.Where() != 0 {
		t.Errorf("the copy is block %d at %d: %q", own.Seq, own.Where(), own.Data)
	}
}
