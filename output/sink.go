package output

import (
	"fmt"
	"io"
	"os"
	"strings"

	"fan/runner"
)

// Stats counts what became of the items: every item read is exactly one of
// OK, Failed or NotStarted.
type Stats struct {
	OK, Failed, NotStarted int64
	// TimedOut counts the failed jobs that --timeout ended.
	TimedOut int64
	// Skipped counts jobs an earlier run did (--resume): not read again.
	Skipped int64
	// FirstFailure is the exit status of the first job that failed; for a
	// job killed by a signal, 128 plus the signal.
	FirstFailure int
}

// Read is the number of items read from the input.
func (s Stats) Read() int64 { return s.OK + s.Failed + s.NotStarted }

// Sink is the single writer of fan's stdout and stderr. It writes each job's
// output whole, stdout then stderr, in completion order or (KeepOrder) in
// input order.
type Sink struct {
	Stdout, Stderr *os.File
	// KeepOrder writes results in input order (-k).
	KeepOrder bool
	// Spool takes back the files results carry.
	Spool runner.Spool
	// Release is called once for every result the sink has finished with.
	Release func(*runner.Result)
	// Announce, when set, carries commands about to start, printed on
	// stderr (-t).
	Announce <-chan runner.Command
	// Joblog, when set, gets a line per job (--joblog).
	Joblog *Joblog
	// Failures, when set, gets every item that did not succeed.
	Failures *Failures
	// OnError is called once, from the sink's goroutine, when writing to
	// stdout or stderr fails. The sink goes on taking results but writes no
	// more.
	OnError func(error)
	// Meter, when set, is a progress display sharing the terminal (see
	// Meter); Color paints fan's own messages.
	Meter Meter
	Color Palette

	stats   Stats
	err     error
	pending map[int64]*runner.Result
	next    int64
}

// Run writes every result that arrives on results until it is closed, and
// returns the counts and the first write error.
func (s *Sink) Run(results <-chan runner.Result) (Stats, error) {
	s.pending = map[int64]*runner.Result{}
	s.next = 1
	announce := s.Announce
	defer s.meterDone()
	for {
		select {
		case <-s.meterTick():
			s.meterUpdate()
		case c := <-announce:
			s.write(s.Stderr, func(w io.Writer) error {
				_, err := io.WriteString(w, c.String()+"\n")
				return err
			})
		case r, ok := <-results:
			if !ok {
				return s.stats, s.err
			}
			s.accept(&r)
			s.meterUpdate()
		}
	}
}

func (s *Sink) accept(r *runner.Result) {
	if !s.KeepOrder {
		s.emit(r)
		return
	}
	s.pending[r.Item.Seq] = r
	for {
		r, ok := s.pending[s.next]
		if !ok {
			return
		}
		delete(s.pending, s.next)
		s.next++
		s.emit(r)
	}
}

// emit writes one result and counts it.
func (s *Sink) emit(r *runner.Result) {
	switch {
	case r.Skipped:
		s.stats.Skipped++
		return
	case r.NotStarted:
		s.stats.NotStarted++
	case r.OK():
		s.stats.OK++
	default:
		if s.stats.Failed == 0 {
			s.stats.FirstFailure = r.Status
			if r.Signal != 0 {
				s.stats.FirstFailure = 128 + int(r.Signal)
			}
		}
		s.stats.Failed++
		if r.TimedOut {
			s.stats.TimedOut++
		}
	}
	s.book(r)
	if r.DryRun {
		s.write(s.Stdout, func(w io.Writer) error {
			_, err := io.WriteString(w, r.Command.String()+"\n")
			return err
		})
	}
	s.writeFile(s.Stdout, r.Stdout)
	s.writeFile(s.Stderr, r.Stderr)
	if r.Err != nil {
		s.write(s.Stderr, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, s.Color.Fail(fmt.Sprintf("fan: %v", r.Err)))
			return err
		})
	}
	if s.Release != nil {
		s.Release(r)
	}
}

// book writes a result's joblog line and, if it did not succeed, its
// failures records. A failure to write them is fan's own error.
func (s *Sink) book(r *runner.Result) {
	if s.Joblog != nil {
		if err := s.Joblog.Add(r, size(r.Stdout)); err != nil {
			s.fail(fmt.Errorf("writing the joblog: %w", err))
		}
	}
	if s.Failures != nil && !r.OK() && !r.DryRun {
		if err := s.Failures.Add(r); err != nil {
			s.fail(fmt.Errorf("writing the failures file: %w", err))
		}
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

// writeFile copies a captured output file to dst and gives it back.
func (s *Sink) writeFile(dst, f *os.File) {
	if f == nil {
		return
	}
	s.write(dst, func(w io.Writer) error { return copyFile(dst, f) })
	s.Spool.Put(f)
}

// write runs fn unless an earlier write failed, and reports the first
// failure.
func (s *Sink) write(dst *os.File, fn func(io.Writer) error) {
	if s.err != nil {
		return
	}
	s.meterHide(dst)
	if err := fn(dst); err != nil {
		s.fail(fmt.Errorf("writing to %s: %w", name(dst, s), err))
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
// anything failed or was left undone. Its numbers always add up.
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
	if failures != "" && s.Failed+s.NotStarted > 0 {
		fmt.Fprintf(&b, "; failed items are in %s", failures)
	}
	return b.String()
}
