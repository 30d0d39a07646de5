package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxSession is a terminal that a test drives as a person would: keys go
// in with send-keys, the screen comes out with capture-pane.
type tmuxSession struct {
	t      *testing.T
	tmux   string
	socket string
}

// newTmux starts sh running script on a new 120×40 terminal, with the fan
// under test in $fan. It skips the test when tmux is missing. The script
// runs with FAN_TEST_SESSION set to the session's own socket name, so that
// processesWith can tell its processes from any other test's.
func newTmux(t *testing.T, script string) *tmuxSession {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: this test needs it to run fan on a terminal (apt-get install tmux)")
	}
	fan, err := exec.LookPath("fan")
	if err != nil {
		t.Fatalf("the fan command is not on PATH: %v", err)
	}
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("fan-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	path := filepath.Join(t.TempDir(), "run.sh")
	script = fmt.Sprintf("unset CI NO_COLOR\nexport TERM=xterm-256color FAN_TEST_SESSION=%q\nfan=%q\n%s", s.socket, fan, script)
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s.run("new-session", "-d", "-x", "120", "-y", "40", "sh "+path)
	t.Cleanup(func() { exec.Command(tmux, "-L", s.socket, "kill-server").Run() })
	s.run("set-option", "-g", "history-limit", "5000")
	return s
}

// run runs a tmux command on the session's server and returns its output.
func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// processesWith lists the session's live processes that have word as one of
// their arguments.
func (s *tmuxSession) processesWith(word string) []int {
	return processesWith(word, "FAN_TEST_SESSION="+s.socket)
}

// screen is everything the terminal has shown, joined lines, no colors.
func (s *tmuxSession) screen() string {
	return s.run("capture-pane", "-p", "-J", "-S", "-", "-E", "-")
}

// waitFor waits until cond holds or fails the test after a minute,
// showing the screen.
func (s *tmuxSession) waitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("waited a minute for %s; the screen:\n%s", what, s.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *tmuxSession) waitForText(text string) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%q on the screen", text), func() bool { return strings.Contains(s.screen(), text) })
}

func exists(path string) func() bool {
	return func() bool { _, err := os.Stat(path); return err == nil }
}

// TestCtrlC is the drain protocol as a person at a terminal meets it. Ctrl-C
// reaches fan alone (its jobs are outside the terminal's foreground process
// group): the first one lets running jobs finish and print, starts nothing
// more, and says so; a second one stops the jobs.
func TestCtrlC(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	term := newTmux(t, fmt.Sprintf(`cd %q
trap : INT
"$fan" -j2 'touch a.{}; sleep 2; echo "finished {}"' ::: 1 2 3 4
echo "first run exited $?"
"$fan" -j2 'touch b.{}; sleep 1000.77; echo "finished {}"' ::: 1 2 3
echo "second run exited $?"
exec sleep 600
`, dir))

	term.waitFor("jobs 1 and 2 to start", func() bool {
		return exists(filepath.Join(dir, "a.1"))() && exists(filepath.Join(dir, "a.2"))()
	})
	term.run("send-keys", "C-c")
	term.waitForText("first run exited")
	screen := term.screen()
	for _, want := range []string{
		"fan: interrupted: starting no new jobs, waiting for 2 running jobs (Ctrl-C again to stop them)",
		"finished 1", "finished 2",
		"fan: 4 read = 2 succeeded + 0 failed + 2 not started",
		"first run exited 130",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("after one Ctrl-C the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "finished 3") || exists(filepath.Join(dir, "a.3"))() {
		t.Errorf("job 3 ran after Ctrl-C:\n%s", screen)
	}

	term.waitFor("the second run's jobs to start", func() bool {
		return exists(filepath.Join(dir, "b.1"))() && exists(filepath.Join(dir, "b.2"))()
	})
	term.run("send-keys", "C-c")
	term.waitFor("the second drain message", func() bool {
		return strings.Count(term.screen(), "(Ctrl-C again to stop them)") == 2
	})
	time.Sleep(300 * time.Millisecond) // two signals back to back may arrive as one
	term.run("send-keys", "C-c")
	term.waitForText("second run exited")
	screen = term.screen()
	for _, want := range []string{
		"fan: stopping 2 running jobs (Ctrl-C again to kill them at once)",
		"fan: 3 read = 0 succeeded + 2 failed + 1 not started",
		"second run exited 130",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("after two Ctrl-C the screen lacks %q:\n%s", want, screen)
		}
	}
	if pids := term.processesWith("1000.77"); len(pids) > 0 {
		t.Errorf("jobs survived the second Ctrl-C: %v", pids)
	}
}

// TestBarKeepsUnfinishedLines: on a terminal the progress bar is drawn by
// default, and job output that does not end with a newline stays on the
// screen: the bar waits for a line's end rather than drawing over it.
func TestBarKeepsUnfinishedLines(t *testing.T) {
	t.Parallel()
	term := newTmux(t, `seq 4 | "$fan" -j1 'sleep 0.4; printf x{}'
echo "<end>"
exec sleep 600
`)
	term.waitForText("<end>")
	if screen := term.screen(); !strings.Contains(screen, "x1x2x3x4<end>") {
		t.Errorf("the output of jobs without a newline is not on the screen whole:\n%s", screen)
	}
}

// TestNoAutoBar: no bar is drawn by default where it would be in the way:
// while the items are typed at the terminal (it would be drawn over the
// typing), and under --xargs (xargs draws nothing).
func TestNoAutoBar(t *testing.T) {
	t.Parallel()
	term := newTmux(t, `"$fan" 'echo got {}'
echo "<typed done>"
seq 4 | "$fan" --xargs -n1 sh -c 'sleep 0.5; echo "x$0"'
echo "<xargs done>"
exec sleep 600
`)
	time.Sleep(500 * time.Millisecond)
	term.run("send-keys", "first", "Enter")
	term.waitForText("got first")
	time.Sleep(1500 * time.Millisecond) // well past the bar's quiet start
	if screen := term.screen(); strings.Contains(screen, "waiting for input") {
		t.Errorf("a bar was drawn while the items are typed:\n%s", screen)
	}
	term.run("send-keys", "C-d")
	term.waitForText("<xargs done>")
	if screen := term.screen(); strings.Contains(screen, "%") || !strings.Contains(screen, "x4") {
		t.Errorf("--xargs drew a bar (or lost output):\n%s", screen)
	}
}

// TestCtrlZ: Ctrl-Z at the terminal suspends the jobs with fan (they are
// outside the terminal's foreground group, so fan passes the stop on), and
// fg continues them all.
func TestCtrlZ(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	term := newTmux(t, fmt.Sprintf(`cd %q
set -m
"$fan" -j2 'touch z.{}; sleep 1000.6{} & wait; echo "finished {}"' ::: 1 2
echo "<stopped $?>"
read go
fg
echo "<fg exited $?>"
exec sleep 600
`, dir))
	term.waitFor("both jobs to start", func() bool {
		return exists(filepath.Join(dir, "z.1"))() && exists(filepath.Join(dir, "z.2"))()
	})
	term.waitFor("both sleeps to start", func() bool { return len(term.processesWith("1000.61"))+len(term.processesWith("1000.62")) == 2 })
	term.run("send-keys", "C-z")
	term.waitForText("<stopped ")
	for _, word := range []string{"1000.61", "1000.62"} {
		for _, pid := range term.processesWith(word) {
			term.waitFor("job "+word+" to stop", func() bool { return processState(pid) == 'T' })
			// The TERM takes effect once fg continues the sleep; then the
			// job prints and ends.
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	term.run("send-keys", "go", "Enter")
	term.waitForText("<fg exited")
	screen := term.screen()
	for _, want := range []string{"finished 1", "finished 2", "<fg exited 0>"} {
		if !strings.Contains(screen, want) {
			t.Errorf("after Ctrl-Z and fg the screen lacks %q:\n%s", want, screen)
		}
	}
}
