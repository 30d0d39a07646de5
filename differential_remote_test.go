package main

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/fan-run/fan/internal/sshtest"
)

// TestDifferentialRemote runs a few command lines with -S through both fan
// and GNU parallel, against the same two test hosts, and compares stdout
// and exit status. GNU parallel costs a fraction of a second per remote
// job: the cases are few and small.
func TestDifferentialRemote(t *testing.T) {
	parallel, fan := parallelAndFan(t)
	hs := sshtest.Start(t, 2, sshtest.Options{})
	h2 := hs.Hosts[1]
	// Not "new\nline": GNU parallel passes it to a remote command as two
	// words (new, line); fan passes it byte-exact, as it does locally
	// (remote/exec_test.go checks that).
	hostile := []string{"a b", "it's", `"q"`, "$(id)", "`id`", "*", "x;y", "a|b", `back\slash`, "-n", "~", "${HOME}", "tab\there", "#c", "é"}
	cases := []struct {
		name string
		args []string
	}{
		{"two-hosts", []string{"-k", "-S", "1/h1,1/h2", "echo", ":::", "a", "b", "c", "d"}},
		{"hostile-items", append([]string{"-k", "-S", "2/h1", "printf", "[%s]\\n", ":::"}, hostile...)},
		{"hostile-in-shell-line", append([]string{"-k", "-S", "1/h1,1/h2", `printf '%s|' {} {}; echo`, ":::"}, hostile[:8]...)},
		{"exit-statuses", []string{"-k", "-S", "1/h1,1/h2", "echo {}; exit {}", ":::", "0", "3", "0", "5"}},
		{"hosts-see-their-own", []string{"-k", "-S", "1/h1", "--tag", "test -d ~ && echo home {}", ":::", "x", "y"}},
		{"nonall", []string{"-k", "--nonall", "-S", "h1,h2", "test -d ~ && echo home; echo $# {}"}},
		{"nonall-failing", []string{"-k", "--nonall", "-S", "h1,h2", "echo x; exit 3"}},
		{"onall", []string{"-k", "--onall", "-S", "h1,h2", "echo {}; [ {} != b ]", ":::", "a", "b", "c"}},
		{"onall-tag", []string{"-k", "--tag", "--onall", "-S", "2/h1,h2", "echo", ":::", "x", "y"}},
		{"onall-two-sources", []string{"-k", "--onall", "-S", "h1,h2", "-j1", "echo {1}-{2}; exit {2}", ":::", "a", "b", ":::", "0", "1"}},
		// --plus's {host} and {sshlogin}: the host and login a job runs on
		// (GNU parallel has its shell expand $PARALLEL_SSHHOST there).
		{"plus-host", []string{"-k", "--plus", "-S", "2/" + hs.Hosts[0].User + "@h1", `echo {host} {sshlogin} "{host}" {}`, ":::", "a", "b"}},
		{"plus-host-onall", []string{"-k", "--plus", "--onall", "-S", "h1,h2", "echo {host} {sshlogin} {}", ":::", "x", "y"}},
		{"plus-host-nonall", []string{"-k", "--plus", "--nonall", "-S", hs.Hosts[1].User + "@h2", "echo {host} {sshlogin}"}},
		// A login by address and port, and one with an ssh command of its
		// own (GNU parallel splits that one at its blanks: echo joins them
		// again).
		{"plus-host-port", []string{"-k", "--plus", "-S", fmt.Sprintf("1/%s@%s:%d", h2.User, h2.Addr, h2.Port), "echo {host} {sshlogin} {}", ":::", "a"}},
		{"plus-host-ssh-command", []string{"-k", "--plus", "-S", fmt.Sprintf("1/%s -p %d %s@%s", hs.SSHCommand(), h2.Port, h2.User, h2.Addr), "echo {host} {sshlogin} {}", ":::", "a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { compareRemote(t, hs, fan, parallel, tc.args) })
	}
}

// TestDifferentialRemoteOnAllRefused runs --onall and --nonall with a
// host that refuses the connection (its sshd is down) beside one that
// answers: the same stdout, and the same status (one host failed), though
// fan tries the refused host once and GNU parallel once per item.
func TestDifferentialRemoteOnAllRefused(t *testing.T) {
	parallel, fan := parallelAndFan(t)
	hs := sshtest.Start(t, 2, sshtest.Options{})
	hs.Hosts[1].Down()
	for _, args := range [][]string{
		{"-k", "--onall", "-S", "h1,h2", "echo", ":::", "a", "b", "c"},
		{"-k", "--nonall", "-S", "h2,h1", "echo hi"},
	} {
		t.Run(args[1], func(t *testing.T) { compareRemote(t, hs, fan, parallel, args) })
	}
}

// TestDifferentialRemoteFunctions passes exported bash functions to a
// host with --env, through fan and GNU parallel: one whose name holds a
// dash, which no variable's may, and one that needs bash. GNU parallel
// defines them in the host user's login shell, so that shell is bash
// here: under sh it fails ("Bad function name"). fan hands them to the
// job's bash past the login shell, and needs none (TestRemoteEnvAndWorkdir
// runs them on a host whose login shell is sh).
func TestDifferentialRemoteFunctions(t *testing.T) {
	parallel, fan := parallelAndFan(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to be the host's login shell")
	}
	hs := sshtest.Start(t, 1, sshtest.Options{Shell: bash})
	compareRemote(t, hs, fan, parallel,
		[]string{"-k", "-S", "1/h1", "--env", "my-func", "--env", "shout", "my-func {}; shout {}", ":::", "a b", "it's"},
		"BASH_FUNC_my-func%%=() {  echo \"my-func got [$1]\"\n}", "BASH_FUNC_shout%%=() {  echo \"${1^^}!\"\n}")
}

// compareRemote runs args through fan and GNU parallel against hs, each
// in a fresh home with env added to the test's environment, and fails t
// unless both give the same stdout and exit status.
func compareRemote(t *testing.T, hs *sshtest.Hosts, fan, parallel string, args []string, env ...string) {
	t.Helper()
	var outs [2]string
	var statuses [2]int
	for i, prog := range []string{fan, parallel} {
		home := t.TempDir()
		c := exec.Command(prog, args...)
		c.Dir = home
		c.Env = append(os.Environ(), "HOME="+home, "SHELL=/bin/sh", "PARALLEL_SSH="+hs.SSHCommand(),
			"GORACE=atexit_sleep_ms=0", "FAN_OPTS=", "PARALLEL_HOME="+home+"/.parallel")
		c.Env = append(c.Env, env...)
		outs[i], statuses[i] = stdoutAndStatus(t, c)
	}
	if outs[0] != outs[1] || statuses[0] != statuses[1] {
		t.Errorf("fan %q:\n  fan:      status %d, stdout %q\n  parallel: status %d, stdout %q",
			args, statuses[0], outs[0], statuses[1], outs[1])
	}
}
