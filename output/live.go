package output

import (
	"os"
	"time"

	"github.com/fan-run/fan/runner"
)

// Polling of running jobs' output (--line-buffer). A job writes into its
// spool file as in grouped mode; the sink looks at the files of the jobs it
// may write (all running jobs, or with -k only the oldest) every poll
// interval and writes the complete lines that have grown there. The
// interval starts short and doubles while nothing new turns up.
const (
	pollMin = 2 * time.Millisecond
	pollMax = 64 * time.Millisecond
)

// stream is one output file of a job being written out piece by piece.
type stream struct {
	f       *os.File
	off     int64 // written out up to here (always the start of a line)
	scanned int64 // no '\n' between off and here
}

// liveJob is a running job whose output is written as it comes.
type liveJob struct {
	seq      int64
	prefix   string // the tag and its tab, or "" without --tag
	out, err stream
}

func (l *liveJob) close() {
	l.out.f.Close()
	l.err.f.Close()
}

// startLive takes an attempt that has started, with its output files to
// write from while it runs (--line-buffer). Without them (none could be
// duplicated), its output is written whole when it ends.
func (s *Sink) startLive(ev *runner.Event) {
	if ev.Live == nil {
		return
	}
	l := &liveJob{seq: ev.Result.Item.Seq}
	l.out.f, l.err.f = ev.Live.Stdout, ev.Live.Stderr
	if s.Tag != nil {
		l.prefix = s.Tag(ev.Result) + "\t"
	}
	s.start(l)
}

// dropLive drops what a failed attempt wrote and is not out yet, as in
// grouped mode: the job runs again.
func (s *Sink) dropLive(seq int64) {
	if l := s.live[seq]; l != nil {
		l.close()
		delete(s.live, seq)
	}
}

// start takes a job that has started. A retried job starts again: what its
// failed attempt wrote and is not out yet is dropped, as in grouped mode.
func (s *Sink) start(l *liveJob) {
	if old := s.live[l.seq]; old != nil {
		old.close()
	}
	s.live[l.seq] = l
	if s.KeepOrder && l.seq == s.next {
		s.flushLive(l, false)
	}
}

// poll writes the complete lines the jobs that may write have produced
// since the last poll, and reports whether there were any.
func (s *Sink) poll() bool {
	if s.KeepOrder {
		if l := s.live[s.next]; l != nil {
			return s.flushLive(l, false)
		}
		return false
	}
	wrote := false
	for _, l := range s.live {
		if s.flushLive(l, false) {
			wrote = true
		}
	}
	return wrote
}

// flushLive writes a live job's new complete lines, stdout then stderr;
// final writes everything that is left.
func (s *Sink) flushLive(l *liveJob, final bool) bool {
	a := s.flush(s.Stdout, &l.out, l.prefix, final)
	b := s.flush(s.Stderr, &l.err, l.prefix, final)
	return a || b
}

// poller is the sink's timer for polling live jobs.
type poller struct {
	t        *time.Timer
	armed    bool
	interval time.Duration
}

// arm returns the channel of the next poll, starting the timer if needed.
func (p *poller) arm() <-chan time.Time {
	if p.t == nil {
		p.interval = pollMin
		p.t = time.NewTimer(p.interval)
		p.armed = true
	}
	if !p.armed {
		p.t.Reset(p.interval)
		p.armed = true
	}
	return p.t.C
}

// fired records a poll, and whether it found anything.
func (p *poller) fired(found bool) {
	p.armed = false
	if found {
		p.interval = pollMin
	} else {
		p.interval = min(2*p.interval, pollMax)
	}
}
