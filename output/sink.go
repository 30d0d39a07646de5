package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/internal/pathmsg"
	"github.com/fan-run/fan/runner"
)

// Stats counts what became of the items: every item read is exactly one of
// OK, Failed or NotStarted.
type Stats struct {
	OK, Failed, NotStarted int64
	// TimedOut counts the failed jobs that --timeout ended.
	TimedOut int64
	// Skipped counts jobs an earlier run did (--resume): not read again.
	Skipped int64
	// Retries counts the retries of failed jobs (--retries), whatever
	// became of the jobs.
	Retries int64
}

// Read is the number of items read from the input.
func (s Stats) Read() int64 { return s.OK + s.Failed + s.NotStarted }

// Sink is the single writer of fan's stdout and stderr. By default it writes
// each job's output whole, stdout then stderr, in completion order or
// (KeepOrder) in input order; with LineBuffer it writes whole lines as jobs
// produce them.
type Sink struct {
	Stdout, Stderr *os.File
	// KeepOrder says that results come in input order (-k: the pool's
	// runner.Pool.KeepOrder orders them), so that with LineBuffer only the
	// oldest unfinished job writes while it runs.
	KeepOrder bool
	// LineBuffer writes complete lines while jobs run (--line-buffer); with
	// KeepOrder only the oldest unfinished job's, the others' wait in their
	// files for their turn. The pool must send live files with its Started
	// events (runner.Pool.Live).
	LineBuffer bool
	// Ungrouped says that jobs write straight to Stdout and Stderr (-u).
	// The sink then never writes their output itself, so after each job
	// it checks that Stdout's reader is still there: a closed pipe ends the
	// run as a failed write would.
	Ungrouped bool
	// Tag, when set, gives the text that every output line of a job starts
	// with, followed by a tab (--tag, --tagstring). It must be safe to call
	// from any goroutine.
	Tag func(*runner.Result) string
	// Results, when set, saves each job's output and exit status. A
	// ResultsTable (--results NAME.csv) takes the job output in place of
	// Stdout and Stderr, as in GNU parallel.
	Results Saver
	// Files, when set, keeps each job's stdout in a file of its own and
	// shows the file's name instead (--files).
	Files *OutputFiles
	// Spool takes back the files results carry.
	Spool runner.Spool
	// Joblog, when set, gets a line per job (--joblog).
	Joblog *Joblog
	// Failures, when set, gets every item that did not succeed, and is
	// told of every one that did (pipe mode writes blocks in input order).
	Failures *Failures
	// OnError is called once, from the sink's goroutine, at fan's own
	// first failure: writing to stdout or stderr, or to --results fails.
	// The sink goes on taking results: it counts them and books them in
	// the joblog and the failures file, but writes no more output or
	// messages.
	OnError func(error)
	// OnBookError is called once, from the sink's goroutine, when writing
	// the joblog or the failures file first fails (a full disk). The sink
	// goes on writing output, and lists on stderr each record it could
	// not book, so that nothing is lost; Run returns the error at the end.
	OnBookError func(error)
	// Meter, when set, is a progress display sharing the terminal (see
	// Meter); Color paints fan's own messages.
	Meter Meter
	Color Palette
	// Quiet says nothing of retries (--quiet): a line per retry otherwise.
	Quiet bool

	stats   Stats
	err     error
	bookErr error // the first write error on the joblog or failures file
	next    int64 // with KeepOrder, the job whose result comes next
	// retrying holds the jobs whose last attempt failed and that run
	// again, for the status report.
	retrying map[int64]bool
	live     map[int64]*liveJob
	stream   *runner.Stream
	// pend holds dry-run lines not yet written to Stdout: they are written
	// in batches, when no event is waiting or before anything else is
	// written, not with one write(2) each.
	pend []byte
	// cannotStart holds the messages said about jobs that could not start
	// ("fan: gzipp: command not found"): each is said once, not once per
	// job, though every such job fails.
	cannotStart map[string]bool
	buf         []byte
	bufOut      *bufio.Writer
}

// Run writes what the events of stream say until its Events channel is
// closed: commands about to start (-t), notices, the output of jobs as
// they run (--line-buffer) and every Finished result. It returns the
// counts and the first write error.
func (s *Sink) Run(stream *runner.Stream) (Stats, error) {
	s.live = map[int64]*liveJob{}
	s.retrying = map[int64]bool{}
	s.stream = stream
	s.next = 1
	var p poller
	defer s.meterDone()
	for {
		var ev runner.Event
		ok, got := true, false
		if len(stream.Urgent) == 0 && len(s.live) == 0 {
			// The common case, a result waiting and nothing else to do:
			// take it without a select of four.
			select {
			case ev, ok = <-stream.Events:
				got = true
			default:
			}
		}
		if !got {
			var tick <-chan time.Time
			if len(s.live) > 0 {
				tick = p.arm()
			}
			select {
			case <-s.meterTick():
				s.meterUpdate()
				continue
			case ev := <-stream.Urgent:
				s.handle(&ev)
				continue
			case <-tick:
				p.fired(s.poll())
				continue
			case ev, ok = <-stream.Events:
			}
		}
		if !ok {
			s.flushPending()
			if s.err == nil {
				return s.stats, s.bookErr
			}
			return s.stats, s.err
		}
		s.handle(&ev)
		if len(stream.Events) == 0 {
			s.flushPending() // nothing more waits: write the batch
		}
	}
}

// handle acts on one event.
func (s *Sink) handle(ev *runner.Event) {
	switch ev.Kind {
	case runner.Announced:
		s.say(ev.Command.String())
	case runner.Notice:
		s.say(ev.Text)
	case runner.Started:
		s.startLive(ev)
	case runner.Retrying:
		s.retrying[ev.Result.Item.Seq] = true
		s.dropLive(ev.Result.Item.Seq)
		s.retry(ev.Result, ev.Retry)
	case runner.Status:
		s.status(ev.Report)
	case runner.Finished:
		if ev.Batch == nil {
			s.finished(ev.Result)
			return
		}
		for _, r := range ev.Batch {
			s.finished(r)
		}
	}
}

// finished writes, counts and books a job's final result.
func (s *Sink) finished(r *runner.Result) {
	if len(s.retrying) > 0 {
		delete(s.retrying, r.Item.Seq)
	}
	s.accept(r)
	s.meterUpdate()
	s.stream.Recycle(r) // nothing here keeps it
}

// retry counts a retry of a failed job and, unless Quiet, says it:
// "fan: job 6 failed (exit 22), retry 2 of 3 in 2.1s". An attempt that
// was lost (never reached the job) spends no retry.
func (s *Sink) retry(r *runner.Result, next runner.Retry) {
	if next.Lost {
		return
	}
	s.stats.Retries++
	if s.Quiet {
		return
	}
	line := fmt.Sprintf("fan: job %d failed (%s), retry %d of %d", r.Item.Seq, r.Failure(), next.Number, next.Of)
	if next.In > 0 {
		line += fmt.Sprintf(" in %.1fs", next.In.Seconds())
	}
	s.say(line)
}

// say writes one line of fan's own on stderr.
func (s *Sink) say(line string) {
	s.write(s.Stderr, func(w io.Writer) error {
		_, err := io.WriteString(w, line+"\n")
		return err
	})
}

// accept writes a finished result. With KeepOrder, the next job's output
// written while it ran catches up at once.
func (s *Sink) accept(r *runner.Result) {
	s.emit(r)
	if !s.KeepOrder {
		return
	}
	s.next = r.Item.Seq + 1
	if l := s.live[s.next]; l != nil {
		s.flushLive(l, false)
	}
}

// errOutputLost marks a job whose output fan could not write (or save with
// --results): it counts as failed and goes to the failures file, so that a
// re-run produces its output. fan's write error itself is reported once.
var errOutputLost = errors.New("its output could not be written")

// emit writes one result, then counts and books it: a job whose output
// could not be written is a failed one.
func (s *Sink) emit(r *runner.Result) {
	if r.Skipped {
		s.stats.Skipped++
		return
	}
	if capture := captureError(r.Err); capture != nil {
		s.fail(capture) // fan's own: reported once, it ends the run
	}
	s.show(r)
	if r.Err == nil && s.err != nil && !r.NotStarted && !r.DryRun && (r.Stdout != nil || r.Stderr != nil || s.Results != nil) {
		r.Err = errOutputLost
	}
	switch {
	case r.NotStarted:
		s.stats.NotStarted++
	case r.OK():
		s.stats.OK++
	default:
		s.stats.Failed++
		if r.TimedOut {
			s.stats.TimedOut++
		}
	}
	s.book(r)
	if b, ok := r.Item.Stdin.(input.Refeedable); ok {
		b.Release()
	}
	for _, f := range []*os.File{r.Stdout, r.Stderr} {
		if f != nil {
			s.Spool.Put(f)
		}
	}
	s.stream.Written(r) // its output no longer holds back new jobs
}

// show writes what one result has to show: its output (or command, for
// a dry run), its --results files, and the lines fan has to say about it.
func (s *Sink) show(r *runner.Result) {
	// Jobs that wrote to Stdout themselves (-u, or a direct job of -k)
	// would not tell fan that its reader is gone.
	if (s.Ungrouped || r.Direct) && s.err == nil && readerGone(s.Stdout) {
		s.fail(fmt.Errorf("cannot write to stdout: %w", syscall.EPIPE))
	}
	if r.DryRun && s.err == nil {
		if s.Tag != nil {
			s.pend = append(append(s.pend, s.Tag(r)...), '\t') // as GNU parallel tags a dry run
		}
		s.pend = append(r.Command.AppendTo(s.pend), '\n')
		if len(s.pend) >= chunk {
			s.flushPending()
		}
	}
	var l *liveJob
	if len(s.live) > 0 { // --line-buffer: a map lookup a job only then
		l = s.live[r.Item.Seq]
		delete(s.live, r.Item.Seq)
	}
	out, errf := r.Stdout, r.Stderr
	if l != nil {
		out, errf = l.out.f, l.err.f
	}
	if s.Results != nil && !r.NotStarted && !r.DryRun {
		s.save(r, out, errf)
	}
	if _, rows := s.Results.(*ResultsTable); rows {
		out, errf = nil, nil // the rows have it
	}
	out = s.showFile(r, out)
	if l != nil {
		s.flushLive(l, true) // a timed-out job keeps its output too
		l.close()
	} else {
		prefix := ""
		if s.Tag != nil && (out != nil || errf != nil) {
			prefix = s.Tag(r) + "\t"
		}
		s.flush(s.Stdout, &stream{f: out}, prefix, true)
		s.flush(s.Stderr, &stream{f: errf}, prefix, true)
	}
	if r.Err != nil && captureError(r.Err) == nil && s.firstSaying(r.Err) {
		s.write(s.Stderr, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, s.Color.Fail(fmt.Sprintf("fan: %v", r.Err)))
			return err
		})
	}
	if r.TimedOut {
		s.write(s.Stderr, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, s.Color.Fail(fmt.Sprintf("fan: job %d timed out after %.1fs and was stopped: %s",
				r.Item.Seq, r.TimeLimit.Seconds(), r.Command.String())))
			return err
		})
	}
}

// captureError returns err as fan's own failure to capture a job's
// output, or nil. A nil err is not asked: errors.As's target escapes to
// the heap, an allocation per job that most jobs need not pay.
func captureError(err error) *runner.CaptureError {
	if err == nil {
		return nil
	}
	var capture *runner.CaptureError
	if errors.As(err, &capture) {
		return capture
	}
	return nil
}

// firstSaying reports whether the message about a failed job is to be
// said: always, unless the job could not start for a reason said before
// (the same missing program for every item).
func (s *Sink) firstSaying(err error) bool {
	var se *runner.StartError
	if !errors.As(err, &se) {
		return true
	}
	if s.cannotStart == nil {
		s.cannotStart = map[string]bool{}
	}
	text := err.Error()
	if s.cannotStart[text] {
		return false
	}
	s.cannotStart[text] = true
	return true
}

// save keeps one job's output and exit status with Results. Its rows may
// go to stdout (--results -.csv), so a progress display there is cleared
// first.
func (s *Sink) save(r *runner.Result, out, errf *os.File) {
	t, rows := s.Results.(*ResultsTable)
	onStdout := rows && t.OnStdout()
	if onStdout {
		s.meterHide(s.Stdout)
	}
	err := s.Results.Save(r, out, errf)
	if onStdout && s.Meter != nil {
		s.Meter.Wrote(s.Stdout, true)
	}
	if err != nil {
		s.fail(fmt.Errorf("saving results: %w", err))
	}
}

// flush writes the part of st that is ready to dst: with final, all that
// is left; otherwise the complete lines, each after prefix (the tag and its
// tab; "" without --tag). With a tag, tagged lines never mix, so an
// unterminated last line is ended with a newline; without one the bytes
// pass through untouched, with LineBuffer too (as GNU parallel's
// --line-buffer: a last line without a newline stays so). It reports
// whether it wrote.
func (s *Sink) flush(dst *os.File, st *stream, prefix string, final bool) bool {
	if st.f == nil || s.err != nil {
		return false
	}
	if s.buf == nil {
		s.buf = make([]byte, chunk)
	}
	end := size(st.f)
	if !final {
		nl, err := lastNewline(st.f, max(st.off, st.scanned), end, s.buf)
		st.scanned = end
		if err != nil || nl < st.off {
			return false
		}
		end = nl + 1
	}
	if end <= st.off {
		return false
	}
	lines := s.Tag != nil
	s.writeEnding(dst, func(w io.Writer) (bool, error) {
		var last byte
		var err error
		if prefix == "" {
			err = copyRange(dst, st.f, st.off, end)
			if err == nil && (lines || s.Meter != nil) {
				_, err = st.f.ReadAt(s.buf[:1], end-1)
				last = s.buf[0]
			}
		} else {
			bw := s.buffered(w)
			last, err = writeTagged(bw, st.f, st.off, end, prefix, s.buf)
			err = errors.Join(err, bw.Flush())
		}
		if err == nil && lines && last != '\n' {
			_, err = io.WriteString(w, "\n")
			last = '\n'
		}
		return last == '\n', err
	})
	st.off = end
	return true
}

// buffered returns the sink's write buffer, set to write to w.
func (s *Sink) buffered(w io.Writer) *bufio.Writer {
	if s.bufOut == nil {
		s.bufOut = bufio.NewWriterSize(w, chunk)
	}
	s.bufOut.Reset(w)
	return s.bufOut
}

// book writes a result's joblog line and, if it did not succeed, its
// failures records. A failure to write them is fan's own error.
func (s *Sink) book(r *runner.Result) {
	if s.Joblog != nil {
		if s.Joblog.OnStdout() {
			s.meterHide(s.Stdout)
		}
		if err := s.Joblog.Add(r, size(r.Stdout)); err != nil {
			if s.Joblog.OnStdout() {
				s.fail(fmt.Errorf("writing the joblog: %w", err))
			} else {
				s.unbooked(err, s.Joblog.Lost())
			}
		}
	}
	if s.Failures != nil && !r.DryRun {
		add := s.Failures.Add
		if r.OK() {
			add = s.Failures.Passed // failed blocks after it may wait for it
		}
		if err := add(r); err != nil {
			s.unbooked(err, s.Failures.Lost()...)
		}
	} else if s.bookErr != nil && r.NotStarted {
		// The joblog failed and stopped the run, and no failures file
		// takes the items it left: --resume cannot tell them.
		for _, rec := range r.Item.Records {
			s.say("fan: not started: " + rec)
		}
	}
}

// unbooked lists on stderr what a book could not take, each record under
// the book it is missing from: the first time a book fails, with why;
// after the first failure of any, the run starts no new job
// (OnBookError). The books that failed are joined in bookErr.
func (s *Sink) unbooked(err error, lost ...LostRecord) {
	books, other := splitBookErrors(err)
	if other != nil {
		s.fail(other) // fan's own failure, not a book's
	}
	if len(books) == 0 {
		return
	}
	for _, be := range books {
		if slices.ContainsFunc(BookErrors(s.bookErr), func(told *BookError) bool { return told.What == be.What }) {
			continue
		}
		s.say(s.Color.Fail(fmt.Sprintf("fan: %v: starting no new jobs; what it lacks follows", be)))
		if s.bookErr != nil {
			s.bookErr = errors.Join(s.bookErr, be)
			continue
		}
		s.bookErr = be
		if s.OnBookError != nil {
			s.OnBookError(be)
		}
	}
	for _, l := range lost {
		s.say(fmt.Sprintf("fan: not in %s: %s", l.Book, l.Text))
	}
}

func size(f *os.File) int64 {
	if f == nil {
		return 0
	}
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// flushPending writes the dry-run lines that wait in pend.
func (s *Sink) flushPending() {
	if len(s.pend) == 0 {
		return
	}
	s.put(s.Stdout, func(w io.Writer) (bool, error) {
		_, err := w.Write(s.pend)
		return true, err
	})
	s.pend = s.pend[:0]
}

// write runs fn, which writes to dst, unless an earlier write failed, and
// reports the first failure. Every write to fan's stdout and stderr goes
// through here.
func (s *Sink) write(dst *os.File, fn func(io.Writer) error) {
	s.writeEnding(dst, func(w io.Writer) (bool, error) { return true, fn(w) })
}

// writeEnding is write for fn that may leave dst in the middle of a line
// (job output without its last newline): fn reports whether what it wrote
// ended a line, so that the progress display waits for one.
func (s *Sink) writeEnding(dst *os.File, fn func(io.Writer) (bool, error)) {
	s.flushPending() // what came before is written before
	s.put(dst, fn)
}

// put is writeEnding without writing the dry-run lines that wait first.
func (s *Sink) put(dst *os.File, fn func(io.Writer) (bool, error)) {
	if s.err != nil {
		return
	}
	s.meterHide(dst)
	endsLine, err := fn(dst)
	if s.Meter != nil {
		s.Meter.Wrote(dst, endsLine)
	}
	if err != nil {
		err = pathmsg.Bare(err)
		s.fail(fmt.Errorf("cannot write to %s: %w", name(dst, s), err))
	}
}

// fail records the first error of fan's own and reports it.
func (s *Sink) fail(err error) {
	if s.err != nil {
		return
	}
	s.err = err
	if s.OnError != nil {
		s.OnError(err)
	}
}

func name(f *os.File, s *Sink) string {
	if f == s.Stdout {
		return "stdout"
	}
	return "stderr"
}

// Summary is the line printed on stderr at the end of a run in which
// anything failed, was left undone or was retried. Its numbers always add
// up; the retries are counted apart.
// failures is where the failures file is, or "".
func Summary(s Stats, failures string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fan: %d read = %d succeeded + %d failed", s.Read(), s.OK, s.Failed)
	if s.TimedOut > 0 {
		fmt.Fprintf(&b, " (%d timed out)", s.TimedOut)
	}
	fmt.Fprintf(&b, " + %d not started", s.NotStarted)
	if s.Skipped > 0 {
		fmt.Fprintf(&b, "; %d skipped as done before", s.Skipped)
	}
	if s.Retries > 0 {
		fmt.Fprintf(&b, "; %d retr%s", s.Retries, map[bool]string{true: "y", false: "ies"}[s.Retries == 1])
	}
	if failures != "" && s.Failed+s.NotStarted > 0 {
		fmt.Fprintf(&b, "; failed items are in %s", failures)
	}
	return b.String()
}
