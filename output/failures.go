package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/runner"
)

// stderrTailLines is how many of a failed job's last stderr lines go into
// the failures sidecar.
const stderrTailLines = 10

// Failures is the dead-letter sink (--failures FILE): the input records of
// every item that failed for good, timed out, could not start or was never
// started, each followed by the input's own delimiter, so that
// `fan -a FILE` re-runs exactly those jobs (with the same -0/-d and
// --colsep, and -n set to the records of a job: -n times the number of
// input sources). Beside it, FILE.jsonl holds one JSON object per failed job for
// tools.
type Failures struct {
	delim  []byte
	perJob int // records in a full job; a shorter (last) job is written last
	f, js  *bookFile
	w, jw  *bufio.Writer
	held   [][]string
	headed bool // pipe mode: the input's header was written
}

// failureRecord is one line of the sidecar.
type failureRecord struct {
	Seq   int64    `json:"seq"`
	Input []string `json:"input"`
	// Offset and Bytes place a pipe-mode block in its input.
	Offset     *int64   `json:"offset,omitempty"`
	Bytes      int64    `json:"bytes,omitempty"`
	Command    string   `json:"command"`
	Host       string   `json:"host,omitempty"` // the login it ran on (-S); none for this machine
	ExitStatus int      `json:"exit_status"`
	Signal     int      `json:"signal"`
	TimedOut   bool     `json:"timed_out"`
	NotStarted bool     `json:"not_started"`
	Attempts   int      `json:"attempts"`
	DurationS  float64  `json:"duration_s"`
	Error      string   `json:"error,omitempty"`
	Stderr     []string `json:"stderr_tail,omitempty"`
}

// FailuresRecord is the name of the JSON lines file kept beside the
// failures file at path.
func FailuresRecord(path string) string { return path + ".jsonl" }

// CreateFailures opens path and path.jsonl for a run's failures, to be
// replaced when the run begins to write them (see bookFile). perJob is the
// number of records a full job takes.
func CreateFailures(path string, delim []byte, perJob int) (*Failures, error) {
	f, err := openBook(path, false)
	if err != nil {
		return nil, err
	}
	fl := &Failures{delim: delim, perJob: perJob, f: f, w: bufio.NewWriter(f), jw: bufio.NewWriter(io.Discard)}
	if f.special {
		// Failures sent to a device or a pipe (/dev/stderr) have no
		// record beside them: /dev/stderr.jsonl would be a stray file.
		return fl, nil
	}
	if fl.js, err = openBook(FailuresRecord(path), false); err != nil {
		f.Close(false)
		return nil, err
	}
	fl.jw.Reset(fl.js)
	return fl, nil
}

// Add records one item that did not succeed. A pipe-mode block is
// written byte for byte, after the input's header once.
func (fl *Failures) Add(r *runner.Result) error {
	block, piped := r.Item.Stdin.(input.Refeedable)
	switch {
	case piped:
		if !fl.headed {
			fl.w.Write(block.Head())
			fl.headed = true
		}
		block.WriteBody(fl.w)
	case len(r.Item.Records) < fl.perJob:
		fl.held = append(fl.held, r.Item.Records) // only the last job can be short
	default:
		fl.writeRecords(r.Item.Records)
	}
	rec := failureRecord{
		Seq: r.Item.Seq, Input: r.Item.Records, ExitStatus: r.Status, Signal: int(r.Signal),
		TimedOut: r.TimedOut, NotStarted: r.NotStarted, Attempts: r.Attempts,
		DurationS: r.Runtime.Seconds(), Stderr: tail(r.Stderr, stderrTailLines),
	}
	if piped {
		off := block.Where()
		rec.Offset, rec.Bytes = &off, block.Len()-int64(len(block.Head()))
	}
	rec.Command = r.Command.String() // a job not started: the one it would have run
	if !r.NotStarted {
		rec.Host = r.Host
	}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	fl.jw.Write(append(b, '\n'))
	return errors.Join(fl.w.Flush(), fl.jw.Flush())
}

func (fl *Failures) writeRecords(recs []string) {
	for _, rec := range recs {
		fl.w.WriteString(rec)
		fl.w.Write(fl.delim)
	}
}

// Close writes a held-back short job and closes both files; keep is as
// for bookFile.Close.
func (fl *Failures) Close(keep bool) error {
	for _, recs := range fl.held {
		fl.writeRecords(recs)
	}
	err := errors.Join(fl.w.Flush(), fl.jw.Flush(), fl.f.Close(keep))
	if fl.js != nil {
		err = errors.Join(err, fl.js.Close(keep))
	}
	return err
}

// tail returns the last n lines of a captured output file, leaving its
// offset where it was.
func tail(f *os.File, n int) []string {
	if f == nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	const most = 4096
	off := max(st.Size()-most, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil
	}
	lines := strings.Split(string(bytes.TrimRight(buf, "\n")), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
