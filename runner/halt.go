package runner

import (
	"fmt"
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
	if err != nil || v <= 0 || (h.Percent && v > 100) {
		return Halt{}, bad
	}
	h.Count = v
	return h, nil
}

// halter counts finished jobs and says when a Halt condition is met.
type halter struct {
	h          Halt
	mu         sync.Mutex
	ok, failed int
	fired      bool
}

// finished records a job's end and reports whether the run must halt now
// (only the first time the condition is met).
func (t *halter) finished(ok bool, total func() int64) bool {
	if t.h.Why == "" {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ok {
		t.ok++
	} else {
		t.failed++
	}
	if t.fired {
		return false
	}
	n := t.failed
	switch t.h.Why {
	case "success":
		n = t.ok
	case "done":
		n = t.ok + t.failed
	}
	limit := t.h.Count
	if t.h.Percent {
		limit = t.h.Count / 100 * float64(total())
	}
	t.fired = float64(n) >= limit && n > 0
	return t.fired
}
