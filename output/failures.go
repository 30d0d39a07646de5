package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
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
// tools. Each job's records, and each JSON line, go to their file in one
// write(2), so that a crash of fan (even SIGKILL) does not leave a record
// cut short, but one the kernel was writing; a pipe-mode block longer
// than recordMost is written in pieces. Pipe-mode blocks are written in
// input order (blockOrder), the other items in the order they come.
type Failures struct {
	delim  []byte
	perJob int       // records in a full job; a shorter (last) job is written last
	f, js  *bookFile // js is nil when the failures go to a device
	rec    bytes.Buffer
	held   [][]string
	headed bool // pipe mode: the input's header was written
	order  blockOrder
	lost   []LostRecord // what the last Add or Passed could not write (Lost)
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
// number of records a full job takes; failed blocks waiting for those
// before them are held in tmpDir ("" for the system's temporary
// directory).
func CreateFailures(path string, delim []byte, perJob int, tmpDir string) (*Failures, error) {
	f, err := openBook(path, "the failures file", false)
	if err != nil {
		return nil, err
	}
	fl := &Failures{delim: delim, perJob: perJob, f: f, order: newBlockOrder(tmpDir)}
	if f.special {
		// Failures sent to a device or a pipe (/dev/stderr) have no
		// record beside them: /dev/stderr.jsonl would be a stray file.
		return fl, nil
	}
	if fl.js, err = openBook(FailuresRecord(path), "the failures file's JSON lines", false); err != nil {
		f.Close(false)
		return nil, err
	}
	return fl, nil
}

// Add records one item that did not succeed. A pipe-mode block is
// written byte for byte, after the input's header once, in input order:
// it may wait for the blocks before it (see Passed). When writing fails
// (a *BookError), Lost tells what is missing.
func (fl *Failures) Add(r *runner.Result) error {
	fl.lost = nil
	rec := fl.record(r)
	if block, piped := r.Item.Stdin.(input.Refeedable); piped {
		off := block.Where()
		rec.Offset, rec.Bytes = &off, block.Len()-int64(len(block.Head()))
		return fl.writeBlocks(fl.order.end(r.Item.Seq, waitingBlock{block: block, rec: rec}))
	}
	fl.rec.Reset()
	if len(r.Item.Records) < fl.perJob && fl.f.err == nil {
		fl.held = append(fl.held, r.Item.Records) // only the last job can be short
	} else {
		fl.writeRecords(r.Item.Records)
	}
	if err := fl.flush(); err != nil {
		for _, rec := range r.Item.Records {
			fl.lost = append(fl.lost, LostRecord{Book: fl.f.what, Text: rec})
		}
		return err
	}
	return fl.writeJSON(rec)
}

// Passed tells that an item succeeded. Only pipe mode needs to know: the
// failed blocks after it may be written once every block before them has
// ended.
func (fl *Failures) Passed(r *runner.Result) error {
	if _, piped := r.Item.Stdin.(input.Refeedable); !piped {
		return nil
	}
	fl.lost = nil
	return fl.writeBlocks(fl.order.end(r.Item.Seq, waitingBlock{}))
}

// record is the sidecar's line for a failed item, but for where its block
// is in the input.
func (fl *Failures) record(r *runner.Result) failureRecord {
	rec := failureRecord{
		Seq: r.Item.Seq, Input: r.Item.Records, ExitStatus: r.Status, Signal: int(r.Signal),
		TimedOut: r.TimedOut, NotStarted: r.NotStarted, Attempts: r.Attempts,
		DurationS: r.Runtime.Seconds(), Stderr: tail(r.Stderr, stderrTailLines),
	}
	rec.Command = r.Command.String() // a job not started: the one it would have run
	if !r.NotStarted {
		rec.Host = r.Slot.Host
	}
	if r.Err != nil {
		rec.Error = r.Err.Error()
	}
	return rec
}

// writeBlocks writes failed blocks, each with its sidecar line, and
// releases them. It goes on after a failed write, so that Lost lists
// every block missing, and returns each different error once, joined:
// the sidecar may fail on one block and the failures file on the next.
func (fl *Failures) writeBlocks(ready []waitingBlock) error {
	var errs []error
	for _, wb := range ready {
		if err := fl.writeBlock(wb); err != nil && !slices.Contains(errs, err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeBlock writes one failed block, after the input's header if it is
// the first, then its sidecar line.
func (fl *Failures) writeBlock(wb waitingBlock) error {
	block := wb.block
	defer block.Release()
	fl.rec.Reset()
	var err error
	if !fl.headed {
		fl.rec.Write(block.Head())
		fl.headed = true
	}
	var w io.Writer = &fl.rec
	if block.Len() > recordMost {
		err = fl.flush()
		w = fl.f
	}
	if _, werr := block.WriteBody(w); err == nil {
		err = werr
	}
	if ferr := fl.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fl.lost = append(fl.lost, LostRecord{Book: fl.f.what,
			Text: fmt.Sprintf("job %d's block of %d bytes at byte %d of the input", wb.rec.Seq, wb.rec.Bytes, *wb.rec.Offset)})
		return err
	}
	return fl.writeJSON(wb.rec)
}

// writeJSON writes a failed item's line in the sidecar, if there is one.
func (fl *Failures) writeJSON(rec failureRecord) error {
	if fl.js == nil {
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err = fl.js.Write(append(b, '\n')); err != nil {
		fl.lost = append(fl.lost, LostRecord{Book: fl.js.what, Text: string(b)})
	}
	return err
}

// Lost is what the last Add or Passed could not write, when it failed: the
// item's records (or where the blocks are in the input), or JSON lines.
func (fl *Failures) Lost() []LostRecord { return fl.lost }

// writeRecords adds the records of a job, each with the delimiter, to
// those to be written.
func (fl *Failures) writeRecords(recs []string) {
	for _, rec := range recs {
		fl.rec.WriteString(rec)
		fl.rec.Write(fl.delim)
	}
}

// flush writes the records made so far, in one write.
func (fl *Failures) flush() error {
	if fl.rec.Len() == 0 {
		return nil
	}
	_, err := fl.f.Write(fl.rec.Bytes())
	fl.rec.Reset()
	return err
}

// Close writes a held-back short job, and any block still waiting for one
// before it that never came, and closes both files; keep is as for
// bookFile.Close.
func (fl *Failures) Close(keep bool) error {
	err := fl.writeBlocks(fl.order.rest())
	fl.order.hold.Close()
	fl.rec.Reset()
	for _, recs := range fl.held {
		fl.writeRecords(recs)
	}
	err = errors.Join(err, fl.flush(), fl.f.Close(keep))
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
