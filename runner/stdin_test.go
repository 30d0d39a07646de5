package runner

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fan-run/fan/input"
)

// bytesStdin is a block of bytes for a job's stdin.
type bytesStdin []byte

func (b bytesStdin) Len() int64                         { return int64(len(b)) }
func (b bytesStdin) WriteTo(w io.Writer) (int64, error) { return bytes.NewReader(b).WriteTo(w) }

// An item's Stdin reaches the job whole on its standard input, for every
// attempt; a job that reads none of it is not held up, and its retry reads
// it again from the start.
func TestItemStdin(t *testing.T) {
	block := bytesStdin(strings.Repeat("line\n", 100000)) // far beyond a pipe's buffer
	sp := &testSpool{dir: t.TempDir()}
	for _, c := range []struct {
		line, want string
		retries    int
		sent       int64
	}{
		{"wc -c", "500000\n", 1, 500000},
		{"true", "", 1, -1},                                    // reads nothing: some or none was sent
		{"wc -c; exit 1", "500000\n", 2, 500000},               // the last attempt's output: all of it again
		{"head -c 5; exit 0", "line\n", 1, -1},                 // stops reading: not an error
		{"cat >/dev/null; sleep 1000 & exit 0", "", 1, 500000}, // the sweep closes the leftover's stdin
	} {
		p := &Pool{Jobs: 1, Retries: c.retries, Spool: sp,
			Template: NewTemplate(TemplateOptions{Words: []string{c.line}, Shell: "/bin/sh"})}
		items := make(chan input.Item, 1)
		items <- input.Item{Seq: 1, Stdin: block} // no arguments: nothing is appended
		close(items)
		rs := runPool(t, p, items)
		r := rs[0]
		var out []byte
		if r.Stdout != nil {
			out, _ = io.ReadAll(r.Stdout)
		}
		if string(out) != c.want || r.Attempts != c.retries {
			t.Errorf("%q: output %q after %d attempts, want %q after %d", c.line, out, r.Attempts, c.want, c.retries)
		}
		if c.sent >= 0 && r.Sent != c.sent {
			t.Errorf("%q: sent %d bytes, want %d", c.line, r.Sent, c.sent)
		}
		for _, f := range []*os.File{r.Stdout, r.Stderr} {
			if f != nil {
				f.Close()
			}
		}
	}
}
