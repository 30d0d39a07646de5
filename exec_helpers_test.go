package main

import (
	"bytes"
	"errors"
	"os/exec"
	"testing"
)

// exitCode is the exit status that err, from running a command, stands
// for: 0 for nil, the status of an *exec.ExitError. Any other error means
// the command did not run, and is returned.
func exitCode(err error) (int, error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		return ee.ExitCode(), nil
	}
	return 0, err
}

// stdoutAndStatus runs c and returns its stdout and exit status. Its
// stderr is kept out of the way unless c sets its own. A command that
// cannot run at all fails the test.
func stdoutAndStatus(t *testing.T, c *exec.Cmd) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	c.Stdout = &out
	if c.Stderr == nil {
		c.Stderr = &errb
	}
	status, err := exitCode(c.Run())
	if err != nil {
		t.Fatalf("%s %q: %v", c.Path, c.Args[1:], err)
	}
	return out.String(), status
}

// parallelAndFan finds GNU parallel and fan for a differential test: the
// test is skipped without parallel, and fails without fan (TestMain puts
// it on PATH).
func parallelAndFan(t *testing.T) (par, fan string) {
	t.Helper()
	par, err := exec.LookPath("parallel")
	if err != nil {
		t.Skip("GNU parallel is not installed (apt-get install parallel): differential tests skipped")
	}
	fan, err = exec.LookPath("fan")
	if err != nil {
		t.Fatalf("fan is not on PATH: %v", err)
	}
	return par, fan
}
