// Command sshhosts starts real OpenSSH test hosts (internal/sshtest: one
// sshd and one local user per host on 127.0.0.x) for as long as it runs,
// so that a benchmark outside go test can reach them: make bench's remote
// workload (bench/remote.sh).
//
//	sshhosts [-n 2] [-shell /bin/sh] READY
//
// Once the hosts accept connections it writes READY: a shell fragment
// setting PARALLEL_SSH (the ssh command that reaches the hosts h1, h2, ...),
// SSHHOSTS_USERS (their users) and SSHHOSTS_PIDS (their listening sshd
// processes, whose children's CPU times add up what the hosts spent). It then waits for SIGTERM, SIGINT or
// SIGHUP, takes the hosts down (their sshd, and whatever runs as their
// users) and exits. It needs root, as the tests do.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fan-run/fan/internal/sshtest"
)

func main() {
	n := flag.Int("n", 2, "how many hosts")
	shell := flag.String("shell", "", "the hosts' users' login shell (default /bin/sh)")
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: sshhosts [-n N] [-shell PATH] READY-FILE")
		os.Exit(2)
	}
	os.Exit(run(*n, *shell, flag.Arg(0)))
}

// run starts the hosts, says so in ready, and waits for a signal.
func run(n int, shell, ready string) (status int) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	tb := &programTB{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopped); !ok {
				panic(r)
			}
			status = 1
		}
		tb.teardown()
	}()
	hs := sshtest.Start(tb, n, sshtest.Options{Shell: shell})
	users, pids := make([]string, len(hs.Hosts)), make([]string, len(hs.Hosts))
	for i, h := range hs.Hosts {
		users[i], pids[i] = h.User, fmt.Sprint(h.DaemonPID())
	}
	text := fmt.Sprintf("PARALLEL_SSH=%s\nSSHHOSTS_USERS='%s'\nSSHHOSTS_PIDS='%s'\n",
		quote(hs.SSHCommand()), strings.Join(users, " "), strings.Join(pids, " "))
	tmp := ready + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err == nil {
		err = os.Rename(tmp, ready)
	}
	<-sigs
	return 0
}

// quote is s as one word of a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// stopped is what Fatal and Skip panic with: run recovers it.
type stopped struct{}

// programTB is a sshtest.TB outside a test: its temporary directories and
// cleanups are undone by teardown, and Fatal or Skip ends the program.
type programTB struct {
	cleanups []func()
	base     string // holds the temporary directories
	failed   bool
}

func (t *programTB) Helper()          {}
func (t *programTB) Failed() bool     { return t.failed }
func (t *programTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

// TempDir, as testing's, is a new directory inside one of the program's
// own (Start changes the mode of the one above the directory it gets).
func (t *programTB) TempDir() string {
	if t.base == "" {
		d, err := os.MkdirTemp("", "sshhosts-")
		if err != nil {
			t.Fatal(err)
		}
		t.base = d
	}
	d, err := os.MkdirTemp(t.base, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (t *programTB) Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sshhosts: "+format+"\n", args...)
}

func (t *programTB) Errorf(format string, args ...any) {
	t.failed = true
	t.Logf(format, args...)
}

func (t *programTB) Fatal(args ...any) { t.Fatalf("%s", fmt.Sprint(args...)) }

func (t *programTB) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	panic(stopped{})
}

func (t *programTB) Skip(args ...any) { t.Fatal(args...) }

// teardown runs the cleanups, last first, and removes the directories.
func (t *programTB) teardown() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	if t.base != "" {
		if err := os.RemoveAll(t.base); err != nil {
			t.Logf("%v", err)
		}
	}
}
