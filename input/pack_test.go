package input

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// lines is a LineReader over fixed lines, each counting as one input line.
type lines [][]string

func (l *lines) ReadLine() ([]string, int, error) {
	if len(*l) == 0 {
		return nil, 0, io.EOF
	}
	items := (*l)[0]
	*l = (*l)[1:]
	return items, 1, nil
}

// packAll returns the items a Packer builds and the error that ended it.
func packAll(p *Packer) ([][]string, error) {
	var out [][]string
	for {
		args, err := p.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, args)
	}
}

func TestPackerSizes(t *testing.T) {
	in := func() *lines { return &lines{{"a", "b", "c", "d", "e"}, {"ff", "g"}} }
	tests := []struct {
		name string
		p    *Packer
		want [][]string
		err  error
	}{
		// xargs counts each argument's length plus one: base 5 ("echo\0"),
		// limit 11 leaves room for three one-letter items.
		{"limit", &Packer{Limit: 11, Base: 5}, [][]string{{"a", "b", "c"}, {"d", "e"}, {"ff", "g"}}, nil},
		{"exact fit", &Packer{Limit: 7, Base: 5}, [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}, ErrArgTooLong},
		{"no room", &Packer{Limit: 6, Base: 5}, nil, ErrArgTooLong},
		{"-n", &Packer{MaxArgs: 2}, [][]string{{"a", "b"}, {"c", "d"}, {"e", "ff"}, {"g"}}, nil},
		{"-L", &Packer{MaxLines: 1}, [][]string{{"a", "b", "c", "d", "e"}, {"ff", "g"}}, nil},
		{"-L beyond -s splits", &Packer{MaxLines: 1, Limit: 11, Base: 5}, [][]string{{"a", "b", "c"}, {"d", "e"}, {"ff", "g"}}, nil},
		{"-x -L beyond -s fails", &Packer{MaxLines: 1, Limit: 11, Base: 5, Exact: true}, nil, ErrListTooLong},
		{"-x without -n or -L packs", &Packer{Limit: 11, Base: 5, Exact: true}, [][]string{{"a", "b", "c"}, {"d", "e"}, {"ff", "g"}}, nil},
		// the kernel's count: a pointer per argument
		{"longest item", &Packer{MaxItem: 1}, [][]string{{"a", "b", "c", "d", "e"}}, ErrItemTooLong},
		{"hard limit", &Packer{Base: 5, Hard: 5 + 3*10 + 1, PerArg: 8}, [][]string{{"a", "b", "c"}, {"d", "e", "ff"}, {"g"}}, nil},
		{"cost", &Packer{Limit: 10, Cost: func(a string, first bool) int {
			if first {
				return len(a)
			}
			return len(a) + 1
		}}, [][]string{{"a", "b", "c", "d", "e"}, {"ff", "g"}}, nil},
	}
	for _, tt := range tests {
		p := tt.p
		p.Lines = in()
		got, err := packAll(p)
		if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPackerRunEmpty(t *testing.T) {
	for _, runEmpty := range []bool{false, true} {
		p := &Packer{Lines: &lines{}, RunEmpty: runEmpty}
		got, err := packAll(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := 0; runEmpty {
			if len(got) != 1 || len(got[0]) != 0 {
				t.Errorf("RunEmpty: %q, want one item with no arguments", got)
			}
		} else if len(got) != want {
			t.Errorf("empty input: %q, want nothing", got)
		}
	}
}

// TestPackerQuoteError: the items read before an unmatched quote still run,
// as in xargs, unless -x or -I ask for all or nothing.
func TestPackerQuoteError(t *testing.T) {
	for _, tt := range []struct {
		p    *Packer
		want [][]string
	}{
		{&Packer{}, [][]string{{"a", "b"}}},
		{&Packer{MaxArgs: 1}, [][]string{{"a"}, {"b"}}},
		{&Packer{MaxArgs: 3, Exact: true}, nil},
	} {
		s := NewXargsSplitter(strings.NewReader("a b 'c\n"))
		p := tt.p
		p.Lines = s
		got, err := packAll(p)
		var qe *QuoteError
		if !errors.As(err, &qe) {
			t.Errorf("%+v: error %v, want an unmatched quote", tt.p, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestPackerWhole is -I: one line per item, never packed.
func TestPackerWhole(t *testing.T) {
	s := NewXargsSplitter(strings.NewReader(" a b \n\nc\n"))
	s.Lines = true
	got, err := packAll(&Packer{Lines: s, Whole: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"a b "}, {"c"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	s = NewXargsSplitter(strings.NewReader("abcdef\n"))
	s.Lines = true
	if _, err := packAll(&Packer{Lines: s, Whole: true, Limit: 5}); !errors.Is(err, ErrArgTooLong) {
		t.Errorf("a line beyond -s: %v, want ErrArgTooLong", err)
	}
}

// TestReaderPacksRecords: without Lines the packer takes the reader's
// records; a record ending with a blank goes on with the next (-L).
func TestReaderPacksRecords(t *testing.T) {
	r := &Reader{
		Sources: []Source{NewSplitter(strings.NewReader("a \nb\nc\nd\n"), []byte("\n"))},
		Pack:    &Packer{MaxLines: 2},
	}
	var got [][]string
	for {
		it, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if it.Seq != int64(len(got)+1) {
			t.Errorf("item %q numbered %d", it.Args, it.Seq)
		}
		got = append(got, it.Args)
	}
	if want := [][]string{{"a b", "c"}, {"d"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// Spread splits the item the input ends in over the job slots, as GNU
// parallel's -X and -m do with -j above 1 (the figures are parallel's own,
// checked with seq N | parallel -jJ -m -k echo).
func TestPackerSpread(t *testing.T) {
	seq := func(n int) *lines {
		l := lines{}
		for i := 1; i <= n; i++ {
			l = append(l, []string{strings.Repeat("x", i%2+1)})
		}
		return &l
	}
	sizes := func(items [][]string) []int {
		var n []int
		for _, it := range items {
			n = append(n, len(it))
		}
		return n
	}
	tests := []struct {
		name string
		in   *lines
		p    *Packer
		want []int
	}{
		{"10 over 4 slots", seq(10), &Packer{Spread: 4}, []int{3, 3, 3, 1}},
		{"30 over 4 slots", seq(30), &Packer{Spread: 4}, []int{8, 8, 8, 6}},
		{"fewer items than slots", seq(3), &Packer{Spread: 4}, []int{1, 1, 1}},
		{"one slot packs", seq(10), &Packer{Spread: 1}, []int{10}},
		// -n 2: the last pair was full before the input was seen to end,
		// and is still spread (the packer reads ahead to know)
		{"-n full at the end", seq(8), &Packer{Spread: 3, MaxArgs: 2}, []int{2, 2, 2, 1, 1}},
		{"-L full at the end", seq(6), &Packer{Spread: 2, MaxLines: 2}, []int{2, 2, 1, 1}},
		// the input ended in an item of one: nothing to spread
		{"a single last item", seq(9), &Packer{Spread: 3, MaxArgs: 2}, []int{2, 2, 2, 2, 1}},
		// the size limit closed the pair before 9 came; 9 alone is last
		{"closed by size", seq(9), &Packer{Spread: 3, Limit: 7, Base: 1}, []int{2, 2, 2, 2, 1}},
		{"empty input", &lines{}, &Packer{Spread: 4}, nil},
	}
	for _, tt := range tests {
		tt.p.Lines = tt.in
		got, err := packAll(tt.p)
		if err != nil || !reflect.DeepEqual(sizes(got), tt.want) {
			t.Errorf("%s: items of %v (%v), want %v", tt.name, sizes(got), err, tt.want)
		}
	}
}

// With --colsep a record is several arguments; Spread splits between
// records, as GNU parallel (which runs "a b c d" and "e f g h" for
// printf 'a,b\nc,d\ne,f\ng,h\n' | parallel -j3 -m --colsep , echo).
func TestPackerSpreadRecords(t *testing.T) {
	in := &lines{{"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}}
	got, err := packAll(&Packer{Lines: in, Spread: 3})
	want := [][]string{{"a", "b", "c", "d"}, {"e", "f", "g", "h"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
}

// With CountRecords, -n counts records, not the arguments --colsep makes
// of them (GNU parallel: a b c d, then e f).
func TestPackerCountRecords(t *testing.T) {
	in := &lines{{"a", "b"}, {"c", "d"}, {"e", "f"}}
	got, err := packAll(&Packer{Lines: in, MaxArgs: 2, CountRecords: true})
	want := [][]string{{"a", "b", "c", "d"}, {"e", "f"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
}

// blockingLines yields its lines, then blocks until release is closed
// before it reports the end of the input.
type blockingLines struct {
	lines
	reading chan struct{} // closed when the blocking read begins
	release chan struct{}
}

func (b *blockingLines) ReadLine() ([]string, int, error) {
	if len(b.lines) == 0 {
		close(b.reading)
		<-b.release
		return nil, 0, io.EOF
	}
	return b.lines.ReadLine()
}

// Abandon, called while Next is blocked reading, gives up what was read
// and not handed out (here the item being packed), and Next then reports
// ErrStopped.
func TestPackerAbandon(t *testing.T) {
	in := &blockingLines{lines: lines{{"1"}, {"2"}, {"3"}}, reading: make(chan struct{}), release: make(chan struct{})}
	p := &Packer{Lines: in, MaxArgs: 2, Spread: 4}
	first, err := p.Next()
	if err != nil || !reflect.DeepEqual(first, []string{"1", "2"}) {
		t.Fatalf("first item %q (%v), want [1 2]", first, err)
	}
	done := make(chan error)
	go func() {
		_, err := p.Next()
		done <- err
	}()
	<-in.reading
	if got := p.Abandon(); !reflect.DeepEqual(got, [][]string{{"3"}}) {
		t.Errorf("Abandon gave %q, want [[3]]", got)
	}
	close(in.release)
	if err := <-done; !errors.Is(err, ErrStopped) {
		t.Errorf("Next after Abandon: %v, want ErrStopped", err)
	}
}
