package input

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// referenceSplit is what a Splitter must return: data cut at every
// delimiter, the last record kept only when it is not empty.
func referenceSplit(data, delim []byte) []string {
	if len(data) == 0 {
		return nil
	}
	parts := bytes.Split(data, delim)
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	recs := make([]string, len(parts))
	for i, p := range parts {
		recs[i] = string(p)
	}
	return recs
}

func splitAll(t *testing.T, r io.Reader, delim []byte) []string {
	t.Helper()
	s := NewSplitter(r, delim)
	var recs []string
	for {
		rec, err := s.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		recs = append(recs, rec)
	}
}

// FuzzSplitter compares the Splitter with the reference for random data
// and delimiters of one or more bytes, read whole and a byte at a time.
func FuzzSplitter(f *testing.F) {
	long := strings.Repeat("x", readBufSize+100)
	for _, c := range []struct{ data, delim string }{
		{"a\nb\nc\n", "\n"},
		{"a\nb", "\n"},
		{"", "\n"},
		{"\n\n", "\n"},
		{"a\x00b\x00", "\x00"},
		{"a\r\nb\r\n", "\n"},
		{"a\r\nb\r\n", "\r\n"},
		{"aaa", "aa"},
		{"a::b:c::", "::"},
		{"xyzxyxyz", "xyz"},
		{long + "\n" + long, "\n"},
		{long + "ab" + long, "ab"},
		{"\xff\xfe\n\xc3\x28\n", "\n"},
	} {
		f.Add([]byte(c.data), []byte(c.delim))
	}
	f.Fuzz(func(t *testing.T, data, delim []byte) {
		if len(delim) == 0 || len(delim) > 4 {
			t.Skip("delimiters are 1 to a few bytes")
		}
		want := referenceSplit(data, delim)
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
			got := splitAll(t, r, delim)
			if len(got) != len(want) {
				t.Fatalf("split %q at %q: %d records %q, want %d %q", data, delim, len(got), got, len(want), want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("split %q at %q: record %d is %q, want %q", data, delim, i, got[i], want[i])
				}
			}
		}
	})
}

func TestSplitterReadError(t *testing.T) {
	boom := errors.New("boom")
	s := NewSplitter(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), []byte("\n"))
	if rec, err := s.Next(); rec != "a" || err != nil {
		t.Fatalf("first record %q, %v", rec, err)
	}
	if _, err := s.Next(); !errors.Is(err, boom) {
		t.Fatalf("after the read error: %v, want boom", err)
	}
}

func TestParseDelimiter(t *testing.T) {
	for in, want := range map[string]string{
		",": ",", `\n`: "\n", `\t`: "\t", `\0`: "\x00", `\\`: `\`, `\r`: "\r", `\x41`: "A",
		`\x00`: "\x00", "::": "::", `a\nb`: "a\nb", `\q`: `\q`, `a\`: `a\`, `\\n`: `\n`,
		// Octal, as GNU parallel: three digits, or one.
		`\101`: "A", `\011`: "\t", `\012x`: "\nx", `\1`: "\x01", `\61`: "\x061", `\08`: "\x008", `\377`: "\xff",
	} {
		got, err := ParseDelimiter(in)
		if err != nil || string(got) != want {
			t.Errorf("ParseDelimiter(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", `\x`, `\x4`, `\xzz`, `\400`} {
		if got, err := ParseDelimiter(in); err == nil {
			t.Errorf("ParseDelimiter(%q) = %q, want an error", in, got)
		}
	}
}

func TestIsBlank(t *testing.T) {
	for s, want := range map[string]bool{"": true, " ": true, " \t\r\v\f": true, "a": false, " a ": false, "\xa0": false} {
		if IsBlank(s) != want {
			t.Errorf("IsBlank(%q) = %v", s, !want)
		}
	}
}

func TestParseXargsDelimiter(t *testing.T) {
	for in, want := range map[string]byte{
		",": ',', "\\n": '\n', "\\t": '\t', "\\v": '\v', "\\a": '\a', "\\\\": '\\',
		"\\0": 0, "\\101": 'A', "\\0101": 'A', "\\x41": 'A', "\\x4": 4, "\\x": 0, "\\1": 1,
	} {
		if got, err := ParseXargsDelimiter(in); err != nil || got != want {
			t.Errorf("ParseXargsDelimiter(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ab", "\\q", "\\400", "\\x100", "\\8", "\\1a"} {
		if got, err := ParseXargsDelimiter(in); err == nil {
			t.Errorf("ParseXargsDelimiter(%q) = %q, want an error", in, got)
		}
	}
}
