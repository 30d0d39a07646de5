package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

// blocksOf cuts input and returns each block's data as a string.
func blocksOf(t *testing.T, input string, size int64, rec Records) (header string, blocks []string) {
	t.Helper()
	h, bs, err := splitBlocks(t, strings.NewReader(input), size, rec)
	if err != io.EOF {
		t.Fatalf("Next: %v", err)
	}
	for _, b := range bs {
		blocks = append(blocks, string(b))
	}
	return string(h), blocks
}

func TestBlockSplitter(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		size   int64
		rec    Records
		header string
		want   []string
	}{
		{name: "empty", input: "", size: 4},
		{name: "lines", input: "a\nb\nc\nd\n", size: 4, want: []string{"a\nb\n", "c\nd\n"}},
		{name: "cut at the last line end", input: "a\nbb\nc\n", size: 4, want: []string{"a\n", "bb\n", "c\n"}},
		{name: "no final newline", input: "a\nb\nc", size: 4, want: []string{"a\nb\n", "c"}},
		{name: "last block is the rest", input: "a\nbcd", size: 4, want: []string{"a\n", "bcd"}},
		{name: "one block", input: "a\nb\n", size: DefaultBlockSize, want: []string{"a\nb\n"}},
		{name: "default size", input: "a\nb\n", want: []string{"a\nb\n"}},
		{name: "no record end at all", input: "abcdefghij", size: 3, want: []string{"abcdefghij"}},
		// The 6-byte record makes the block 4*1.3+1 = 6.2, so 7, bytes
		// for good: the rest fits one block.
		{name: "long record grows the block", input: "a\nbbbbb\nc\nd\ne\n", size: 4, want: []string{"a\n", "bbbbb\n", "c\nd\ne\n"}},
		{name: "header", input: "h\n1\n2\n3\n", size: 4, rec: Records{Header: ":"}, header: "h\n", want: []string{"1\n2\n", "3\n"}},
		{name: "header only", input: "h\n", size: 4, rec: Records{Header: ":"}, header: "h\n"},
		{name: "header never matches", input: "abc", size: 4, rec: Records{Header: ":"}, want: []string{"abc"}},
		{name: "header of 2 lines", input: "a\nb\nc\n", size: 4, rec: Records{Header: "2"}, header: "a\nb\n", want: []string{"c\n"}},
		{name: "header 0 is none", input: "a\nb\n", size: 4, rec: Records{Header: "0"}, want: []string{"a\nb\n"}},
		{name: "N", input: "1\n2\n3\n4\n5\n", size: 100, rec: Records{N: 2}, want: []string{"1\n2\n", "3\n4\n", "5\n"}},
		{name: "N with header", input: "H\n1\n2\n3\n", size: 100, rec: Records{Header: ":", N: 2}, header: "H\n", want: []string{"1\n2\n", "3\n"}},
		{name: "N larger than the block", input: "11\n22\n33\n", size: 2, rec: Records{N: 2}, want: []string{"11\n22\n", "33\n"}},
		{name: "L", input: "1\n2\n3\n4\n5\n6\n7", size: 5, rec: Records{L: 2}, want: []string{"1\n2\n", "3\n4\n", "5\n6\n", "7"}},
		{name: "L and N", input: "1\n2\n3\n4\n5\n6\n7\n", size: 100, rec: Records{L: 2, N: 2}, want: []string{"1\n2\n3\n4\n", "5\n6\n7\n"}},
		{name: "recstart alone cuts anywhere before it", input: "xx@a\n@b\n@c\n", size: 100, rec: Records{Start: "@", StartSet: true, N: 2}, want: []string{"xx@a\n", "@b\n@c\n"}},
		{name: "recstart and recend", input: "@a\nb@\n@c\n", size: 6, rec: Records{Start: "@", StartSet: true, End: `\n`, EndSet: true}, want: []string{"@a\nb@\n", "@c\n"}},
		{name: "recend escapes", input: "a\tb\tc", size: 3, rec: Records{End: `\t`, EndSet: true}, want: []string{"a\t", "b\t", "c"}},
		{name: "recend empty cuts anywhere", input: "abcdefg", size: 3, rec: Records{End: "", EndSet: true}, want: []string{"abc", "def", "g"}},
		{name: "regexp recstart", input: "a\n>b\nc\n>d\ne\n", size: 6, rec: Records{Regexp: true, Start: "^>", StartSet: true}, want: []string{"a\n", ">b\nc\n", ">d\ne\n"}},
		{name: "regexp junk before the first record", input: "xx\n@a\n@b\n@c\n", size: 100, rec: Records{Regexp: true, Start: "^@", StartSet: true, N: 2}, want: []string{"xx\n", "@a\n@b\n", "@c\n"}},
		{name: "regexp recend empty is any byte", input: "abcdef", size: 4, rec: Records{Regexp: true, EndSet: true}, want: []string{"abcd", "ef"}},
		{name: "binary", input: "\x00\xff\n\x80\n", size: 3, want: []string{"\x00\xff\n", "\x80\n"}},
		{name: "crlf kept", input: "a\r\nb\r\n", size: 4, want: []string{"a\r\n", "b\r\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header, got := blocksOf(t, tt.input, tt.size, tt.rec)
			if header != tt.header || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("header %q blocks %q, want header %q blocks %q", header, got, tt.header, tt.want)
			}
		})
	}
}

// TestBlockSplitterCountsEmptyRecords: with -N, fan counts an empty
// record (a blank line) as a record wherever it is. GNU parallel merges
// one at the start of a block with the next record (it looks for the
// first record end from the block's second byte); fan does not copy that.
func TestBlockSplitterCountsEmptyRecords(t *testing.T) {
	const input = "a\n\nb\n\n\nc\n"
	fan := []string{"a\n", "\n", "b\n", "\n", "\n", "c\n"}
	gnu := []string{"a\n", "\nb\n", "\n\n", "c\n"}
	_, got := blocksOf(t, input, 100, Records{N: 1})
	if strings.Join(got, "|") != strings.Join(fan, "|") {
		t.Errorf("-N1 over %q: blocks %q, want %q", input, got, fan)
	}
	checkParallelDiffers(t, input, []string{"-N", "1"}, gnu)
}

// TestBlockSplitterNull: fan's -0 makes records end at NUL. GNU parallel
// ignores -0 in pipe mode (its records still end at "\n"); --recend '\0'
// is what it takes to get NUL records there.
func TestBlockSplitterNull(t *testing.T) {
	const input = "a\x00b\x00c\n"
	fan := []string{"a\x00", "b\x00", "c\n"}
	_, got := blocksOf(t, input, 100, Records{Null: true, N: 1})
	if strings.Join(got, "|") != strings.Join(fan, "|") {
		t.Errorf("-0 -N1 over %q: blocks %q, want %q", input, got, fan)
	}
	_, got = blocksOf(t, input, 100, Records{End: `\0`, EndSet: true, N: 1})
	if strings.Join(got, "|") != strings.Join(fan, "|") {
		t.Errorf("--recend '\\0' -N1 over %q: blocks %q, want %q", input, got, fan)
	}
	checkParallelDiffers(t, input, []string{"-0", "-N", "1"}, []string{input})
}

// checkParallelDiffers checks, where GNU parallel is installed, that it
// still cuts input into the blocks fan deliberately does not.
func checkParallelDiffers(t *testing.T, input string, args, gnu []string) {
	t.Helper()
	args = append([]string{"--pipe"}, args...)
	blocks, _, ok := parallelJobs(t, []byte(input), args...)
	if !ok {
		t.Log("GNU parallel is not installed: its behaviour is not checked")
		return
	}
	var got []string
	for _, b := range blocks {
		got = append(got, string(b))
	}
	if strings.Join(got, "|") != strings.Join(gnu, "|") {
		t.Errorf("GNU parallel %q now gives %q (was %q): see whether fan should still differ", args, got, gnu)
	}
}

func TestBlockSplitterOnGrow(t *testing.T) {
	s, err := NewBlockSplitter(strings.NewReader("a\n"+strings.Repeat("b", 20)+"\nc\n"), 4, Records{})
	if err != nil {
		t.Fatal(err)
	}
	var grew [][2]int64
	s.OnGrow = func(from, to int64) { grew = append(grew, [2]int64{from, to}) }
	for {
		if _, err := s.Next(); err != nil {
			break
		}
	}
	want := [][2]int64{{4, 7}, {7, 11}, {11, 16}, {16, 22}} // as GNU parallel warns
	if len(grew) != len(want) {
		t.Fatalf("grew %v, want %v", grew, want)
	}
	for i := range want {
		if grew[i] != want[i] {
			t.Fatalf("grew %v, want %v", grew, want)
		}
	}
}

func TestBlockSplitterOffsets(t *testing.T) {
	s, err := NewBlockSplitter(strings.NewReader("h\n1\n22\n333\n"), 5, Records{Header: ":"})
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for {
		b, err := s.Next()
		if err != nil {
			break
		}
		offs = append(offs, b.Offset)
		if b.Len() != int64(len(b.Header)+len(b.Data)) {
			t.Errorf("block %d: Len %d", b.Seq, b.Len())
		}
	}
	if want := []int64{2, 7}; len(offs) != 2 || offs[0] != want[0] || offs[1] != want[1] {
		t.Errorf("offsets %v, want %v", offs, want)
	}
}

// TestBlockSplitterReadError: the bytes read before a read error come out
// in blocks, then the error, which Next keeps returning.
func TestBlockSplitterReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\nb\nc"), iotest.ErrReader(boom))
	_, blocks, err := splitBlocks(t, r, 3, Records{})
	if err != boom {
		t.Fatalf("error %v, want %v", err, boom)
	}
	if got := string(bytes.Join(blocks, []byte("|"))); got != "a\n|b\n|c" {
		t.Errorf("blocks %q", got)
	}
}

// TestBlockSplitterGate: a closed Gate ends the input with ErrStopped,
// after the blocks of what was read (the last may end within a record);
// what was not read stays in the pipe.
func TestBlockSplitterGate(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	g := NewGate(pr)
	s, err := NewBlockSplitter(g, 4, Records{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pw.WriteString("a\nb\nc"); err != nil {
		t.Fatal(err)
	}
	b, err := s.Next()
	if err != nil || string(b.Data) != "a\nb\n" {
		t.Fatalf("Next: %v, %+v", err, b)
	}
	// The next block waits for 3 more bytes after "c": close the gate
	// while it waits.
	go func() {
		time.Sleep(50 * time.Millisecond)
		g.Close()
	}()
	b, err = s.Next()
	if err != nil || string(b.Data) != "c" {
		t.Fatalf("Next after Close: %+v, %v", b, err)
	}
	if _, err := s.Next(); err != ErrStopped {
		t.Fatalf("Next at the end: %v, want ErrStopped", err)
	}
	pw.WriteString("d\n")
	pw.Close()
	rest, _ := io.ReadAll(pr)
	if string(rest) != "d\n" {
		t.Errorf("left in the pipe: %q, want %q", rest, "d\n")
	}
}

// TestBlockSplitterKeepsUnreleasedBlocks: blocks not yet released keep
// their bytes while later blocks are read (buffers are reused only after
// Release), under -N (many blocks per buffer) and without.
func TestBlockSplitterKeepsUnreleasedBlocks(t *testing.T) {
	var in strings.Builder
	for i := range 2000 {
		in.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i%13) + "\n")
	}
	for _, rec := range []Records{{}, {N: 3}, {L: 2}} {
		_, want := modelBlocks(t, []byte(in.String()), 100, rec)
		s, err := NewBlockSplitter(strings.NewReader(in.String()), 100, rec)
		if err != nil {
			t.Fatal(err)
		}
		var held []*Block
		for i := 0; ; i++ {
			b, err := s.Next()
			if err != nil {
				break
			}
			held = append(held, b)
			if i%3 == 0 { // release some, in another order than read
				held[len(held)/2].Release()
				held = append(held[:len(held)/2], held[len(held)/2+1:]...)
			}
			for _, h := range held {
				if !bytes.Equal(h.Data, want[h.Seq-1]) {
					t.Fatalf("%+v: block %d changed to %q, was %q", rec, h.Seq, h.Data, want[h.Seq-1])
				}
			}
		}
	}
}

// TestBlockSplitterConcurrentRelease: blocks handed to other goroutines,
// read and released there while the splitter reads on (go test -race).
func TestBlockSplitterConcurrentRelease(t *testing.T) {
	in := []byte(strings.Repeat("0123456789abcdef\n", 20000))
	for _, rec := range []Records{{}, {N: 5}} {
		_, want := modelBlocks(t, in, 1000, rec)
		s, err := NewBlockSplitter(bytes.NewReader(in), 1000, rec)
		if err != nil {
			t.Fatal(err)
		}
		blocks := make(chan *Block, 4)
		bad := make(chan string, 1)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for b := range blocks {
					if !bytes.Equal(b.Data, want[b.Seq-1]) {
						select {
						case bad <- fmt.Sprintf("block %d is %q, want %q", b.Seq, b.Data, want[b.Seq-1]):
						default:
						}
					}
					b.Release()
				}
			})
		}
		for {
			b, err := s.Next()
			if err != nil {
				break
			}
			blocks <- b
		}
		close(blocks)
		wg.Wait()
		select {
		case msg := <-bad:
			t.Errorf("%+v: %s", rec, msg)
		default:
		}
	}
}

func TestBlockReader(t *testing.T) {
	b := &Block{Header: []byte("h\n"), Data: []byte("1\n2\n")}
	for range 2 { // each Reader starts again
		var out bytes.Buffer
		n, err := io.Copy(&out, b.Reader())
		if err != nil || n != 6 || out.String() != "h\n1\n2\n" {
			t.Fatalf("io.Copy: %d, %v, %q", n, err, out.String())
		}
	}
	got, err := io.ReadAll(iotest.OneByteReader(b.Reader()))
	if err != nil || string(got) != "h\n1\n2\n" {
		t.Fatalf("ReadAll: %q, %v", got, err)
	}
	b.Release() // a block without a buffer: nothing to do
}

func TestNewBlockSplitterErrors(t *testing.T) {
	tests := []struct {
		size int64
		rec  Records
		want string
	}{
		{-1, Records{}, "negative"},
		{MaxBlockSize + 1, Records{}, "more than 1T"},
		{1, Records{N: -1}, "-N"},
		{1, Records{L: -2}, "-L"},
		{1, Records{Regexp: true, Start: "(?=x)", StartSet: true}, "--recstart"},
		{1, Records{Regexp: true, End: `(a)\1`, EndSet: true}, "--recend"},
		{1, Records{Header: "(?<=x)"}, "--header"},
	}
	for _, tt := range tests {
		_, err := NewBlockSplitter(strings.NewReader(""), tt.size, tt.rec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewBlockSplitter(%d, %+v): %v, want an error about %s", tt.size, tt.rec, err, tt.want)
		}
		if tt.size > 0 && tt.size <= MaxBlockSize && tt.rec.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", tt.rec)
		}
	}
}
