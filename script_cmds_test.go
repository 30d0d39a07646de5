package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// scriptCmds are commands the scripts need beyond testscript's own:
//
//	status N PROG ARGS...   run PROG and require exit status N exactly
//	start PROG ARGS...      start PROG in the background, its stdout and
//	                        stderr going to the files bg.stdout, bg.stderr
//	signal SIG              send SIG (INT, TERM, HUP, KILL, ...) to the
//	                        program start started
//	finish N                wait (up to 60s) for that program to end and
//	                        require exit status N exactly
//	sleep D                 pause for the Go duration D
//	waitfor PATH [REGEXP]   wait (up to 20s) until PATH exists and, if given,
//	                        its contents match REGEXP
//	watching PIDFILE        wait (up to a minute) until the fan whose pid
//	                        PIDFILE holds, its stderr going to bg.stderr,
//	                        watches its signals (a status report on SIGUSR1
//	                        comes), so that a signal sent next is the run's
//	gone WORD               wait (up to 10s) until no process of the script
//	                        has WORD as one of its arguments: no job or
//	                        orphan survived. A process of the script is one
//	                        with the script's $WORK in its environment, as
//	                        fan's jobs and what they leave behind inherit
//	                        it; and as scripts and the terminal tests run
//	                        side by side, WORD (say, the 1000.81 of a
//	                        sleep) is best one no other test uses
//	stopped [WORD]          wait (up to 10s) until the program start started
//	                        (or, with WORD, every process of the script that
//	                        has WORD as one of its arguments) is stopped
//	                        (state T); with !, until it is running again
//	spooled [-max N] DIR    the last background command (which must be fan
//	                        itself, not a shell around it) holds open files
//	                        in DIR or memory files (memfd), those in DIR all
//	                        unlinked, and DIR has no entries: spool files
//	                        leave nothing behind; with -max, those files
//	                        hold N bytes at most in all
//	pidscgroup N            make a pids cgroup allowing N tasks, removed at
//	                        the end, and set $CGROUP to its directory: a
//	                        shell that writes its pid ($$) to
//	                        $CGROUP/cgroup.procs runs in it, with what it
//	                        starts (script_limits_test.go)
//	tmpfs DIR SIZE          mount a tmpfs of SIZE (mount's size=) on DIR, a
//	                        new directory, unmounted at the end
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"status":   cmdStatus,
	"start":    cmdStart,
	"finish":   cmdFinish,
	"signal":   cmdSignal,
	"sleep":    cmdSleep,
	"waitfor":  cmdWaitFor,
	"watching": cmdWatching,
	"gone":     cmdGone,
	"spooled":  cmdSpooled,
	"stopped":  cmdStopped,

	"pidscgroup": cmdPidsCgroup,
	"tmpfs":      cmdTmpfs,
}

func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got, err := exitCode(ts.Exec(args[1], args[2:]...))
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// started holds the program that start started, per script.
var started sync.Map // *testscript.TestScript → *startedCmd

type startedCmd struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func cmdStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: start PROG [ARGS...]")
	}
	path := args[0]
	if !strings.Contains(path, "/") {
		dirs := filepath.SplitList(ts.Getenv("PATH"))
		path = ""
		for _, d := range dirs {
			if st, err := os.Stat(filepath.Join(d, args[0])); err == nil && !st.IsDir() {
				path = filepath.Join(d, args[0])
				break
			}
		}
		if path == "" {
			ts.Fatalf("start: %s not found on PATH", args[0])
		}
	}
	c := exec.Command(path, args[1:]...)
	c.Dir = ts.Getenv("WORK")
	c.Env = os.Environ()
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK"} {
		c.Env = append(c.Env, k+"="+ts.Getenv(k))
	}
	out, err := os.Create(ts.MkAbs("bg.stdout"))
	ts.Check(err)
	errf, err := os.Create(ts.MkAbs("bg.stderr"))
	ts.Check(err)
	c.Stdout, c.Stderr = out, errf
	ts.Check(c.Start())
	sc := &startedCmd{cmd: c, done: make(chan struct{})}
	go func() {
		sc.err = c.Wait()
		out.Close()
		errf.Close()
		close(sc.done)
	}()
	started.Store(ts, sc)
	ts.Defer(func() {
		c.Process.Kill()
		<-sc.done
		started.Delete(ts)
	})
}

func startedBy(ts *testscript.TestScript) *startedCmd {
	v, ok := started.Load(ts)
	if !ok {
		ts.Fatalf("no program was started (use start first)")
	}
	return v.(*startedCmd)
}

func cmdFinish(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: finish N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	sc := startedBy(ts)
	select {
	case <-sc.done:
	case <-time.After(60 * time.Second):
		ts.Fatalf("the started program has not ended after 60s")
	}
	ts.Logf("[bg.stdout]\n%s[bg.stderr]\n%s", ts.ReadFile("bg.stdout"), ts.ReadFile("bg.stderr"))
	got, err := exitCode(sc.err)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("the started program exited %d (%v), want %d", got, sc.err, want)
	}
}

func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: signal SIG")
	}
	sig := unix.SignalNum("SIG" + strings.TrimPrefix(args[0], "SIG"))
	if sig == 0 {
		ts.Fatalf("unknown signal %q", args[0])
	}
	sc := startedBy(ts)
	select {
	case <-sc.done:
		ts.Fatalf("the started program has already ended")
	default:
	}
	ts.Check(sc.cmd.Process.Signal(sig))
}

func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfor PATH [REGEXP]")
	}
	var re *regexp.Regexp
	if len(args) == 2 {
		re = regexp.MustCompile(args[1])
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && (re == nil || re.Match(b)) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waited 20s for %s (holds %q)", args[0], b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmdWatching(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: watching PIDFILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	ts.Check(err)
	ts.Check(watching(pid, func() string { return ts.ReadFile("bg.stderr") }))
}

func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone WORD")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := processesWith(args[0], scriptMark(ts))
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL) // do not leak them past the test
			}
			ts.Fatalf("processes with argument %q still running: %v", args[0], pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdStopped(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 1 {
		ts.Fatalf("usage: [!] stopped [WORD]")
	}
	pids := func() []int { return []int{startedBy(ts).cmd.Process.Pid} }
	if len(args) == 1 {
		pids = func() []int { return processesWith(args[0], scriptMark(ts)) }
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ps := pids()
		stopped := 0
		for _, pid := range ps {
			if processState(pid) == 'T' {
				stopped++
			}
		}
		if len(ps) > 0 && (neg && stopped == 0 || !neg && stopped == len(ps)) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%d of processes %v stopped", stopped, ps)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processState is the state letter of a process (R, S, T, Z, ...), or 0
// when it cannot be read.
func processState(pid int) byte {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i > 0 && i+2 < len(stat) {
		return stat[i+2]
	}
	return 0
}

// scriptMark is what processesWith finds in the environment of a script's
// processes: its $WORK, which no other script, or run of the tests, has.
func scriptMark(ts *testscript.TestScript) string {
	return "WORK=" + ts.Getenv("WORK")
}

// processesWith lists the live (not zombie) processes that have word as one
// of their arguments and the variable mark (NAME=VALUE) in their
// environment. The mark keeps a test from counting the processes of
// another test, or of another run of the tests on the same machine, that
// use the same word.
func processesWith(word, mark string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		cmdline, err := os.ReadFile(d + "/cmdline")
		if err != nil || len(cmdline) == 0 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if processState(pid) == 'Z' {
			continue
		}
		if !hasField(cmdline, word) {
			continue
		}
		if environ, err := os.ReadFile(d + "/environ"); err == nil && hasField(environ, mark) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hasField reports whether the NUL-separated list b (a /proc cmdline or
// environ) holds s.
func hasField(b []byte, s string) bool {
	for _, f := range bytes.Split(b, []byte{0}) {
		if string(f) == s {
			return true
		}
	}
	return false
}

func cmdSpooled(ts *testscript.TestScript, neg bool, args []string) {
	limit := int64(-1)
	if len(args) == 3 && args[0] == "-max" {
		n, err := strconv.ParseInt(args[1], 10, 64)
		ts.Check(err)
		limit, args = n, args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: spooled [-max N] DIR")
	}
	bg := ts.BackgroundCmds()
	if len(bg) == 0 {
		ts.Fatalf("no background command")
	}
	dir := ts.MkAbs(args[0])
	fdDir := "/proc/" + strconv.Itoa(bg[len(bg)-1].Process.Pid) + "/fd"
	fds, err := os.ReadDir(fdDir)
	ts.Check(err)
	held, bytes := 0, int64(0)
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
		if err == nil && strings.HasPrefix(target, "/memfd:") {
			// Output held in memory, before it spills to DIR.
			held++
			if st, err := os.Stat(filepath.Join(fdDir, fd.Name())); err == nil {
				bytes += st.Size()
			}
			continue
		}
		if err != nil || !strings.HasPrefix(target, dir+"/") {
			continue
		}
		if !strings.HasSuffix(target, " (deleted)") {
			ts.Fatalf("fan holds %s, which is not unlinked", target)
		}
		held++
		if st, err := os.Stat(filepath.Join(fdDir, fd.Name())); err == nil {
			bytes += st.Size()
		}
	}
	if held == 0 {
		ts.Fatalf("fan holds no file in %s, nor in memory", args[0])
	}
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	if len(entries) > 0 {
		ts.Fatalf("%s holds %s", args[0], entries[0].Name())
	}
	ts.Logf("fan holds %d unlinked files in %s and memory files, %d bytes in all", held, args[0], bytes)
	if limit >= 0 && bytes > limit {
		ts.Fatalf("fan holds %d bytes in %s and memory files, more than %d", bytes, args[0], limit)
	}
}
