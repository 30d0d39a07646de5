package output

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// A field is quoted when it holds a double quote, whitespace, the
// separator or a NUL, and its quotes are doubled, whatever the chunks
// it is read in.
func TestCSVField(t *testing.T) {
	cases := []struct {
		sep      byte
		in, want string
	}{
		{',', "", ""},
		{',', "plain", "plain"},
		{',', "a,b", `"a,b"`},
		{',', "a b", `"a b"`},
		{',', "a\tb", "\"a\tb\""},
		{',', "line\n", "\"line\n\""},
		{',', "\v\f\r", "\"\v\f\r\""},
		{',', `q"x""`, `"q""x"""""`},
		{',', "\x00", "\"\x00\""},
		{',', "é;ü", "é;ü"},
		{'\t', "a,b", "a,b"},
		{'\t', "a\tb", "\"a\tb\""},
	}
	for _, size := range []int{1, 2, 64} {
		for _, c := range cases {
			var out bytes.Buffer
			tb := &ResultsTable{sep: c.sep, w: bufio.NewWriter(&out), buf: make([]byte, size)}
			in := strings.NewReader(c.in)
			err := tb.csvField(func(fn func([]byte)) error { return tb.chunks(in, in.Size(), fn) })
			tb.w.Flush()
			if err != nil || out.String() != c.want {
				t.Errorf("csvField(%q, sep %q, chunk %d) = %q, %v; want %q", c.in, c.sep, size, out.String(), err, c.want)
			}
		}
	}
}

// JSON strings escape \, " and the control characters, and pass every
// other byte through.
func TestJSONEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain é", "plain é"},
		{`a"b\c`, `a\"b\\c`},
		{"\t\n\x00\x1f", `\u0009\u000a\u0000\u001f`},
		{"\x7f\xff", "\x7f\xff"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		jsonEscape(w, []byte(c.in))
		w.Flush()
		if out.String() != c.want {
			t.Errorf("jsonEscape(%q) = %q; want %q", c.in, out.String(), c.want)
		}
	}
}

func TestTableForms(t *testing.T) {
	for name, want := range map[string]bool{
		"out.csv": true, "OUT.TSV": true, "x.Json": true, "-.csv": true,
		"dir": false, "out.csv/": false, "x.jsonl": false, "{}.txt": false,
	} {
		if got := IsResultsTable(name); got != want {
			t.Errorf("IsResultsTable(%q) = %v; want %v", name, got, want)
		}
	}
	if !ResultsTableOnStdout("-.json") || ResultsTableOnStdout("-x.json") || ResultsTableOnStdout("-.CSV") || ResultsTableOnStdout("-") {
		t.Error("ResultsTableOnStdout: only -.csv, -.tsv and -.json are stdout")
	}
}
