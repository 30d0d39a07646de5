package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// watching returns once fan, process pid, watches its signals, so that a
// Ctrl-C sent next is the run's to drain: before that, as before any run,
// it would kill fan (or do nothing, if fan was started with it ignored).
// It asks for a status report (SIGUSR1, which fan ignores until then)
// every 100 ms until one is in the stderr that stderr reads; the first is
// sent once the Go runtime catches SIGUSR1, since until then it would
// kill fan. A fixed sleep is not enough: under load, a fan built with the
// race detector has taken over a second. It gives up after a minute.
func watching(pid int, stderr func() string) error {
	begin := time.Now()
	waited := func(what string) error {
		if time.Since(begin) > time.Minute {
			return fmt.Errorf("fan %s within a minute; stderr:\n%s", what, stderr())
		}
		time.Sleep(20 * time.Millisecond)
		return nil
	}
	for {
		caught, err := catches(pid, syscall.SIGUSR1)
		if err != nil {
			return err
		}
		if caught {
			break
		}
		if err := waited("did not catch SIGUSR1"); err != nil {
			return err
		}
	}
	var sent time.Time
	for !strings.Contains(stderr(), "fan: status: ") {
		if time.Since(sent) >= 100*time.Millisecond {
			if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
				return fmt.Errorf("SIGUSR1: %v; stderr:\n%s", err, stderr())
			}
			sent = time.Now()
		}
		if err := waited("gave no status report on SIGUSR1"); err != nil {
			return err
		}
	}
	return nil
}

// catches reports whether the process pid catches sig (the SigCgt mask of
// /proc/PID/status).
func catches(pid int, sig syscall.Signal) (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false, fmt.Errorf("reading fan's signal masks: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if mask, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
			if err != nil {
				return false, fmt.Errorf("SigCgt %q: %v", mask, err)
			}
			return m&(1<<(sig-1)) != 0, nil
		}
	}
	return false, fmt.Errorf("no SigCgt in /proc/%d/status", pid)
}
