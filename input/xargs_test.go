package input

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// readAllLines reads every line of an XargsSplitter: the items of each
// line, the -L line counts, and the error that ended the input (nil at the
// end of input).
func readAllLines(s *XargsSplitter) (lines [][]string, counts []int, err error) {
	for {
		items, n, err := s.ReadLine()
		if len(items) > 0 || err == nil {
			lines = append(lines, items)
			counts = append(counts, n)
		}
		if err == io.EOF {
			return lines, counts, nil
		}
		if err != nil {
			return lines, counts, err
		}
	}
}

func TestXargsSplitter(t *testing.T) {
	tests := []struct {
		in     string
		eof    string
		whole  bool
		lines  [][]string
		counts []int
		quote  byte // an unmatched quote error is expected
	}{
		{in: "", lines: nil},
		{in: " \n\t\n", lines: nil},
		{in: "a b\tc\n", lines: [][]string{{"a", "b", "c"}}, counts: []int{1}},
		{in: "a\nb", lines: [][]string{{"a"}, {"b"}}, counts: []int{1, 0}},
		{in: "a \nb\n", lines: [][]string{{"a", "b"}}, counts: []int{1}},         // a trailing blank goes on
		{in: "a\\ \nb\n", lines: [][]string{{"a "}, {"b"}}, counts: []int{0, 1}}, // an escaped one too
		{in: `"a b"c 'd"e'` + "\n", lines: [][]string{{"a bc", `d"e`}}, counts: []int{1}},
		{in: `a "" ''` + "\n", lines: [][]string{{"a", "", ""}}, counts: []int{1}},
		{in: `a ""`, lines: [][]string{{"a"}}, counts: []int{0}}, // empty quotes at the very end are dropped
		{in: "a\\\nb\n", lines: [][]string{{"a\nb"}}, counts: []int{1}},
		{in: `a\`, lines: [][]string{{"a"}}, counts: []int{0}},
		{in: "a\vb \v c\n", lines: [][]string{{"a\vb", "c"}}, counts: []int{1}},
		{in: "x\x00y z\n", lines: [][]string{{"x", "z"}}, counts: []int{1}},
		{in: "a 'b\nc\n", lines: [][]string{{"a"}}, quote: '\''},
		{in: "a\n\"b", lines: [][]string{{"a"}}, quote: '"'},
		{in: `a "`, lines: [][]string{{"a"}}, counts: []int{0}},
		{in: "a b\nEOF c\nd\n", eof: "EOF", lines: [][]string{{"a", "b"}}, counts: []int{1}},
		{in: "a EOF b\n", eof: "EOF", lines: [][]string{{"a"}}, counts: []int{0}},
		{in: `a "EOF"` + "\n", eof: "EOF", lines: [][]string{{"a"}}, counts: []int{1}},
		{in: "a EOF", eof: "EOF", lines: [][]string{{"a", "EOF"}}, counts: []int{0}}, // as xargs: not first on its line at the very end
		{in: "EOF", eof: "EOF", lines: nil},
		{in: "  a b  \n\n c\n", whole: true, lines: [][]string{{"a b  "}, {"c"}}, counts: []int{0, 1}},
		{in: `"" x` + "\n", whole: true, lines: [][]string{{" x"}}, counts: []int{1}},
	}
	for _, tt := range tests {
		s := NewXargsSplitter(strings.NewReader(tt.in))
		s.EOF, s.Lines = tt.eof, tt.whole
		lines, counts, err := readAllLines(s)
		var qe *QuoteError
		switch {
		case tt.quote != 0 && (!errors.As(err, &qe) || qe.Quote != tt.quote):
			t.Errorf("%q: error %v, want an unmatched %c quote", tt.in, err, tt.quote)
		case tt.quote == 0 && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		}
		if !reflect.DeepEqual(lines, tt.lines) {
			t.Errorf("%q: lines %q, want %q", tt.in, lines, tt.lines)
		}
		if tt.quote == 0 && !reflect.DeepEqual(counts, tt.counts) {
			t.Errorf("%q: line counts %v, want %v", tt.in, counts, tt.counts)
		}
	}
}

// TestXargsQuoteRoundTrip: what XargsQuote writes, the splitter reads back
// as the same items (the failures file of an --xargs run relies on it).
func TestXargsQuoteRoundTrip(t *testing.T) {
	items := []string{"a", "", "a b", "it's", `say "hi"`, `back\slash`, "new\nline", "\ttab\v\f\r", "EOF", "x\x01y"}
	var in strings.Builder
	for _, it := range items {
		in.WriteString(XargsQuote(it) + "\n")
	}
	s := NewXargsSplitter(strings.NewReader(in.String()))
	var got []string
	for {
		line, _, err := s.ReadLine()
		got = append(got, line...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, items) {
		t.Errorf("read back %q, want %q (written as %q)", got, items, in.String())
	}
}

func TestQuoteErrorSaysWhatToDo(t *testing.T) {
	msg := (&QuoteError{Quote: '\''}).Error()
	for _, want := range []string{"unmatched single quote", "-0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
}

// FuzzXargsSplitter checks the splitter against GNU xargs itself: the items
// xargs passes to printf are the items fan reads, and both see an
// unmatched quote.
func FuzzXargsSplitter(f *testing.F) {
	xargs, err := exec.LookPath("xargs")
	if err != nil {
		f.Skip("GNU xargs is not installed: it is the reference")
	}
	if out, _ := exec.Command(xargs, "--version").Output(); !bytes.Contains(out, []byte("GNU findutils")) {
		f.Skip("xargs is not GNU xargs: it is the reference")
	}
	for _, s := range []string{"a b\nc", `"a b" 'c d'`, `a\ b\\`, "a 'b\nc'", `x""y`, "a \n b\t\n", "\v a\f", `"it's"`, "a\\\n", `'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if strings.IndexByte(in, 0) >= 0 || len(in) > 2000 {
			return // NUL only draws a warning; long items meet xargs's size limits
		}
		cmd := exec.Command(xargs, "-r", "printf", `%s\0`)
		cmd.Stdin = strings.NewReader(in)
		out, xerr := cmd.Output()
		var want []string
		if len(out) > 0 {
			want = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		}
		s := NewXargsSplitter(strings.NewReader(in))
		var got []string
		var qerr error
		for {
			items, _, err := s.ReadLine()
			got = append(got, items...)
			if err != nil {
				if err != io.EOF {
					qerr = err
				}
				break
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: fan reads %q, xargs %q", in, got, want)
		}
		if (qerr != nil) != (xerr != nil) {
			t.Errorf("%q: fan's error %v, xargs's %v", in, qerr, xerr)
		}
		// and XargsQuote writes any item so that it reads back whole
		back, _, err := NewXargsSplitter(strings.NewReader(XargsQuote(in) + "\n")).ReadLine()
		if err != nil || len(back) != 1 || back[0] != in {
			t.Errorf("%q quoted as %q reads back as %q (%v)", in, XargsQuote(in), back, err)
		}
	})
}
