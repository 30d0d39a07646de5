package output

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/fan-run/fan/runner"
)

// ResultsTable saves every job as one row of a single file, as GNU
// parallel does when --results names a file ending in .csv, .tsv or .json:
// the joblog's fields, the job's values and its whole stdout and stderr.
// The job output then goes to the file alone, none of it to stdout.
//
// CSV and TSV rows follow a header (Seq, Host, Starttime, JobRuntime, Send,
// Receive, Exitval, Signal, Command, V1..Vn, Stdout, Stderr; n from the
// first row). A field holding a double quote, whitespace, the separator
// or a NUL is put in double quotes, with its quotes doubled. JSON rows are
// one object a line; strings escape \, " and the control characters, and
// pass other bytes through as they are (as GNU parallel's do), so a row is
// valid JSON when the job's output is UTF-8.
//
// Outputs are copied from their spool files a chunk at a time, never held
// in memory whole.
type ResultsTable struct {
	// Tag, when set, gives the text that every line of a job's stdout and
	// stderr starts with in its row, followed by a tab (--tag,
	// --tagstring), as in GNU parallel's rows.
	Tag func(*runner.Result) string
	// Colsep, when set (--colsep), splits each input record into the
	// values it gives, as read: GNU parallel's V columns are not trimmed.
	Colsep *regexp.Regexp
	// FromArgs takes the values from the job's arguments instead of its
	// records (--xargs, whose records are kept requoted for the failures
	// file: the values are the words as split).
	FromArgs bool

	sep    byte      // ',' or '\t'; 0 for JSON
	book   *bookFile // nil when the rows go to stdout (-.csv)
	w      *bufio.Writer
	header bool // the CSV header is still to be written
	buf    []byte
}

// tableSeparator tells the form of --results NAME: ',' for .csv, '\t' for
// .tsv, 0 for .json (any case), ok false for a directory.
func tableSeparator(name string) (sep byte, ok bool) {
	switch ext := strings.ToLower(name); {
	case strings.HasSuffix(ext, ".csv"):
		return ',', true
	case strings.HasSuffix(ext, ".tsv"):
		return '\t', true
	case strings.HasSuffix(ext, ".json"):
		return 0, true
	}
	return 0, false
}

// IsResultsTable reports whether --results NAME asks for one file of rows
// (NAME ends in .csv, .tsv or .json) rather than a directory.
func IsResultsTable(name string) bool {
	_, ok := tableSeparator(name)
	return ok
}

// ResultsTableOnStdout reports whether the rows of --results NAME go to
// stdout: NAME is -.csv, -.tsv or -.json.
func ResultsTableOnStdout(name string) bool {
	return name == "-.csv" || name == "-.tsv" || name == "-.json"
}

// OpenResultsTable opens the file of rows --results NAME names, before any
// job runs (see bookFile), or takes stdout for -.csv, -.tsv and -.json.
func OpenResultsTable(name string, stdout io.Writer) (*ResultsTable, error) {
	sep, _ := tableSeparator(name)
	t := &ResultsTable{sep: sep, header: sep != 0, buf: make([]byte, chunk)}
	if ResultsTableOnStdout(name) {
		t.w = bufio.NewWriterSize(stdout, recordMost)
		return t, nil
	}
	b, err := openBook(name, "the results file", false)
	if err != nil {
		return nil, err
	}
	t.book, t.w = b, bufio.NewWriterSize(b, recordMost)
	return t, nil
}

// Save writes the row of one job that ran; out and errf are its captured
// output (nil when it wrote nothing there). Jobs the run stopped (a drain,
// --halt now) get no row, as in the joblog and in GNU parallel: they did
// not finish.
func (t *ResultsTable) Save(r *runner.Result, out, errf *os.File) error {
	if r.Stopped() {
		return nil
	}
	// The joblog's fields, as it writes them (see Joblog.Add).
	fields := []string{
		strconv.FormatInt(r.Item.Seq, 10),
		":",
		fmt.Sprintf("%.3f", float64(r.Start.UnixNano())/1e9),
		fmt.Sprintf("%.3f", r.Runtime.Seconds()),
		"0",
		strconv.FormatInt(size(out), 10),
		strconv.Itoa(r.Status),
		strconv.Itoa(loggedSignal(r)),
	}
	prefix := ""
	if t.Tag != nil {
		prefix = t.Tag(r) + "\t"
	}
	outputs := []field{t.output(out, prefix), t.output(errf, prefix)}
	if errf == nil && r.Err != nil {
		// It could not start (or fan could not keep its output): the row
		// keeps why, where GNU parallel's rows hold its shell's message.
		outputs[1] = text(prefix + "fan: " + r.Err.Error() + "\n")
	}
	values := r.Item.Args
	if !t.FromArgs {
		values = nil
		for _, rec := range r.Item.Records {
			if t.Colsep != nil {
				values = append(values, t.Colsep.Split(rec, -1)...)
			} else {
				values = append(values, rec)
			}
		}
	}
	cmd := r.Command.String()
	var err error
	if t.sep == 0 {
		err = t.jsonRow(fields, cmd, values, outputs)
	} else {
		err = t.csvRow(append(append(fields, cmd), values...), outputs)
	}
	// A row per job, in one write when it fits the buffer (recordMost):
	// there, and whole, even if fan is killed next.
	err = errors.Join(err, t.w.Flush())
	if err != nil && t.book != nil {
		// Not fan's stdout: a pipe's reader gone is an error to report,
		// not a reason to leave quietly.
		return errors.New(err.Error())
	}
	return err
}

// A field passes all its bytes to fn, in pieces.
type field func(fn func([]byte)) error

func text(s string) field {
	return func(fn func([]byte)) error {
		fn([]byte(s))
		return nil
	}
}

// output is the field of a captured output file (nil: empty), each of its
// lines after prefix (--tag; "" for none), as GNU parallel tags them: a
// last line without a newline stays without one.
func (t *ResultsTable) output(f *os.File, prefix string) field {
	return func(fn func([]byte)) error {
		if f == nil {
			return nil
		}
		lineStart := true
		return t.chunks(f, size(f), func(b []byte) {
			for len(b) > 0 {
				if lineStart && prefix != "" {
					fn([]byte(prefix))
				}
				i := bytes.IndexByte(b, '\n') + 1
				if i == 0 {
					i = len(b)
				}
				fn(b[:i])
				lineStart = b[i-1] == '\n'
				b = b[i:]
			}
		})
	}
}

// jsonNames are the keys of a JSON row's fixed fields, in their order.
var jsonNames = []string{"Seq", "Host", "Starttime", "JobRuntime", "Send", "Receive", "Exitval", "Signal"}

func (t *ResultsTable) jsonRow(fields []string, cmd string, values []string, outputs []field) error {
	t.w.WriteString("{ ")
	for i, f := range fields {
		if i == 1 { // Host is the one string among them
			f = `"` + f + `"`
		}
		fmt.Fprintf(t.w, "%q: %s, ", jsonNames[i], f)
	}
	t.w.WriteString(`"Command": "`)
	jsonEscape(t.w, []byte(cmd))
	t.w.WriteString(`", "V": [ `)
	for i, v := range values {
		if i > 0 {
			t.w.WriteByte(',')
		}
		t.w.WriteByte('"')
		jsonEscape(t.w, []byte(v))
		t.w.WriteByte('"')
	}
	t.w.WriteString(` ], "Stdout": "`)
	escape := func(b []byte) { jsonEscape(t.w, b) }
	err := outputs[0](escape)
	t.w.WriteString(`", "Stderr": "`)
	err = errors.Join(err, outputs[1](escape))
	t.w.WriteString("\" }\n")
	return err
}

// jsonEscape writes b as the inside of a JSON string, escaping only what
// JSON requires: \, " and the bytes below 0x20.
func jsonEscape(w *bufio.Writer, b []byte) {
	start := 0
	for i, c := range b {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		w.Write(b[start:i])
		if c < 0x20 {
			fmt.Fprintf(w, `\u%04x`, c)
		} else {
			w.WriteByte('\\')
			w.WriteByte(c)
		}
		start = i + 1
	}
	w.Write(b[start:])
}

func (t *ResultsTable) csvRow(values []string, outputs []field) error {
	if t.header {
		t.header = false
		names := []string{"Seq", "Host", "Starttime", "JobRuntime", "Send", "Receive", "Exitval", "Signal", "Command"}
		for i := range len(values) - len(names) {
			names = append(names, "V"+strconv.Itoa(i+1))
		}
		names = append(names, "Stdout", "Stderr")
		t.w.WriteString(strings.Join(names, string(t.sep)) + "\n")
	}
	var errs []error
	for i, v := range values {
		if i > 0 {
			t.w.WriteByte(t.sep)
		}
		errs = append(errs, t.csvField(text(v)))
	}
	for _, f := range outputs {
		t.w.WriteByte(t.sep)
		errs = append(errs, t.csvField(f))
	}
	t.w.WriteByte('\n')
	return errors.Join(errs...)
}

// csvField writes one field, in double quotes if it holds a double quote,
// whitespace, the separator or a NUL. It goes through the field twice: to
// tell, then to write.
func (t *ResultsTable) csvField(f field) error {
	special := " \t\n\r\f\v\"\x00" + string(t.sep)
	quote := false
	err := f(func(b []byte) {
		quote = quote || bytes.ContainsAny(b, special)
	})
	if err != nil || !quote {
		return errors.Join(err, f(func(b []byte) { t.w.Write(b) }))
	}
	t.w.WriteByte('"')
	err = f(func(b []byte) {
		for {
			i := bytes.IndexByte(b, '"')
			if i < 0 {
				t.w.Write(b)
				return
			}
			t.w.Write(b[:i+1])
			t.w.WriteByte('"')
			b = b[i+1:]
		}
	})
	t.w.WriteByte('"')
	return err
}

// chunks passes the first n bytes of src to fn, a chunk at a time.
func (t *ResultsTable) chunks(src io.ReaderAt, n int64, fn func([]byte)) error {
	for off := int64(0); off < n; {
		k, err := src.ReadAt(t.buf[:min(int64(len(t.buf)), n-off)], off)
		if k > 0 {
			fn(t.buf[:k])
		}
		off += int64(k)
		if err != nil && !(errors.Is(err, io.EOF) && off == n) {
			return err
		}
		if k == 0 {
			return nil // the file shrank
		}
	}
	return nil
}

// OnStdout reports whether the rows go to fan's stdout (-.csv).
func (t *ResultsTable) OnStdout() bool { return t.book == nil }

// Close flushes the rows and closes the file (not stdout); keep is as for
// bookFile.Close.
func (t *ResultsTable) Close(keep bool) error {
	err := t.w.Flush()
	if t.book != nil {
		err = errors.Join(err, t.book.Close(keep))
	}
	return err
}
