package output

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestLastNewline(t *testing.T) {
	src := strings.NewReader("ab\ncd\nef")
	for _, c := range []struct {
		from, to int64
		buf      int
		want     int64
	}{
		{0, 8, 64, 5},
		{0, 8, 1, 5}, // found reading backwards one byte at a time
		{0, 5, 2, 2},
		{3, 5, 64, -1},
		{6, 8, 64, -1},
		{0, 0, 64, -1},
	} {
		got, err := lastNewline(src, c.from, c.to, make([]byte, c.buf))
		if err != nil || got != c.want {
			t.Errorf("lastNewline(%d, %d, buf %d) = %d, %v; want %d", c.from, c.to, c.buf, got, err, c.want)
		}
	}
}

func TestWriteTagged(t *testing.T) {
	for _, c := range []struct {
		in, want string
		last     byte
	}{
		{"a\nb\n", "T\ta\nT\tb\n", '\n'},
		{"a\n\nb", "T\ta\nT\t\nT\tb", 'b'},
		{"", "", 0},
		{"x\x00y\n", "T\tx\x00y\n", '\n'},
	} {
		for _, size := range []int{1, 2, 64} { // lines across chunk ends
			var out bytes.Buffer
			w := bufio.NewWriter(&out)
			last, err := writeTagged(w, strings.NewReader(c.in), 0, int64(len(c.in)), "T\t", make([]byte, size))
			w.Flush()
			if err != nil || out.String() != c.want || last != c.last {
				t.Errorf("writeTagged(%q, chunk %d) = %q, last %q, %v; want %q, %q", c.in, size, out.String(), last, err, c.want, c.last)
			}
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"a": "a", "a/b": `a\_b`, `a\b`: `a\\b`, `\_`: `\\_`,
		"": `\`, ".": `\.`, "..": `\..`, `\.`: `\\.`, "...": "...",
		strings.Repeat("a", 300): strings.Repeat("a", 255), strings.Repeat("/", 200): strings.Repeat(`\_`, 127) + `\`,
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}
