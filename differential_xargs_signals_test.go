package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Under --xargs, SIGUSR1 raises and SIGUSR2 lowers the number of commands
// run at once by one, never below 1, as GNU xargs does: the same script
// of signals and job ends gives the same jobs started at each step under
// both.
func TestDifferentialXargsSignals(t *testing.T) {
	t.Parallel()
	xargs := gnuXargs(t)
	var want, got []string
	done := make(chan bool)
	go func() { want = signalScript(t, xargs); done <- true }()
	go func() { got = signalScript(t, "fan", "--xargs"); done <- true }()
	<-done
	<-done
	if !slices.Equal(got, want) {
		t.Fatalf("jobs started at each step:\nxargs: %q\nfan:   %q", want, got)
	}
	if len(want) < 3 || want[2] != "usr1: 1 2 3" {
		t.Fatalf("GNU xargs did not behave as this test expects: %q", want)
	}
}

// gnuXargs is the path of GNU xargs, for a differential test; the test
// is skipped without it.
func gnuXargs(t *testing.T) string {
	t.Helper()
	xargs, err := exec.LookPath("xargs")
	if err != nil {
		t.Skip("GNU xargs is not installed: the differential test needs it")
	}
	if out, _ := exec.Command(xargs, "--version").Output(); !bytes.Contains(out, []byte("GNU findutils")) {
		t.Skip("xargs is not GNU xargs: the differential test needs GNU findutils")
	}
	return xargs
}

// signalScript runs prog -P 1 over six jobs that each wait for a file, and
// drives it with SIGUSR1, SIGUSR2 and job ends, noting after each step
// which jobs have started.
func signalScript(t *testing.T, prog string, args ...string) []string {
	dir := t.TempDir()
	job := `touch run.$1; while [ ! -e go.$1 ]; do sleep 0.02; done`
	cmd := exec.Command(prog, append(args, "-P", "1", "-n", "1", "sh", "-c", job, "_")...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("1\n2\n3\n4\n5\n6\n")
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	defer func() {
		for i := 1; i <= 6; i++ {
			os.WriteFile(filepath.Join(dir, "go."+string(rune('0'+i))), nil, 0o644)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v", prog, err)
		}
	}()
	started := func() string {
		var s []string
		for i := 1; i <= 6; i++ {
			if _, err := os.Stat(filepath.Join(dir, "run."+string(rune('0'+i)))); err == nil {
				s = append(s, string(rune('0'+i)))
			}
		}
		return strings.Join(s, " ")
	}
	// wait waits (generously) for job n to start; settle lets a start that
	// should not happen have the time to.
	wait := func(n int) {
		name := filepath.Join(dir, "run."+string(rune('0'+n)))
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(name); err == nil {
				return
			}
		}
	}
	settle := func() { time.Sleep(700 * time.Millisecond) }
	end := func(n ...int) {
		for _, i := range n {
			os.WriteFile(filepath.Join(dir, "go."+string(rune('0'+i))), nil, 0o644)
		}
	}
	signal := func(s syscall.Signal) {
		cmd.Process.Signal(s)
		// Two signals back to back can arrive as one, and the handling
		// of one takes its time on a loaded machine.
		time.Sleep(500 * time.Millisecond)
	}
	var trace []string
	note := func(step string) { trace = append(trace, step+": "+started()) }

	wait(1)
	note("start")
	signal(syscall.SIGUSR1)
	wait(2)
	note("usr1")
	signal(syscall.SIGUSR1)
	wait(3)
	note("usr1")
	signal(syscall.SIGUSR2) // 2 at once: 3 run, so none starts as one ends
	end(1)
	settle()
	note("usr2, 1 ends")
	end(2)
	wait(4)
	settle()
	note("2 ends")
	signal(syscall.SIGUSR2)
	signal(syscall.SIGUSR2) // not below 1
	signal(syscall.SIGUSR2)
	end(3, 4)
	wait(5)
	settle()
	note("usr2 three times, 3 and 4 end")
	return trace
}

// From -P 0 (no limit), SIGUSR1 makes the limit 1 and SIGUSR2 leaves no
// limit alone, as GNU xargs 4.9's source does ("we'll take it and
// serialize"). This cannot be compared with xargs itself: with -P 0 it
// starts every command it has read, so the change shows only for input
// that comes later, and xargs, interrupted by the signal while it waits
// for input, takes the interrupted read for the end of its input (it
// runs nothing more). fan reads on.
func TestXargsRaiseFromNoLimit(t *testing.T) {
	t.Parallel()
	got := fromNoLimit(t, "fan", "--xargs")
	want := []string{"start: 1", "usr2, two more items: 1 2 3", "usr1, two more items: 1 2 3", "1 2 3 end: 1 2 3 4"}
	if !slices.Equal(got, want) {
		t.Fatalf("jobs started at each step:\ngot  %q\nwant %q", got, want)
	}
}

// fromNoLimit runs prog -P 0 and feeds it items a few at a time, with a
// SIGUSR2 and then a SIGUSR1 between them, noting which jobs started.
func fromNoLimit(t *testing.T, prog string, args ...string) []string {
	dir := t.TempDir()
	job := `touch run.$1; while [ ! -e go.$1 ]; do sleep 0.02; done`
	cmd := exec.Command(prog, append(args, "-P", "0", "-n", "1", "sh", "-c", job, "_")...)
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Error(err)
		return nil
	}
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	wait := func(name string) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !exists(name); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	var trace []string
	note := func(step string) {
		time.Sleep(700 * time.Millisecond) // let a start that should not happen have the time to
		var s []string
		for _, n := range []string{"1", "2", "3", "4", "5"} {
			if exists("run." + n) {
				s = append(s, n)
			}
		}
		trace = append(trace, step+": "+strings.Join(s, " "))
	}
	io.WriteString(in, "1\n")
	wait("run.1")
	note("start")
	cmd.Process.Signal(syscall.SIGUSR2) // no limit stays no limit
	time.Sleep(500 * time.Millisecond)
	io.WriteString(in, "2\n3\n")
	wait("run.3")
	note("usr2, two more items")
	cmd.Process.Signal(syscall.SIGUSR1) // 1 at once
	time.Sleep(500 * time.Millisecond)
	io.WriteString(in, "4\n5\n")
	note("usr1, two more items")
	os.WriteFile(filepath.Join(dir, "go.1"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "go.2"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "go.3"), nil, 0o644)
	wait("run.4")
	note("1 2 3 end")
	in.Close()
	for _, n := range []string{"4", "5"} {
		os.WriteFile(filepath.Join(dir, "go."+n), nil, 0o644)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("%s: %v", prog, err)
	}
	return trace
}
