package cmd

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/fan-run/fan/runner"
)

// TestXargsStatus checks the --xargs column of the exit status table,
// including which status wins when several things happened.
func TestXargsStatus(t *testing.T) {
	tests := []struct {
		o    outcome
		want int
	}{
		{outcome{xargs: true}, 0},
		{outcome{xargs: true, xargsFailed: true}, 123},
		{outcome{xargs: true, xargsAbort: &runner.XargsAbort{Why: runner.XargsExit255}}, 124},
		{outcome{xargs: true, xargsAbort: &runner.XargsAbort{Why: runner.XargsSignal}}, 125},
		{outcome{xargs: true, xargsAbort: &runner.XargsAbort{Why: runner.XargsNoExec}}, 126},
		{outcome{xargs: true, xargsAbort: &runner.XargsAbort{Why: runner.XargsNotFound}}, 127},
		// as xargs: a command that failed before the stop decides
		{outcome{xargs: true, xargsFailed: true, xargsAbort: &runner.XargsAbort{Why: runner.XargsExit255}}, 123},
		{outcome{xargs: true, err: &inputError{errors.New("unmatched quote")}}, 1},
		{outcome{xargs: true, err: usageErrorf("bad")}, 1},
		{outcome{err: &usageError{msg: "unknown flag", xargs: true}}, 1},
		{outcome{xargs: true, interrupted: true, xargsFailed: true}, 130},
		{outcome{xargs: true, err: fmt.Errorf("writing: %w", syscall.EPIPE)}, 141},
		// without --xargs, GNU parallel's statuses
		{outcome{err: usageErrorf("bad")}, 255},
	}
	for _, tt := range tests {
		if got := exitStatus(tt.o); got != tt.want {
			t.Errorf("%+v: status %d, want %d", tt.o, got, tt.want)
		}
	}
}
