package runner

import (
	"syscall"
	"testing"

	"github.com/fan-run/fan/input"
)

// XargsStop stops at the first job that exits 255, is killed by a signal
// of its own or cannot start, and counts a failure only before that stop.
func TestXargsStop(t *testing.T) {
	job := func(seq int64, status int, sig syscall.Signal, err error) *Result {
		return &Result{Item: input.Item{Seq: seq}, Command: Command{Args: []string{"cmd"}}, Status: status, Signal: sig, Err: err}
	}
	for _, c := range []struct {
		name    string
		results []*Result
		want    *XargsAbort // nil: no stop
		failed  bool
	}{
		{"all ok", []*Result{job(1, 0, 0, nil), job(2, 0, 0, nil)}, nil, false},
		{"a failure goes on", []*Result{job(1, 1, 0, nil), job(2, 0, 0, nil)}, nil, true},
		{"fan's own kill is a failure", []*Result{job(1, -1, syscall.SIGTERM, nil)}, nil, true},
		{"exit 255", []*Result{job(1, 0, 0, nil), job(2, 255, 0, nil), job(3, 255, 0, nil)},
			&XargsAbort{Why: XargsExit255, Seq: 2, Msg: "fan: cmd: exited with status 255; stopped, as xargs does"}, false},
		{"its own signal", []*Result{job(4, 0, syscall.SIGSEGV, nil)},
			&XargsAbort{Why: XargsSignal, Seq: 4, Msg: "fan: cmd: terminated by a signal; stopped, as xargs does"}, false},
		{"not found", []*Result{job(1, 127, 0, &StartError{Name: "cmd", Status: 127})},
			&XargsAbort{Why: XargsNotFound, Seq: 1, Msg: "fan: cmd: could not be run; stopped, as xargs does"}, false},
		{"cannot run", []*Result{job(1, 126, 0, &StartError{Name: "cmd", Status: 126})},
			&XargsAbort{Why: XargsNoExec, Seq: 1, Msg: "fan: cmd: could not be run; stopped, as xargs does"}, false},
		{"a failure before the stop counts, after it not",
			[]*Result{job(1, 2, 0, nil), job(2, 255, 0, nil)}, &XargsAbort{Why: XargsExit255, Seq: 2, Msg: "fan: cmd: exited with status 255; stopped, as xargs does"}, true},
		{"after the stop", []*Result{job(1, 255, 0, nil), job(2, 2, 0, nil)}, &XargsAbort{Why: XargsExit255, Seq: 1, Msg: "fan: cmd: exited with status 255; stopped, as xargs does"}, false},
	} {
		stops := 0
		w := &XargsStop{Stop: func() { stops++ }}
		for _, r := range c.results {
			w.Finished(r)
		}
		abort, failed := w.Result()
		switch {
		case failed != c.failed:
			t.Errorf("%s: failed = %v, want %v", c.name, failed, c.failed)
		case (abort == nil) != (c.want == nil) || abort != nil && *abort != *c.want:
			t.Errorf("%s: abort = %+v, want %+v", c.name, abort, c.want)
		case (stops == 1) != (c.want != nil) || stops > 1:
			t.Errorf("%s: Stop called %d times", c.name, stops)
		}
	}
}
