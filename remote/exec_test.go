package remote_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fan-run/fan/internal/sshtest"
	"github.com/fan-run/fan/remote"
	"github.com/fan-run/fan/runner"
)

func TestStatusesAndOutput(t *testing.T) {
	t.Parallel()
	_, hs := hosts(t, 2, sshtest.Options{}, remote.Config{})
	for _, h := range hs {
		e := remote.NewExecutor(h, nil)
		for _, tc := range []struct {
			line           string
			status         syscall.WaitStatus
			stdout, stderr string
		}{
			{"echo out; echo err >&2", 0, "out\n", "err\n"},
			{"echo out; exit 3", 3 << 8, "out\n", ""},
			{"exit 255", 255 << 8, "", ""},
			{"printf 'no newline' >&2", 0, "", "no newline"},
			{"kill -s SEGV $$", syscall.WaitStatus(syscall.SIGSEGV), "", ""},
			{"no-such-command-here", 127 << 8, "", "not found"},
		} {
			j := run(t, e, shell(tc.line), nil)
			if j.err != nil {
				t.Errorf("%s: %q: %v", h.Login(), tc.line, j.err)
				continue
			}
			if j.exit.Status != tc.status || j.exit.Terminated {
				t.Errorf("%s: %q: status %v (terminated %v), want %v", h.Login(), tc.line, j.exit.Status, j.exit.Terminated, tc.status)
			}
			if j.stdout != tc.stdout || !strings.Contains(j.stderr, tc.stderr) || tc.stderr == "" && j.stderr != "" {
				t.Errorf("%s: %q: stdout %q, stderr %q; want %q, %q", h.Login(), tc.line, j.stdout, j.stderr, tc.stdout, tc.stderr)
			}
		}
	}
}

func TestLargeOutputArrivesWhole(t *testing.T) {
	t.Parallel()
	_, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	e := remote.NewExecutor(hs[0], nil)
	j := run(t, e, shell("seq 200000; seq 100000 >&2"), nil)
	if j.err != nil || j.exit.Status != 0 {
		t.Fatal(j.err, j.exit.Status)
	}
	want, _ := exec.Command("seq", "200000").Output()
	wantErr, _ := exec.Command("seq", "100000").Output()
	if j.stdout != string(want) || j.stderr != string(wantErr) {
		t.Errorf("stdout %d bytes, stderr %d bytes; want %d, %d", len(j.stdout), len(j.stderr), len(want), len(wantErr))
	}
}

func TestEnvironmentWorkdirAndShell(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	e := remote.NewExecutor(hs[0], []string{"MYVAR", "BAD-NAME", "my-func"})
	env := []string{"FAN_SEQ=7", "FAN_SLOT=2", "PARALLEL_SEQ=7", "MYVAR=it's $HOME `x`\nline 2", "SECRET=local only", "BAD-NAME=x"}
	j := run(t, e, shell(`printf '%s|' "$FAN_SEQ" "$FAN_SLOT" "$PARALLEL_SEQ" "$MYVAR" "${SECRET-unset}" "$0"`), nil, env...)
	if want := "7|2|7|it's $HOME `x`\nline 2|unset|sh|"; j.err != nil || j.stdout != want {
		t.Errorf("got %q, %v; want %q", j.stdout, j.err, want)
	}

	c := shell("pwd")
	c.Dir = "work/{dir}"
	j = run(t, e, c, nil)
	if want := filepath.Join(shs.Hosts[0].Home(), "work/{dir}") + "\n"; j.err != nil || j.stdout != want {
		t.Errorf("pwd in Dir: %q, %v; want %q", j.stdout, j.err, want)
	}
	c = shell("pwd")
	c.Dir = "/proc/no/such/dir"
	j = run(t, e, c, nil)
	if j.err != nil || j.exit.Status.ExitStatus() != 1 || !strings.Contains(j.stderr, "/proc/no") {
		t.Errorf("unusable Dir: status %v, %v, stderr %q; want 1 and a message", j.exit.Status, j.err, j.stderr)
	}

	// A job run through bash locally runs through bash on the host, with
	// the exported functions passed: one named as no variable could be
	// too, which the wrapper's sh cannot name; one not passed stays here.
	if bash, err := exec.LookPath("bash"); err == nil {
		if j := run(t, e, bashJob(bash, `echo "$BASH_VERSION" | cut -c1`), nil); j.err != nil || strings.TrimSpace(j.stdout) == "" {
			t.Errorf("bash job: %q, %v", j.stdout, j.err)
		}
		j := run(t, e, bashJob(bash, `my-func {}; type other >/dev/null 2>&1 || echo no other`, "it's"), nil,
			dashFunc, "BASH_FUNC_other%%=() {  echo other\n}")
		if want := "my-func got [it's]\nno other\n"; j.err != nil || j.stdout != want {
			t.Errorf("bash functions: %q %q, %v; want %q", j.stdout, j.stderr, j.err, want)
		}
	}
}

// hostile items must reach the remote command byte for byte, through the
// template's quoting, ssh's joining and the login shell's parsing.
var hostile = []string{
	`it's`, `"double"`, `$(touch /tmp/fan-pwned)`, "`id`", "new\nline", "  spaces  ",
	"-n", "--", "-e", `back\slash\`, `\0101`, "\\n", "!bang!", "%s%d%%", "tab\there",
	"\xff\xfe invalid \xc3", "ünïcödé", "*", "~", "#hash", ";", "&&", "|", "'", `'\''`,
	"\x01\x1f\x7f", "{}", "a=b", "",
}

func TestHostileItemsByteExact(t *testing.T) {
	t.Parallel()
	_, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	e := remote.NewExecutor(hs[0], nil)
	for _, item := range hostile {
		// Through the template's shell line.
		j := run(t, e, shell(`printf '%s' {}`, item), nil)
		if j.err != nil || j.stdout != item {
			t.Errorf("shell line: item %q arrived as %q (%v)", item, j.stdout, j.err)
		}
		// Exec'd directly: the argv is quoted into a line.
		c := &runner.Command{Path: "/usr/bin/printf", Args: []string{"printf", "%s", item}}
		if j := run(t, e, c, nil); j.err != nil || j.stdout != item {
			t.Errorf("argv: item %q arrived as %q (%v)", item, j.stdout, j.err)
		}
	}
	// All at once, and large: one long command line.
	big := strings.Repeat(strings.Join(hostile, ""), 200)
	c := &runner.Command{Path: "/usr/bin/printf", Args: []string{"printf", "%s", big}}
	if j := run(t, e, c, nil); j.err != nil || j.stdout != big {
		t.Errorf("big item (%d bytes): got %d bytes (%v)", len(big), len(j.stdout), j.err)
	}
	c = &runner.Command{Path: "/usr/bin/printf", Args: []string{"printf", "%s", "nul\x00byte"}}
	var se *runner.StartError
	if j := run(t, e, c, nil); !errors.As(j.err, &se) || se.Status != 127 {
		t.Errorf("a NUL byte: %v, want a StartError 127", j.err)
	}
}

func TestTerminationReachesTheRemoteGroup(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	e := remote.NewExecutor(hs[0], nil)
	stop, cancel := context.WithCancel(context.Background())
	// The leader ignores TERM; so does its child, which says so with a
	// file: only then is the job stopped (a TERM before the traps would
	// end it, on a busy machine).
	ready := filepath.Join(shs.Hosts[0].Home(), "ready")
	go func(stop context.Context, cancel context.CancelFunc) { // its own copies: both are set again below
		for stop.Err() == nil {
			if _, err := os.Stat(ready); err == nil {
				cancel()
			}
			time.Sleep(10 * time.Millisecond)
		}
	}(stop, cancel)
	defer cancel()
	j := run(t, e, shell(`trap '' TERM; sh -c 'trap "" TERM; : > ready; sleep 100' & sleep 100`), stop)
	if j.err != nil {
		t.Fatal(j.err)
	}
	if !j.exit.Terminated || !j.exit.Status.Signaled() || j.exit.Status.Signal() != syscall.SIGKILL {
		t.Errorf("exit %+v (%v), want terminated by SIGKILL", j.exit, j.exit.Status)
	}
	if j.took > 15*time.Second {
		t.Errorf("termination took %v", j.took)
	}
	shs.Hosts[0].WaitClean(t, 2*time.Second)

	// A job that acts on TERM ends at the first step.
	stop, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	j = run(t, e, shell(`sleep 100`), stop)
	if j.err != nil || !j.exit.Terminated || j.exit.Status.Signal() != syscall.SIGTERM {
		t.Errorf("exit %+v (%v) %v, want terminated by SIGTERM", j.exit, j.exit.Status, j.err)
	}
	shs.Hosts[0].WaitClean(t, 2*time.Second)
}

func TestLeftoversAreSwept(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	e := remote.NewExecutor(hs[0], nil)
	j := run(t, e, shell(`sleep 1000 & sleep 1000 >/dev/null 2>&1 </dev/null & echo started`), nil)
	if j.err != nil || j.exit.Status != 0 || j.stdout != "started\n" {
		t.Fatalf("%v, %v, %q", j.err, j.exit.Status, j.stdout)
	}
	if j.took > 60*time.Second {
		t.Errorf("the job took %v: it waited for its orphans", j.took)
	}
	shs.Hosts[0].WaitClean(t, 2*time.Second)
}

func TestDownHostIsATransportError(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 2, sshtest.Options{}, remote.Config{})
	shs.Hosts[1].Down()
	j := run(t, remote.NewExecutor(hs[1], nil), shell("echo hi"), nil)
	var te *runner.TransportError
	if !errors.As(j.err, &te) || te.Host != "h2" {
		t.Fatalf("down host: %v, want a TransportError for h2", j.err)
	}
	t.Logf("down host: %v", j.err)
	if !strings.Contains(j.err.Error(), "refused") {
		t.Errorf("the message does not say why: %v", j.err)
	}
	// The other host is not affected.
	if j := run(t, remote.NewExecutor(hs[0], nil), shell("echo hi"), nil); j.err != nil || j.stdout != "hi\n" {
		t.Errorf("h1: %v %q", j.err, j.stdout)
	}
}

func TestLostConnectionIsATransportError(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	_, p, _ := started(t, hs[0], shell("sleep 100"))
	time.AfterFunc(200*time.Millisecond, shs.Hosts[0].Kill)
	_, err := p.Wait(context.Background(), context.Background(), seq)
	var te *runner.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("Wait: %v, want a TransportError", err)
	}
	t.Logf("lost: %v", err)
}

func TestLifelineEndsJobsWhenTheConnectionCloses(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	_, p, _ := started(t, hs[0], shell(`trap '' TERM; sleep 100`))
	done := make(chan error)
	go func() {
		_, err := p.Wait(context.Background(), context.Background(), seq)
		done <- err
	}()
	// fan's side goes away (as when fan is killed): the master closes.
	hs[0].Close()
	if err := <-done; err == nil {
		t.Errorf("Wait after the connection closed: no error")
	}
	shs.Hosts[0].WaitClean(t, 3*time.Second)
}

func TestSuspendAndResume(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	// The job waits for a file rather than a time: on a loaded machine the
	// STOP (sent over a channel of its own) may take seconds to arrive.
	goFile := filepath.Join(shs.Hosts[0].Home(), "go")
	e, p, read := started(t, hs[0], shell(`while [ ! -e go ]; do sleep 0.1; done; echo done`))
	e.Suspend()
	stopped := func() bool {
		// Every process of the job (its shell, and a sleep of its loop if
		// one runs) is stopped. A signal takes effect when its target
		// next runs: allow a while.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if jobStopped(shs.Hosts[0].Leftovers()) {
				return true
			}
		}
		return false
	}
	if !stopped() {
		t.Errorf("after Suspend, the job is not stopped: %v", shs.Hosts[0].Leftovers())
	}
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if !stopped() {
		t.Errorf("the job did not stay stopped")
	}
	e.Resume()
	x, err := p.Wait(context.Background(), context.Background(), seq)
	if out, _ := read(); err != nil || x.Status != 0 || out != "done\n" {
		t.Errorf("after Resume: %v %v %q", err, x.Status, out)
	}
}

// jobStopped reports whether every process of TestSuspendAndResume's job
// (its shell, and a sleep of its loop if one runs) is stopped. A shell
// caught in vfork waits uninterruptibly (D) for its child, and a STOP stays
// pending until that child execs; with the child stopped first, the shell
// can do nothing either, so it counts as stopped.
func jobStopped(procs []sshtest.Proc) bool {
	stoppedChild := map[int]bool{}
	var job []sshtest.Proc
	for _, pr := range procs {
		if strings.HasPrefix(pr.Cmdline, "sh -c while [ ! -e go ]") || pr.Cmdline == "sleep 0.1" {
			job = append(job, pr)
			if pr.State == "T" {
				stoppedChild[pr.PPID] = true
			}
		}
	}
	for _, pr := range job {
		if pr.State != "T" && !(pr.State == "D" && stoppedChild[pr.PID]) {
			return false
		}
	}
	return len(job) > 0
}

func TestCancelGivesUpAStart(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	if err := hs[0].Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	shs.Hosts[0].Stop() // the connection goes silent
	defer shs.Hosts[0].Cont()
	e := remote.NewExecutor(hs[0], nil)
	a, _ := attempt(t, shell("echo hi"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	a.Cancel = ctx
	begin := time.Now()
	_, err := e.Start(a)
	var te *runner.TransportError
	if !errors.As(err, &te) || time.Since(begin) > 20*time.Second {
		t.Errorf("Start on a silent host: %v after %v, want a TransportError soon after Cancel", err, time.Since(begin))
	}
}

// A start whose Cancel ends while its command is on its way is not given
// up at once: the command may run already. A host that answers within
// the grace runs the job, which is then an ordinary running job (its item
// must not count as not started and run twice).
//
// The host's silence stands for a slow round trip, not a dead host: the
// test configuration's keep-alives (ServerAliveInterval 1,
// ServerAliveCountMax 3) would end the master after 3 to 4 s of it, with
// "the master connection went away: EOF", and on a loaded machine the
// stopping and continuing of the host, and this test's own timers, can
// take that long. So the master here does not send them.
func TestCancelDuringTheRoundTripKeepsAJobThatRuns(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{SSH: []string{"-o", "ServerAliveInterval=0"}})
	if err := hs[0].Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	shs.Hosts[0].Stop() // the start's round trip stalls
	defer shs.Hosts[0].Cont()
	e := remote.NewExecutor(hs[0], nil)
	a, read := attempt(t, shell("echo ran"))
	ctx, cancel := context.WithCancel(context.Background())
	a.Cancel = ctx
	// The host answers only after the cancel, however late this test's
	// timer fires, and with the whole grace still to go.
	time.AfterFunc(300*time.Millisecond, func() {
		cancel()
		shs.Hosts[0].Cont()
	})
	p, err := e.Start(a)
	if err != nil {
		t.Fatalf("Start, cancelled during its round trip, on a host that then answered: %v", err)
	}
	x, err := p.Wait(context.Background(), context.Background(), seq)
	if out, _ := read(); err != nil || x.Status != 0 || out != "ran\n" {
		t.Errorf("the job: %v, status %v, stdout %q", err, x.Status, out)
	}
}

// MaxSessions: more jobs at once than one connection carries open more
// connections; a host that allows fewer than configured is met by
// retrying on another.
func TestMoreJobsThanMaxSessions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		configured int
	}{{"known", 2}, {"unknown", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			shs, hs := hosts(t, 1, sshtest.Options{MaxSessions: 2}, remote.Config{MaxSessions: tc.configured})
			e := remote.NewExecutor(hs[0], nil)
			var wg sync.WaitGroup
			jobs := make([]job, 7)
			// A barrier rather than a stopwatch: each job waits (up to
			// 30 s) until all seven have started, which they can only if
			// they run at once, however slowly the machine opens
			// connections.
			barrier := `touch at.%[1]s.%[2]d; n=0; while [ $(ls at.%[1]s.* | wc -l) -lt 7 ]; do n=$((n+1)); [ $n -lt 600 ] || exit 3; sleep 0.05; done; echo %[2]d`
			for i := range jobs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					jobs[i] = run(t, e, shell(fmt.Sprintf(barrier, tc.name, i)), nil)
				}()
			}
			wg.Wait()
			conns := hs[0].Connections()
			for i, j := range jobs {
				if j.err != nil || j.exit.Status.ExitStatus() != 0 || j.stdout != fmt.Sprintf("%d\n", i) {
					t.Errorf("job %d: %v, status %d, %q %q (3: the seven jobs did not all run at once)", i, j.err, j.exit.Status.ExitStatus(), j.stdout, j.stderr)
				}
			}
			if tc.configured > 0 && conns < 4 {
				t.Errorf("%d connections for 7 jobs at once, 2 a connection", conns)
			}
			shs.Hosts[0].WaitClean(t, time.Second)
		})
	}
}

// Every command fan sends (jobs, probes, signals) must mean the same to
// whatever login shell the host's user has: sshd hands it to that shell.
func TestLoginShells(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"bash", "zsh", "tcsh", "fish"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			shs, hs := hosts(t, 1, sshtest.Options{Shell: path}, remote.Config{})
			e := remote.NewExecutor(hs[0], []string{"MYVAR", "my-func"})
			items := strings.Join(hostile, "")
			j := run(t, e, shell(`printf '%s' {} "$MYVAR"`, items), nil, "MYVAR=!$`'\"\n")
			if want := items + "!$`'\"\n"; j.err != nil || j.stdout != want {
				t.Errorf("got %q (%v), want %q", j.stdout, j.err, want)
			}
			// An exported function reaches the job's bash whatever the
			// login shell makes of its name.
			if bash, err := exec.LookPath("bash"); err == nil {
				j = run(t, e, bashJob(bash, `my-func {}`, "it's"), nil, dashFunc)
				if want := "my-func got [it's]\n"; j.err != nil || j.stdout != want {
					t.Errorf("function: got %q %q (%v), want %q", j.stdout, j.stderr, j.err, want)
				}
			}
			if n, err := hs[0].CPUs(context.Background()); err != nil || n < 1 {
				t.Errorf("CPUs: %d, %v", n, err)
			}
			stop, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			j = run(t, e, shell(`sleep 100`), stop)
			if j.err != nil || !j.exit.Terminated || j.exit.Status.Signal() != syscall.SIGTERM {
				t.Errorf("termination: %+v %v", j.exit, j.err)
			}
			shs.Hosts[0].WaitClean(t, 2*time.Second)
		})
	}
}

// A host that goes silent while its job runs: stopping the job cannot
// reach it, and Wait gives up (here once ssh's keepalives, 3 s in the test
// configuration, declare the connection dead) rather than hang.
func TestSilentHostDoesNotHangWait(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	_, p, _ := started(t, hs[0], shell("sleep 100"))
	shs.Hosts[0].Stop()
	defer shs.Hosts[0].Cont()
	stop, cancel := context.WithCancel(context.Background())
	cancel()
	begin := time.Now()
	_, err := p.Wait(stop, context.Background(), seq)
	var te *runner.TransportError
	if !errors.As(err, &te) || time.Since(begin) > 10*time.Second {
		t.Errorf("Wait on a silent host: %v after %v, want a TransportError within seconds", err, time.Since(begin))
	}
	t.Logf("silent host: %v after %v", err, time.Since(begin))
}

// A job that writes to stderr at once (a shell's "not found") keeps what
// it wrote: it is the job's stderr, not taken for what came before the
// job started.
func TestEarlyStderrIsTheJobs(t *testing.T) {
	t.Parallel()
	_, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	e := remote.NewExecutor(hs[0], nil)
	var wg sync.WaitGroup
	jobs := make([]job, 40)
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jobs[i] = run(t, e, shell(fmt.Sprintf("echo early %d >&2", i)), nil)
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		if want := fmt.Sprintf("early %d\n", i); j.err != nil || j.stderr != want {
			t.Errorf("job %d: %v, stderr %q, want %q", i, j.err, j.stderr, want)
		}
	}
}
