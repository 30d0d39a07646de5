package runner

import (
	"os"
	"sync/atomic"
)

// Head-of-line output (-k, or one job at a time). A job's output is
// captured so that it can be written whole, in input order; but the job
// whose output comes next, once everything before it is written, would
// only have its output copied to fan's stdout when it ends, and nothing
// may be written there meanwhile.
// Such a job writes its stdout straight into fan's stdout instead
// (Pool.Direct): the same bytes in the same place, only sooner, and
// without the spool file and its second copy. Its stderr is captured as
// before and written when it ends, after its stdout, as in grouped output.
//
// Whether a job is next is decided when it starts: the results before it
// in input order must all have been written (Stream.Written counts them),
// or all but the one before it, when that was a direct job that has
// ended (it left nothing for stdout). A job that starts while an earlier
// one's output is still to be written is captured as usual, even if it
// becomes the next one while it runs.
//
// Without -k, output comes in completion order, and a job writing to
// stdout while another runs could be overtaken by it; so only when jobs
// run one at a time (Jobs 1, with a limit the caller keeps at 1) does the
// caller give Direct, on the same terms. Results then come in input order, but
// for a job waiting to retry, which frees its slot so that later jobs end
// before it: until it ends, the count of results written stays below the
// tickets of the jobs after it, and none of them goes direct. (Jobs that
// --resume skips would come out of turn too; the caller gives no Direct
// with it.)
//
// Who decides what: the caller gives Direct only for a run where a job
// may have stdout at all (output.Sink.HandOver owns those conditions: in
// input order or one job at a time, output captured and grouped, nothing
// rewritten or saved, stdout a pipe apart from stderr); Pool.direct
// decides, per attempt, the rest: only an attempt whose output is sure to
// be kept goes direct, the last one a job may have (--retries), run here
// (not on a host that could be lost), in a run that puts no jobs back in
// the queue (--memfree), and only when it is next. A dry run starts no
// job, so Direct goes unused there.

// headOfLine tells which jobs are next in input order: a job's ticket
// against the results written, and the last direct job that ended.
type headOfLine struct {
	written   atomic.Int64 // Finished results the output stage has written
	directEnd atomic.Int64 // the ticket of the last direct job that ended, plus one
}

// next reports whether the job with ticket is the next whose output is
// written, with nothing before it left to write on stdout.
func (h *headOfLine) next(ticket int64) bool {
	w := h.written.Load()
	return w == ticket || w == ticket-1 && h.directEnd.Load() == ticket
}

// direct reports the file an attempt of j writes its stdout into
// straight away, or nil when its output is captured. It checks only what
// changes from one attempt to the next, and --memfree; whether the run
// may give stdout to a job at all is the caller's to say (Direct).
func (p *Pool) direct(j *job, attempt int, slot Slot) *os.File {
	if p.Direct == nil || p.Evict != nil {
		return nil // --memfree puts jobs back in the queue
	}
	if attempt < p.Retries {
		return nil // a failed attempt's output is dropped
	}
	if _, local := slot.Exec.(*Local); !local {
		return nil // a lost host's attempt runs again
	}
	if !p.stream.head.next(j.ticket) {
		return nil
	}
	return p.Direct
}
