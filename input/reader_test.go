package input

import (
	"context"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func lists(ls ...string) []Source {
	var srcs []Source
	for _, l := range ls {
		srcs = append(srcs, NewList(strings.Fields(l)))
	}
	return srcs
}

// readItems runs r to the end and returns the Args of its items, checking
// that they are numbered 1, 2, 3 ... in order.
func readItems(t *testing.T, r *Reader) [][]string {
	t.Helper()
	out := make(chan Item)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background(), out) }()
	var got [][]string
	for item := range out {
		if item.Seq != int64(len(got)+1) {
			t.Errorf("item %d has Seq %d", len(got)+1, item.Seq)
		}
		got = append(got, item.Args)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	return got
}

func fields(rows ...string) [][]string {
	var out [][]string
	for _, r := range rows {
		out = append(out, strings.Fields(r))
	}
	return out
}

func TestTuples(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *Reader
		want [][]string
	}{
		{"single", &Reader{Sources: lists("a b c")}, fields("a", "b", "c")},
		{"product, first slowest", &Reader{Sources: lists("a b", "1 2 3")}, fields("a 1", "a 2", "a 3", "b 1", "b 2", "b 3")},
		{"product of three", &Reader{Sources: lists("a b", "1 2", "x y")},
			fields("a 1 x", "a 1 y", "a 2 x", "a 2 y", "b 1 x", "b 1 y", "b 2 x", "b 2 y")},
		{"product with an empty source", &Reader{Sources: lists("a b", "")}, nil},
		{"product with an empty first source", &Reader{Sources: lists("", "a b")}, nil},
		{"link, shorter wraps", &Reader{Sources: lists("a b c", "1 2"), Link: true}, fields("a 1", "b 2", "c 1")},
		{"link, first shorter", &Reader{Sources: lists("a", "1 2 3"), Link: true}, fields("a 1", "a 2", "a 3")},
		{"link of three", &Reader{Sources: lists("a b", "1 2 3 4", "x"), Link: true}, fields("a 1 x", "b 2 x", "a 3 x", "b 4 x")},
		{"link with an empty source", &Reader{Sources: lists("a b", ""), Link: true}, nil},
		{":::+ zips, ending with the shorter", &Reader{Sources: lists("a b c", "1 2"), Linked: []bool{false, true}}, fields("a 1", "b 2")},
		{":::+ zip, then a product", &Reader{Sources: lists("a b", "1 2", "x y"), Linked: []bool{false, true, false}},
			fields("a 1 x", "a 1 y", "b 2 x", "b 2 y")},
		{"a product, then a :::+ zip", &Reader{Sources: lists("x y", "a b", "1 2 3"), Linked: []bool{false, false, true}},
			fields("x a 1", "x b 2", "y a 1", "y b 2")},
		{":::+ with an empty source", &Reader{Sources: lists("x", "a b", ""), Linked: []bool{false, false, true}}, nil},
		{"--link over :::+", &Reader{Sources: lists("a b c", "1 2"), Link: true, Linked: []bool{false, true}}, fields("a 1", "b 2", "c 1")},
		{"batches", &Reader{Sources: lists("a b c d e"), MaxArgs: 2}, fields("a b", "c d", "e")},
		{"batches of products", &Reader{Sources: lists("a b", "1 2"), MaxArgs: 2}, fields("a 1 a 2", "b 1 b 2")},
		{"batches of links", &Reader{Sources: lists("a b c", "1 2 3"), Link: true, MaxArgs: 2}, fields("a 1 b 2", "c 3")},
		{"no args (-n 0)", &Reader{Sources: lists("a b", "1"), NoArgs: true}, [][]string{nil, nil}},
		{"skip blank", &Reader{Sources: []Source{NewList([]string{"a", "", " \t", "b"})}, SkipBlank: true}, fields("a", "b")},
		{"keep blank", &Reader{Sources: []Source{NewList([]string{"a", ""})}}, [][]string{{"a"}, {""}}},
		{"columns", &Reader{Sources: []Source{NewList([]string{"a,b", "c,,d"})}, Colsep: regexp.MustCompile(",")},
			[][]string{{"a", "b"}, {"c", "", "d"}}},
		{"columns of products, batched", &Reader{Sources: []Source{NewList([]string{"a,b"}), NewList([]string{"1", "2"})},
			Colsep: regexp.MustCompile(","), MaxArgs: 2}, fields("a b 1 a b 2")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := readItems(t, c.r); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestRecordsKeptRaw(t *testing.T) {
	r := &Reader{Sources: []Source{NewList([]string{"a,b", "c"}), NewList([]string{"1"})}, Colsep: regexp.MustCompile(","), MaxArgs: 2}
	out := make(chan Item, 4)
	if err := r.Run(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	item := <-out
	if !reflect.DeepEqual(item.Records, []string{"a,b", "1", "c", "1"}) {
		t.Errorf("Records %q", item.Records)
	}
}

// TestReaderStreams: an item is sent as soon as its record is complete,
// while the input is still open, and in order.
func TestReaderStreams(t *testing.T) {
	pr, pw := io.Pipe()
	r := &Reader{Sources: []Source{NewSplitter(pr, []byte("\n"))}}
	out := make(chan Item)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background(), out) }()
	for i, rec := range []string{"first", "second", "third"} {
		go pw.Write([]byte(rec + "\n"))
		select {
		case item := <-out:
			if item.Seq != int64(i+1) || item.Args[0] != rec {
				t.Fatalf("item %d: %d %q, want %q", i+1, item.Seq, item.Args, rec)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("item %q not sent while the input is open", rec)
		}
	}
	pw.Close()
	if _, ok := <-out; ok {
		t.Fatal("an item after the end of input")
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// endless yields "y\n" forever and counts the bytes read from it.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "y\n"[(e.n+i)%2]
	}
	e.n += len(p)
	return len(p), nil
}

// TestReaderBounded: on endless input the reader reads only a buffer ahead
// of what has been taken from it (yes | fan runs in flat memory), and when
// it is stopped, through its gate or without one, it reads no further.
func TestReaderBounded(t *testing.T) {
	for _, gated := range []bool{false, true} {
		src := &endless{}
		var r *Reader
		if gated {
			g := NewGate(src)
			r = &Reader{Sources: []Source{NewSplitter(g, []byte("\n"))}, Gates: []Closer{g}}
		} else {
			r = &Reader{Sources: []Source{NewSplitter(src, []byte("\n"))}}
		}
		readerBounded(t, r, src)
	}
}

func readerBounded(t *testing.T, r *Reader, src *endless) {
	t.Helper()
	out := make(chan Item, 8)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx, out) }()
	for i := 0; i < 1000; i++ {
		<-out
	}
	time.Sleep(100 * time.Millisecond) // let it run ahead as far as it can
	cancel()
	for range out {
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if max := 2000 + 2*readBufSize; src.n > max {
		t.Fatalf("read %d bytes for 1000 items of 2 bytes, want at most %d", src.n, max)
	}
}

// TestReaderReadError: a read error ends the run with that error.
func TestReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := &Reader{Sources: []Source{NewSplitter(io.MultiReader(strings.NewReader("a\n"), errReader{boom}), []byte("\n"))}}
	out := make(chan Item, 4)
	if err := r.Run(context.Background(), out); !errors.Is(err, boom) {
		t.Fatalf("Run: %v, want boom", err)
	}
	if item := <-out; item.Args[0] != "a" {
		t.Fatalf("first item %q", item.Args)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestReaderStopsLists: a drain stops ::: lists where they are, and every
// record taken from them goes out in an item (to be counted as not
// started): with or without packing, in batches (-n), and with --link,
// where the stop may cut a tuple or a batch short. None is read and then
// dropped.
func TestReaderStopsLists(t *testing.T) {
	recs := strings.Fields(strings.Repeat("a b c d e f g h i j ", 100))
	for _, c := range []struct {
		name    string
		sources int
		maxArgs int
		pack    bool
	}{
		{"one item a job", 1, 0, false},
		{"-n 3", 1, 3, false},
		{"packed", 1, 0, true},
		{"--link", 2, 0, false},
		{"--link -n 3", 2, 3, false},
	} {
		for round := 0; round < 50; round++ {
			var srcs []Source
			var gates []Closer
			var ls []*List
			for range c.sources {
				l := NewList(recs)
				srcs, gates, ls = append(srcs, l), append(gates, l), append(ls, l)
			}
			r := &Reader{Sources: srcs, Gates: gates, Link: true, MaxArgs: c.maxArgs}
			if c.pack {
				r.Pack = &Packer{MaxArgs: 3, Spread: 2}
			}
			got := stopAfter(t, r, 3)
			var want []string // the records taken, as the tuples interleave them
			for k := 0; k < len(recs); k++ {
				for _, l := range ls {
					if k < l.i {
						want = append(want, recs[k])
					}
				}
			}
			if len(want) == len(recs)*c.sources {
				t.Fatalf("%s: the lists were read to their end after the drain", c.name)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %d records taken from the lists, %d went out", c.name, len(want), len(got))
			}
		}
	}
}

// stopAfter runs r, cancels it once n items have come out, and returns the
// records of every item that came out, checking that they are numbered 1,
// 2, 3 ... and that Run reports the cancellation.
func stopAfter(t *testing.T, r *Reader, n int64) []string {
	t.Helper()
	out := make(chan Item)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx, out) }()
	var got []string
	var seq int64
	for item := range out {
		if seq++; item.Seq != seq {
			t.Fatalf("item %d has Seq %d", seq, item.Seq)
		}
		got = append(got, item.Records...)
		if seq == n {
			cancel()
		}
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	return got
}

// TestReaderLinkStopKeepsOnlyTaken: a --link tuple cut short by a drain
// gives the records read from their sources, not those repeated from a
// source that had already ended (they are not consumed input).
func TestReaderLinkStopKeepsOnlyTaken(t *testing.T) {
	for round := 0; round < 50; round++ {
		short := NewList([]string{"a"})
		long := NewList(strings.Fields(strings.Repeat("b ", 500)))
		r := &Reader{Sources: []Source{short, long}, Gates: []Closer{short, long}, Link: true}
		got := stopAfter(t, r, 3)
		if n := strings.Count(strings.Join(got, ""), "b"); n != long.i {
			t.Fatalf("%d records taken from the long source, %d went out", long.i, n)
		}
		if len(got) != 2*long.i {
			t.Fatalf("records %q: want each b with its repeated a, and nothing more", got)
		}
	}
}

// TestReaderZipStopKeepsTaken: a drain that cuts a :::+ zip short, in the
// streamed first factor or while the other factors are read whole, gives
// every record it took from the sources.
func TestReaderZipStopKeepsTaken(t *testing.T) {
	for round := 0; round < 50; round++ {
		a := NewList(strings.Fields(strings.Repeat("a ", 500)))
		b := NewList(strings.Fields(strings.Repeat("b ", 500)))
		x := NewList([]string{"x"})
		r := &Reader{Sources: []Source{a, b, x}, Gates: []Closer{a, b, x}, Linked: []bool{false, true, false}}
		got := stopAfter(t, r, 3)
		joined := strings.Join(got, "")
		if na, nb := strings.Count(joined, "a"), strings.Count(joined, "b"); na != a.i || nb != b.i {
			t.Fatalf("%d a and %d b taken, %d and %d went out", a.i, b.i, na, nb)
		}
	}
}
