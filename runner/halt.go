package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Halt is --halt: when to stop the whole run early.
type Halt struct {
	// Now terminates running jobs; otherwise they finish (soon).
	Now bool
	// Why counts "fail", "success" or "done"; "" never halts.
	Why string
	// Count is how many jobs must match Why, or, with Percent, what
	// percentage of the jobs.
	Count   float64
	Percent bool
}

// ParseHalt reads GNU parallel's --halt grammar: never; now|soon,
// fail|success|done=N or N%; and the old forms 0, 1, 2, -1, -2 and 1-99%.
func ParseHalt(s string) (Halt, error) {
	switch s {
	case "", "never", "0":
		return Halt{}, nil
	case "1":
		return Halt{Why: "fail", Count: 1}, nil
	case "2":
		return Halt{Now: true, Why: "fail", Count: 1}, nil
	case "-1":
		return Halt{Why: "success", Count: 1}, nil
	case "-2":
		return Halt{Now: true, Why: "success", Count: 1}, nil
	}
	bad := fmt.Errorf("%q is not a halt condition (try now,fail=1 or soon,fail=10%%, or never)", s)
	when, why, ok := strings.Cut(s, ",")
	if !ok {
		// the old "1-99%" form: soon,fail=N%
		if v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err == nil && strings.HasSuffix(s, "%") && v > 0 && v < 100 {
			return Halt{Why: "fail", Count: v, Percent: true}, nil
		}
		return Halt{}, bad
	}
	h := Halt{}
	switch when {
	case "now":
		h.Now = true
	case "soon":
	default:
		return Halt{}, bad
	}
	what, n, ok := strings.Cut(why, "=")
	if !ok || (what != "fail" && what != "success" && what != "done") {
		return Halt{}, bad
	}
	h.Why = what
	n, h.Percent = strings.CutSuffix(n, "%")
	v, err := strconv.ParseFloat(n, 64)
	if err != nil || v <= 0 || (h.Percent && v > 100) || (!h.Percent && v != math.Trunc(v)) {
		return Halt{}, bad
	}
	h.Count = v
	return h, nil
}

// Halted is what the run looked like when a Halt condition was met: what
// GNU parallel's exit status for --halt is computed from.
type Halted struct {
	// Failed is how many jobs had failed, and Total how many jobs the run
	// has in all (for a percentage) or had started so far.
	Failed, Total int
	// Status is the exit status of the job that met the condition, with
	// 128 added to a signal that ended it, as a shell reports it.
	Status int
	// Seq and Command are the job that met the condition, and OK whether
	// it succeeded.
	Seq     int64
	Command string
	OK      bool
}

// Message is the line that tells the user why the run halts: the job that
// met the condition, with its command, as GNU parallel's "This job failed",
// then what becomes of the jobs still running, named by number (running,
// in input order), so that the command is not read as theirs.
func (h *Halted) Message(halt Halt, running []int64) string {
	how := "failed"
	switch {
	case h.OK:
		how = "succeeded"
	case h.Status > 128:
		how = fmt.Sprintf("failed (signal %d)", h.Status-128)
	case h.Status >= 0:
		how = fmt.Sprintf("failed (exit %d)", h.Status)
	}
	next := "starting no new jobs"
	if len(running) > 0 {
		verb := "waiting for"
		if halt.Now {
			verb = "stopping"
		}
		next = fmt.Sprintf("starting no new jobs, %s running job%s %s", verb, plural(len(running)), seqList(running))
	}
	return fmt.Sprintf("fan: --halt: job %d (%s) %s; %s", h.Seq, h.Command, how, next)
}

// seqList names jobs by number: "1, 3 and 4", the first ten of a longer
// list and how many more.
func seqList(seqs []int64) string {
	const most = 10
	words := make([]string, 0, min(len(seqs), most)+1)
	for _, s := range seqs[:min(len(seqs), most)] {
		words = append(words, strconv.FormatInt(s, 10))
	}
	if len(seqs) > most {
		words = append(words, fmt.Sprintf("%d more", len(seqs)-most))
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// halter counts finished jobs and says when a Halt condition is met.
type halter struct {
	h          Halt
	mu         sync.Mutex
	ok, failed int
	fired      bool
}

// finished records the end of job r and returns a non-nil Halted the first
// time the condition is met. total is the number of jobs in the run: all of
// them for a percentage (the input is read whole first, as GNU parallel
// does), or those started so far.
func (t *halter) finished(r *Result, total func() int64) *Halted {
	if t.h.Why == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.OK() {
		t.ok++
	} else {
		t.failed++
	}
	if t.fired {
		return nil
	}
	n := t.failed
	switch t.h.Why {
	case "success":
		n = t.ok
	case "done":
		n = t.ok + t.failed
	}
	all := total()
	limit := t.h.Count
	if t.h.Percent {
		limit = t.h.Count / 100 * float64(all)
	}
	if n == 0 || float64(n) < limit {
		return nil
	}
	t.fired = true
	status := r.Status
	if r.Signal != 0 {
		status = 128 + int(r.Signal)
	}
	return &Halted{Failed: t.failed, Total: int(all), Status: status, Seq: r.Item.Seq, Command: r.Command.String(), OK: r.OK()}
}
