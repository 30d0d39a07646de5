package output

import (
	"fmt"
	"strings"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/runner"
)

// status writes a status report (SIGUSR1) on stderr: the runner's part,
// with the counts only the sink knows. It goes through the sink like
// every other line, so it never lands in the middle of job output.
func (s *Sink) status(r *runner.Report) {
	s.say(StatusText(r, s.stats, len(s.retrying)))
}

// StatusText is the status report: one line of counts, one of the limit,
// one of the read-ahead, then one line per running job.
func StatusText(r *runner.Report, st Stats, retrying int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fan: status: %d read, %d queued, %d running, %d succeeded, %d failed, %d retrying, %d not started",
		r.Read, r.Queued, len(r.Running), st.OK, st.Failed, retrying, st.NotStarted)
	limit := "no limit"
	if r.Limit > 0 {
		limit = fmt.Sprintf("%d at once", r.Limit)
	}
	fmt.Fprintf(&b, "\nfan: jobs: %s", limit)
	if r.Why != "" {
		fmt.Fprintf(&b, " (%s)", r.Why)
	}
	items := "items"
	if r.Queued == 1 {
		items = "item"
	}
	fmt.Fprintf(&b, "\nfan: read ahead: %d %s, %s", r.Queued, items, input.SizeText(r.QueuedBytes))
	for _, j := range r.Running {
		host := ""
		if j.Slot.Host != "" {
			host = " on " + j.Slot.Host
		}
		fmt.Fprintf(&b, "\nfan: running: job %d, slot %d%s, %s: %s", j.Seq, j.Slot.N, host, j.Runtime.Round(100*time.Millisecond), j.Command)
	}
	return b.String()
}
