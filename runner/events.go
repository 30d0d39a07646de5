package runner

import (
	"os"
	"sync"
	"time"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// Announced: a command is about to start (-t). Command is set.
	Announced EventKind = iota
	// Started: an attempt of a job began. Result holds the item, the slot
	// and the command; Live, when the pool was asked for live output,
	// holds descriptors of the attempt's output files of the receiver's
	// own, which it must close.
	Started
	// Retrying: an attempt failed and the job will run again. What the
	// attempt wrote is dropped.
	Retrying
	// Finished: the job's final Result. Every item the pool takes yields
	// exactly one; with KeepOrder they come in input order. A dry run's
	// come several to an event, in input order, in Batch (Result is
	// then nil).
	Finished
	// Notice: a message for the user (Text).
	Notice
	// Status: a status report was asked for (SIGUSR1); Report holds what
	// the runner knows, the output stage adds its counts.
	Status
)

// Event is one thing the runner tells the output stage.
type Event struct {
	Kind    EventKind
	Result  *Result
	Batch   []*Result
	Command Command
	Live    *LiveFiles
	Text    string
	Report  *Report
	// Retry says, for Retrying, which retry comes next and when.
	Retry Retry
}

// Retry is the retry a Retrying event announces.
type Retry struct {
	// Number is the retry that comes next (1 for the first), of Of in
	// all (--retries N allows N-1), after In.
	Number, Of int
	In         time.Duration
	// Lost says that the attempt never reached the job (its host could
	// not be reached, or --memfree put it back): it runs again without
	// spending a retry, and Number, Of and In are not set.
	Lost bool
}

// Report is the runner's part of a status report.
type Report struct {
	// Running are the jobs running now, in input order.
	Running []RunningJob
	// Limit is how many jobs may run at once now (0: no limit), and Why
	// says what set it (-j, a procfile, -j auto, a gate holding starts).
	Limit int
	Why   string
	// Read is how many items were read; Queued of them wait to start,
	// QueuedBytes in all.
	Read, Queued, QueuedBytes int64
}

// LiveFiles are a running attempt's output files, for writing its output
// while it runs (--line-buffer). They are the receiver's to close.
type LiveFiles struct {
	Stdout, Stderr *os.File
}

// Close closes both files.
func (l *LiveFiles) Close() {
	l.Stdout.Close()
	l.Stderr.Close()
}

// Stream is the one stream of events from the pool to the output stage. The
// pool closes Events after the last Finished event. Urgent carries notices
// that must not wait behind results (the drain's, said while the output
// stage may be busy writing); it is never closed, and a notice that does
// not fit is dropped rather than block the signal handler.
type Stream struct {
	Events <-chan Event
	Urgent <-chan Event

	events chan Event
	urgent chan Event
	hold   hold
	head   headOfLine
	// dry keeps a dry run's Results for reuse (Recycle): a million
	// commands printed need not be a million allocations of a Result for
	// the garbage collector to sweep.
	dry sync.Pool
}

// NewStream makes a stream whose Events channel buffers size events.
func NewStream(size int) *Stream {
	s := &Stream{events: make(chan Event, size), urgent: make(chan Event, 8)}
	s.Events, s.Urgent = s.events, s.urgent
	return s
}

// Written tells the pool that a Finished result's output has been written
// (or dropped) and its files given back, so that its bytes no longer hold
// back the start of jobs (see Pool.HoldOutput), and the next job in input
// order may write straight to stdout (see Pool.Direct). The output stage calls it
// once for each Finished result; it is safe to call from any goroutine.
func (s *Stream) Written(r *Result) {
	s.hold.release(r.held)
	r.held = 0
	s.head.written.Add(1)
}

// Recycle says that the output stage is done with a Finished result and
// keeps no reference to it. A dry run's result is then reused for a later
// job; others are left to the garbage collector. The output stage calls it
// once for each Finished result, last.
func (s *Stream) Recycle(r *Result) {
	if r.DryRun {
		*r = Result{}
		s.dry.Put(r)
	}
}

// dryResult returns a zero Result for a dry run's job: a recycled one when
// there is one.
func (s *Stream) dryResult() *Result {
	if r, ok := s.dry.Get().(*Result); ok {
		return r
	}
	return new(Result)
}

// Ask sends a status report to be printed, without blocking: it is
// dropped when the output stage is stuck on a write.
func (s *Stream) Ask(r *Report) {
	select {
	case s.urgent <- Event{Kind: Status, Report: r}:
	default:
	}
}

// Notify sends a message for the user without blocking: it is dropped when
// the output stage is stuck on a write. It is safe to call from any
// goroutine, also after the pool has finished.
func (s *Stream) Notify(msg string) {
	select {
	case s.urgent <- Event{Kind: Notice, Text: msg}:
	default:
	}
}
