package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fan-run/fan/internal/sshtest"
)

// The remote tests run the fan under test with -S against real OpenSSH
// hosts (internal/sshtest: one sshd and one user per host on 127.0.0.x)
// and check what a user sees: output, exit status, the joblog, messages,
// and that nothing fan started is left running on any host.

// fanRun is one finished run of fan.
type fanRun struct {
	stdout, stderr string
	status         int
}

// remoteFan returns a command running the fan under test with args,
// reaching the test hosts through PARALLEL_SSH, in dir.
func remoteFan(t *testing.T, hs *sshtest.Hosts, dir string, args ...string) *exec.Cmd {
	t.Helper()
	fan, err := exec.LookPath("fan")
	if err != nil {
		t.Fatalf("the fan command is not on PATH: %v", err)
	}
	c := exec.Command(fan, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "PARALLEL_SSH="+hs.SSHCommand(), "GORACE=atexit_sleep_ms=0", "FAN_OPTS=", "HOME="+dir)
	return c
}

// run runs c to its end.
func run(t *testing.T, c *exec.Cmd) fanRun {
	t.Helper()
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	status, err := exitCode(c.Run())
	if err != nil {
		t.Fatalf("%s: %v", c.Path, err)
	}
	return fanRun{out.String(), errb.String(), status}
}

// noLeftovers checks that nothing fan started runs on any host any more.
func noLeftovers(t *testing.T, hs *sshtest.Hosts) {
	t.Helper()
	for _, h := range hs.Hosts {
		h.WaitClean(t, 5*time.Second)
	}
}

// startFan starts c, and returns what it writes on stdout and stderr.
func startFan(t *testing.T, c *exec.Cmd) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	c.Stdout, c.Stderr = stdout, stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return stdout, stderr
}

// sharedDir makes a directory in dir that the hosts' users can write in,
// for jobs to leave marks in.
func sharedDir(t *testing.T, dir string) string {
	t.Helper()
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777) // beyond the umask
	return shared
}

// awaitFiles waits for n files in dir (the jobs that make them to have
// started); it fails t, with fan's stderr so far, after 30 s.
func awaitFiles(t *testing.T, dir string, n int, stderr func() string) {
	t.Helper()
	await(t, fmt.Sprintf("%d files in %s", n, dir), stderr, func() bool {
		ents, _ := os.ReadDir(dir)
		return len(ents) >= n
	})
}

// awaitLines waits for n lines in the file at path (jobs append them).
func awaitLines(t *testing.T, path string, n int, stderr func() string) {
	t.Helper()
	await(t, fmt.Sprintf("%d lines in %s", n, path), stderr, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Count(string(b), "\n") >= n
	})
}

// await waits for done to hold; after 30 s it fails t, saying what it
// waited for, with fan's stderr so far.
func await(t *testing.T, what string, stderr func() string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 30 s; stderr:\n%s", what, stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// press sends fan a SIGINT, as Ctrl-C at a terminal would, and returns
// once fan has said on stderr (which stderr reads while fan runs) that it
// acted on it, with said, and then longer than fan's 200 ms within which
// a signal counts as the same press as the one before. Signals sent at a
// fixed pace are not enough: on a loaded machine fan's signal loop may
// take in two of them together, and count them as one press.
func press(t *testing.T, c *exec.Cmd, stderr func() string, said string) {
	t.Helper()
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	await(t, fmt.Sprintf("%q on stderr", said), stderr, func() bool { return strings.Contains(stderr(), said) })
	time.Sleep(500 * time.Millisecond)
}

// joblogHosts reads a joblog: the Host column of each Seq.
func joblogHosts(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string][]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 9 {
			continue
		}
		hosts[f[0]] = append(hosts[f[0]], f[1]+" exit "+f[6])
	}
	return hosts
}

func sortedLines(s string) []string {
	l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	sort.Strings(l)
	return l
}

func TestRemoteRunsOnEveryHost(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	items := []string{}
	for i := 1; i <= 12; i++ {
		items = append(items, fmt.Sprint(i))
	}
	args := append([]string{"-S", "2/h1,2/h2", "-S", "1/:", "--joblog", "log", "-k",
		`sleep 0.3; echo {} $(whoami) {%} $FAN_SEQ; [ {} != 12 ] || exit 3`, ":::"}, items...)
	r := run(t, remoteFan(t, hs, dir, args...))
	if r.status != 1 {
		t.Errorf("exit status %d, want 1 (one job failed); stderr:\n%s", r.status, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 12 {
		t.Fatalf("stdout has %d lines, want 12:\n%s", len(lines), r.stdout)
	}
	me, _ := exec.Command("whoami").Output()
	users := map[string]bool{}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 4 || f[0] != fmt.Sprint(i+1) || f[3] != f[0] {
			t.Errorf("line %d: %q, want the item, a user, a slot and the job number", i+1, l)
			continue
		}
		users[f[1]] = true
		if f[2] < "1" || f[2] > "5" || len(f[2]) != 1 {
			t.Errorf("line %d: slot %s, want 1..5 (2+2+1 slots)", i+1, f[2])
		}
	}
	for _, u := range []string{hs.Hosts[0].User, hs.Hosts[1].User, strings.TrimSpace(string(me))} {
		if !users[u] {
			t.Errorf("no job ran as %s (on its host); users seen: %v", u, users)
		}
	}
	logged := joblogHosts(t, filepath.Join(dir, "log"))
	seen := map[string]bool{}
	for seq, hosts := range logged {
		if len(hosts) != 1 {
			t.Errorf("job %s logged %d times: %v", seq, len(hosts), hosts)
		}
		host, _, _ := strings.Cut(hosts[0], " ")
		seen[host] = true
		if seq == "12" && !strings.HasSuffix(hosts[0], "exit 3") {
			t.Errorf("job 12 logged as %q, want exit 3", hosts[0])
		}
	}
	for _, h := range []string{"h1", "h2", ":"} {
		if !seen[h] {
			t.Errorf("the joblog's Host column never names %q: %v", h, logged)
		}
	}
	noLeftovers(t, hs)
}

func TestRemoteSlotsFromTheHostsCPUCount(t *testing.T) {
	hs := sshtest.Start(t, 1, sshtest.Options{})
	dir := t.TempDir()
	// No N/: the host's CPU count (this machine's) is its slots, and the
	// program, missing on this machine, is the host's to find.
	home := hs.Hosts[0].Home()
	script := filepath.Join(home, "only-on-h1")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"h1 says $1 in slot $FAN_SLOT\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(script, hs.Hosts[0].UID(), -1)
	r := run(t, remoteFan(t, hs, dir, "-S", "h1", "-k", "./only-on-h1", ":::", "a", "b"))
	if r.status != 0 || r.stdout != "h1 says a in slot 1\nh1 says b in slot 2\n" && r.stdout != "h1 says a in slot 1\nh1 says b in slot 1\n" {
		t.Errorf("status %d, stdout:\n%s\nstderr:\n%s", r.status, r.stdout, r.stderr)
	}
}

func TestRemoteHostDownAtStart(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	hs.Hosts[0].Down()
	dir := t.TempDir()
	r := run(t, remoteFan(t, hs, dir, "-S", "2/h1,2/h2", "--joblog", "log", "echo {}", ":::", "1", "2", "3", "4", "5", "6"))
	if r.status != 0 {
		t.Errorf("exit status %d, want 0: every item runs on h2; stderr:\n%s", r.status, r.stderr)
	}
	if got := sortedLines(r.stdout); strings.Join(got, " ") != "1 2 3 4 5 6" {
		t.Errorf("stdout %q, want each item once", r.stdout)
	}
	if n := strings.Count(r.stderr, "host h1 cannot be reached"); n != 1 {
		t.Errorf("stderr names the down host %d times, want once:\n%s", n, r.stderr)
	}
	for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
		if len(hosts) != 1 || hosts[0] != "h2 exit 0" {
			t.Errorf("job %s logged as %v, want once, on h2", seq, hosts)
		}
	}
}

func TestRemoteEveryHostDownGivesUp(t *testing.T) {
	hs := sshtest.Start(t, 1, sshtest.Options{})
	hs.Hosts[0].Down()
	dir := t.TempDir()
	r := run(t, remoteFan(t, hs, dir, "-S", "1/h1", "--host-timeout", "2s", "--failures", "failed", "echo {}", ":::", "a", "b", "c"))
	if r.status != 3 {
		t.Errorf("exit status %d, want 3 (three items not run); stderr:\n%s", r.status, r.stderr)
	}
	for _, want := range []string{"host h1 cannot be reached", "no host could be reached for 2s (h1): not starting the remaining jobs", "3 read = 0 succeeded + 0 failed + 3 not started"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "failed")); string(b) != "a\nb\nc\n" {
		t.Errorf("failures file %q, want every item", b)
	}
}

func TestRemoteHostKilledMidRun(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777)
	n := 24
	var items []string
	for i := 1; i <= n; i++ {
		items = append(items, fmt.Sprint(i))
	}
	// Each job notes that it ran, sleeps, and notes that it ended.
	job := fmt.Sprintf(`echo {} >> %s/started.$(whoami); sleep 0.4; echo {} >> %s/done.$(whoami); echo {}`, shared, shared)
	c := remoteFan(t, hs, dir, append([]string{"-S", "3/h1,3/h2", "--joblog", "log", job, ":::"}, items...)...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Once h1 has run some jobs, it dies mid-job.
	awaitLines(t, filepath.Join(shared, "started."+hs.Hosts[0].User), 5, errb.String)
	hs.Hosts[0].Kill()
	status, err := exitCode(c.Wait())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stderr:\n%s", errb.String())
	if status != 0 {
		t.Errorf("exit status %d, want 0 (every item ends succeeded elsewhere); stderr:\n%s", status, errb.String())
	}
	if got, want := strings.Join(sortedLines(out.String()), " "), strings.Join(sortedLines(strings.Join(items, "\n")), " "); got != want {
		t.Errorf("stdout has items %s, want each once: %s", got, want)
	}
	if n := strings.Count(errb.String(), "host h1 cannot be reached"); n != 1 {
		t.Errorf("stderr names the dead host %d times, want once:\n%s", n, errb.String())
	}
	// An item that finished is never run again: the only items done twice
	// are those running on h1 when it died (its 3 slots) whose end it
	// noted but could not report.
	done1, _ := os.ReadFile(filepath.Join(shared, "done."+hs.Hosts[0].User))
	done2, _ := os.ReadFile(filepath.Join(shared, "done."+hs.Hosts[1].User))
	done := append(done1, done2...)
	count := map[string]int{}
	for _, l := range strings.Fields(string(done)) {
		count[l]++
	}
	twice := 0
	for _, it := range items {
		switch count[it] {
		case 0:
			t.Errorf("item %s never finished", it)
		case 1:
		default:
			twice++
		}
	}
	if twice > 3 {
		t.Errorf("%d items finished twice: %v", twice, count)
	}
	for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
		if len(hosts) != 1 || !strings.HasSuffix(hosts[0], "exit 0") {
			t.Errorf("job %s logged as %v, want once, succeeded", seq, hosts)
		}
	}
	hs.Hosts[1].WaitClean(t, 5*time.Second)
}

func TestRemoteTimeoutKillsTheRemoteTree(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	// The job ignores SIGTERM and leaves a child behind; --termseq ends
	// in KILL, and the group goes whole.
	job := `trap "" TERM; sleep 300 & sleep 301; echo never`
	start := time.Now()
	r := run(t, remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--timeout", "1", "--termseq", "TERM,300,KILL,25", job, ":::", "a", "b"))
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
	if r.status != 2 {
		t.Errorf("exit status %d, want 2 (both timed out); stderr:\n%s", r.status, r.stderr)
	}
	if n := strings.Count(r.stderr, "timed out after 1.0s"); n != 2 {
		t.Errorf("stderr tells of %d timeouts, want 2:\n%s", n, r.stderr)
	}
	if strings.Contains(r.stdout, "never") {
		t.Errorf("stdout: %q", r.stdout)
	}
	noLeftovers(t, hs)
}

func TestRemoteHaltNowKillsTheOtherJobs(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	r := run(t, remoteFan(t, hs, dir, "-S", "2/h1,2/h2", "--halt", "now,fail=1", `[ {} = x ] && { sleep 0.5; exit 4; }; sleep 300 & sleep 300`, ":::", "x", "y", "z", "w"))
	if r.status != 4 {
		t.Errorf("exit status %d, want 4 (the failing job's); stderr:\n%s", r.status, r.stderr)
	}
	noLeftovers(t, hs)
}

func TestRemoteCtrlCDrainsThenKills(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	shared := sharedDir(t, dir)
	job := fmt.Sprintf(`touch %s/{}; sleep 300 & sleep 300`, shared)
	c := remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--failures", "failed", job, ":::", "a", "b", "c", "d")
	stderr := stderrFile(t, c)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	awaitFiles(t, shared, 2, stderr)
	press(t, c, stderr, "starting no new jobs")
	c.Process.Signal(syscall.SIGINT) // a second press, not the same one
	status, err := exitCode(c.Wait())
	if err != nil {
		t.Fatal(err)
	}
	if status != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", status, stderr())
	}
	if !strings.Contains(stderr(), "4 read = 0 succeeded + 2 failed + 2 not started") {
		t.Errorf("stderr:\n%s", stderr())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "failed")); len(sortedLines(string(b))) != 4 {
		t.Errorf("failures file %q, want all four items", b)
	}
	noLeftovers(t, hs)
}

func TestRemoteLoginFileIsReadAgain(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	slf := filepath.Join(dir, "hosts")
	if err := os.WriteFile(slf, []byte("# the first host\n1/h1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := sharedDir(t, dir)
	c := remoteFan(t, hs, dir, "--slf", "hosts", "--joblog", "log", fmt.Sprintf("touch %s/{}; sleep 0.3; whoami", shared), ":::", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
	out, errb := startFan(t, c)
	// Once h1 runs a job (however long it took to answer), the file
	// names h2 instead.
	awaitFiles(t, shared, 1, errb.String)
	if err := os.WriteFile(slf, []byte("1/h2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, err := exitCode(c.Wait())
	if err != nil || status != 0 {
		t.Fatalf("status %d %v; stderr:\n%s", status, err, errb.String())
	}
	lines := strings.Fields(out.String())
	if len(lines) != 10 || lines[0] != hs.Hosts[0].User || lines[9] != hs.Hosts[1].User {
		t.Errorf("jobs ran as %v: want h1's user first, then h2's once the file named h2", lines)
	}
}

func TestRemoteUsageErrors(t *testing.T) {
	dir := t.TempDir()
	fan, err := exec.LookPath("fan")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-S", "user:pw@host", "echo"}, `fan: -S: "user:pw@host": passwords in logins are not supported`},
		{[]string{"-S", "0/host", "echo"}, `fan: -S: "0/host": 0 job slots`},
		{[]string{"--slf", "missing", "echo"}, `fan: --sshloginfile: cannot read "missing": no such file or directory`},
		{[]string{"-S", "h1", "--ssh", "ssh $X", "echo"}, `fan: --ssh: '$' in "ssh $X" needs a shell`},
		{[]string{"--ssh", "ssh", "echo"}, `fan: --ssh is for jobs on other hosts: give the hosts with -S or --sshloginfile`},
		{[]string{"--return", "{}.out", "echo"}, `fan: --return is for jobs on other hosts`},
		{[]string{"-S", "", "echo"}, `fan: -S and --sshloginfile name no host`},
	} {
		c := exec.Command(fan, append(tc.args, ":::", "x")...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
		var errb bytes.Buffer
		c.Stderr = &errb
		status, err := exitCode(c.Run())
		if err != nil {
			t.Fatal(err)
		}
		if status != 255 || !strings.HasPrefix(errb.String(), tc.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("fan %q: status %d, stderr %q; want 255 and one line starting %q", tc.args, status, errb.String(), tc.want)
		}
	}
}

func TestRemoteEnvAndWorkdir(t *testing.T) {
	hs := sshtest.Start(t, 1, sshtest.Options{})
	dir := t.TempDir()
	h1 := hs.Hosts[0]
	// A variable reaches a remote job only when --env names it; an
	// exported bash function too (export -f), and the job then runs in
	// bash there, as it would here.
	c := remoteFan(t, hs, dir, "-S", "1/h1", "-k", "--env", "GREETING", "--env", "shout",
		`echo "$GREETING/$UNSENT"; shout {}`, ":::", "it's", "$(id)")
	c.Env = append(c.Env, "GREETING=hello there", "UNSENT=x", "BASH_FUNC_shout%%=() {  echo \"${1^^}!\"\n}")
	r := run(t, c)
	if want := "hello there/\nIT'S!\nhello there/\n$(ID)!\n"; r.status != 0 || r.stdout != want {
		t.Errorf("status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	// A function whose name no variable could have (bash allows a dash
	// there) is passed as well, as GNU parallel passes it; the shell that
	// runs the wrapper on the host cannot name it, yet must not drop it.
	c = remoteFan(t, hs, dir, "-S", "1/h1", "-k", "--env", "my-func", "my-func {}", ":::", "a b", "it's")
	c.Env = append(c.Env, "BASH_FUNC_my-func%%=() {  echo \"my-func got [$1]\"\n}")
	r = run(t, c)
	if want := "my-func got [a b]\nmy-func got [it's]\n"; r.status != 0 || r.stdout != want {
		t.Errorf("--env my-func: status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	// The login and the host a job runs on, as GNU parallel names them; a
	// value from fan's own environment does not reach the job.
	c = remoteFan(t, hs, dir, "-S", "1/"+h1.User+"@h1", "--env", "PARALLEL_SSHHOST",
		`echo "$PARALLEL_SSHLOGIN|$PARALLEL_SSHHOST"`, "#", ":::", "a")
	c.Env = append(c.Env, "PARALLEL_SSHHOST=outer")
	r = run(t, c)
	if want := h1.User + "@h1|h1\n"; r.status != 0 || r.stdout != want {
		t.Errorf("PARALLEL_SSHLOGIN|PARALLEL_SSHHOST: status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	// --workdir DIR: relative to the login's home, made when missing.
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h1", "--workdir", "jobs/{}", `pwd; touch made`, ":::", "a b"))
	if want := filepath.Join(h1.Home(), "jobs", "a b") + "\n"; r.status != 0 || r.stdout != want {
		t.Errorf("--workdir jobs/{}: status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h1.Home(), "jobs", "a b", "made")); err != nil {
		t.Error(err)
	}
	// --workdir ...: a fresh directory per job, gone afterwards.
	r = run(t, remoteFan(t, hs, dir, "-S", "2/h1", "-k", "--workdir", "...", `pwd; ls; touch {}`, ":::", "x", "y"))
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	tmp := filepath.Join(h1.Home(), ".parallel", "tmp") + "/"
	if r.status != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], tmp) || !strings.HasPrefix(lines[1], tmp) || lines[0] == lines[1] {
		t.Errorf("--workdir ...: status %d, stdout %q: want two empty directories under %s; stderr:\n%s", r.status, r.stdout, tmp, r.stderr)
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Errorf("--workdir ...: left %v (%v)", ents, err)
	}
	// Files come back from it before it goes.
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h1", "--workdir", "...", "--return", "{}.o", `echo in $(basename $PWD) > {}.o`, ":::", "a"))
	if b, err := os.ReadFile(filepath.Join(dir, "a.o")); r.status != 0 || !strings.HasPrefix(string(b), "in fan-") {
		t.Errorf("--workdir ... --return: status %d, a.o %q (%v); stderr:\n%s", r.status, b, err, r.stderr)
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Errorf("--workdir ... --return: left %v (%v)", ents, err)
	}
	// Not with : among the hosts, where it would be a directory named ...
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h1,:", "--workdir", "...", "true", ":::", "x"))
	if r.status != 255 || !strings.Contains(r.stderr, "fan: --workdir ...: a fresh directory per job is made on remote hosts only") {
		t.Errorf("--workdir ... with -S :: status %d, stderr %q", r.status, r.stderr)
	}
}

func TestRemoteTransferReturnCleanup(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	// On the host, a name holding /./ is what follows it.
	names := []string{"a b", "it's", "new\nline", "-dash", "$(id)", `q"uote`, "sub/./deep/x"}
	for i, n := range names {
		local := strings.ReplaceAll(n, "/./", "/")
		os.MkdirAll(filepath.Join(dir, filepath.Dir(local)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, local), []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	items := append([]string{}, names...)
	items = append(items, "missing")
	c := remoteFan(t, hs, dir, append([]string{"-S", "1/h1,1/h2", "-0", "--trc", "{}.out", `f={}; f=${f#*/./}; wc -c < "$f" > "$f.out"`}, "::::", "-")...)
	c.Stdin = strings.NewReader(strings.Join(items, "\x00") + "\x00")
	r := run(t, c)
	if r.status != 1 {
		t.Errorf("exit status %d, want 1 (the missing file's job failed); stderr:\n%s", r.status, r.stderr)
	}
	if !strings.Contains(r.stderr, `fan: --transfer: cannot read "missing": no such file or directory`) {
		t.Errorf("stderr does not say which file is missing:\n%s", r.stderr)
	}
	for i, n := range names {
		got, err := os.ReadFile(filepath.Join(dir, strings.ReplaceAll(n, "/./", "/")+".out"))
		if err != nil || strings.TrimSpace(string(got)) != fmt.Sprint(i+1) {
			t.Errorf("%q: returned %q (%v), want %d", n, got, err, i+1)
		}
	}
	// --cleanup: nothing of the jobs is left in the hosts' homes (the
	// one made directory, deep, is empty).
	for _, h := range hs.Hosts {
		filepath.Walk(h.Home(), func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !strings.Contains(p, "/.") {
				t.Errorf("%s: left %s", h.Name, p)
			}
			return nil
		})
	}
}

func TestRemoteBasefileOncePerHost(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "it's base"), []byte("shared data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each job appends to the base file on its host: had it been copied
	// again before a later job, that job would see one line only.
	job := `echo {} >> "it's base"; wc -l < "it's base"; sleep 0.5`
	r := run(t, remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--bf", "it's base", job, ":::", "1", "2", "3", "4", "5", "6"))
	if r.status != 0 {
		t.Fatalf("status %d; stderr:\n%s", r.status, r.stderr)
	}
	if got := strings.Join(sortedLines(r.stdout), " "); got == "2 2 2 2 2 2" || strings.Count(r.stdout, "\n") != 6 {
		t.Errorf("line counts %q: the base file was copied before every job", got)
	}
	for _, h := range hs.Hosts {
		b, err := os.ReadFile(filepath.Join(h.Home(), "it's base"))
		if err != nil || !strings.HasPrefix(string(b), "shared data\n") {
			t.Errorf("%s: base file %q (%v)", h.Name, b, err)
		}
	}
	// With --cleanup it is gone from the hosts at the end, and in a
	// fixed --workdir it lands there.
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--bf", "it's base", "--cleanup", "--wd", "w", `cat "it's base"; : {}`, ":::", "1", "2"))
	if r.status != 0 || r.stdout != "shared data\nshared data\n" {
		t.Errorf("--cleanup --wd w: status %d, stdout %q; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
	for _, h := range hs.Hosts {
		if _, err := os.Stat(filepath.Join(h.Home(), "w", "it's base")); !os.IsNotExist(err) {
			t.Errorf("%s: --cleanup left the base file (%v)", h.Name, err)
		}
	}
	// A base file that cannot be read is refused before any job.
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h1", "--bf", "missing", "echo", ":::", "1"))
	if r.status != 255 || r.stdout != "" || r.stderr != "fan: --basefile: cannot read \"missing\": no such file or directory (give a file that each host needs)\n" {
		t.Errorf("missing base file: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
}

func TestRemoteFilterHostsDropsTheDownOnes(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	hs.Hosts[1].Down()
	dir := t.TempDir()
	r := run(t, remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--filter-hosts", "--joblog", "log", "echo {}", ":::", "a", "b", "c"))
	if r.status != 0 || strings.Join(sortedLines(r.stdout), " ") != "a b c" {
		t.Errorf("status %d, stdout %q; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
	want := "fan: --filter-hosts: dropping host h2, which cannot be reached (ssh: connect to host"
	if !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", r.stderr, want)
	}
	for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
		if len(hosts) != 1 || hosts[0] != "h1 exit 0" {
			t.Errorf("job %s logged as %v, want once, on h1", seq, hosts)
		}
	}
	// Every host dropped: nothing runs, exit 255, the items stay unread.
	hs.Hosts[0].Down()
	c := remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--filter-hosts", "echo")
	c.Stdin = strings.NewReader("x\n")
	r = run(t, c)
	if r.status != 255 || r.stdout != "" || !strings.HasSuffix(r.stderr, "fan: --filter-hosts: no host can be reached: not running any job (check the logins with ssh LOGIN true)\n") || strings.Count(r.stderr, "\n") != 3 {
		t.Errorf("every host down: status %d, stdout %q, stderr:\n%s", r.status, r.stdout, r.stderr)
	}
}

// --slf .. is the sshloginfile of $PARALLEL_HOME when it is set, as the
// config file is.
func TestRemoteDotDotLoginFile(t *testing.T) {
	hs := sshtest.Start(t, 1, sshtest.Options{})
	dir := t.TempDir()
	ph := filepath.Join(dir, "ph")
	if err := os.MkdirAll(ph, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ph, "sshloginfile"), []byte("1/h1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := remoteFan(t, hs, dir, "--slf", "..", "echo $(whoami) {}", ":::", "x")
	c.Env = append(c.Env, "PARALLEL_HOME="+ph)
	if r := run(t, c); r.status != 0 || r.stdout != hs.Hosts[0].User+" x\n" {
		t.Errorf("status %d, stdout %q, want h1's user; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
}

// A host --filter-hosts dropped is not tried again when the login file
// changes and still names it, even once it answers.
func TestRemoteFilteredHostStaysDropped(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	hs.Hosts[1].Down()
	dir := t.TempDir()
	slf := filepath.Join(dir, "hosts")
	if err := os.WriteFile(slf, []byte("1/h1\n1/h2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := sharedDir(t, dir)
	c := remoteFan(t, hs, dir, "--slf", "hosts", "--filter-hosts", "--joblog", "log", fmt.Sprintf("touch %s/{}; sleep 0.5", shared), ":::", "1", "2", "3", "4", "5", "6")
	_, errb := startFan(t, c)
	awaitFiles(t, shared, 1, errb.String)
	if err := hs.Hosts[1].Up(); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(slf, []byte("# changed\n1/h1\n1/h2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, err := exitCode(c.Wait())
	if err != nil || status != 0 {
		t.Fatalf("status %d %v; stderr:\n%s", status, err, errb.String())
	}
	if got := errb.String(); !strings.HasPrefix(got, "fan: --filter-hosts: dropping host h2") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q: want only the line dropping h2", got)
	}
	for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
		if len(hosts) != 1 || hosts[0] != "h1 exit 0" {
			t.Errorf("job %s logged as %v, want once, on h1", seq, hosts)
		}
	}
}

func TestRemoteRetryPrefersAnotherHost(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	// Jobs fail at once on h1, where a marker file is, and succeed slowly
	// on h2: a retry that went where a slot is free first would go back
	// to h1 and fail again.
	bad := filepath.Join(hs.Hosts[0].Home(), "bad")
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	job := `if [ -e bad ]; then echo "{} failed on $(whoami)" >&2; exit 1; fi; sleep 0.5; echo {}`
	r := run(t, remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--retries", "2", "--joblog", "log", job, ":::", "a", "b", "c", "d"))
	if r.status != 0 || strings.Join(sortedLines(r.stdout), " ") != "a b c d" {
		t.Errorf("status %d, stdout %q, want every item once, run on h2; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
	for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
		if len(hosts) != 1 || hosts[0] != "h2 exit 0" {
			t.Errorf("job %s logged as %v, want once, succeeded on h2", seq, hosts)
		}
	}
	// With h1 the only host, the retry runs there again.
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h1", "--retries", "2", job, ":::", "a"))
	if r.status != 1 || strings.Count(r.stderr, "a failed on "+hs.Hosts[0].User) != 1 {
		t.Errorf("one host: status %d, stderr:\n%s", r.status, r.stderr)
	}
}

func TestRemoteOnAll(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	// Items from stdin reach every host; each host runs them in turn, and
	// the joblog has one row per host, naming it, with the number of its
	// jobs that failed; the exit status counts the hosts where one did.
	c := remoteFan(t, hs, dir, "--onall", "-S", "h1,h2", "-k", "--joblog", "log", "--timeout", "2",
		`echo {} $(whoami); if [ {} = slow ] && [ $(whoami) = `+hs.Hosts[1].User+` ]; then sleep 300 & sleep 300; fi`)
	c.Stdin = strings.NewReader("a\nslow\nb\n")
	start := time.Now()
	r := run(t, c)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v: the timed out job was not stopped", took)
	}
	u1, u2 := hs.Hosts[0].User, hs.Hosts[1].User
	want := fmt.Sprintf("a %s\nslow %s\nb %s\na %s\nslow %s\nb %s\n", u1, u1, u1, u2, u2, u2)
	if r.status != 1 || r.stdout != want {
		t.Errorf("status %d, stdout %q, want 1 (one host had a job fail) and %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	if !strings.Contains(r.stderr, "fan: job 2 timed out after 2.0s and was stopped") {
		t.Errorf("stderr does not tell of the timeout:\n%s", r.stderr)
	}
	logged := joblogHosts(t, filepath.Join(dir, "log"))
	if len(logged) != 2 || strings.Join(logged["1"], "") != "h1 exit 0" || strings.Join(logged["2"], "") != "h2 exit 1" {
		t.Errorf("joblog rows %v, want h1 exit 0 and h2 exit 1", logged)
	}
	noLeftovers(t, hs)

	// A drain stops the hosts' next jobs; the running ones finish. Each
	// host's first job runs until fan has said that it took the Ctrl-C
	// in: one that ran for a fixed time could end before, on a loaded
	// machine, and a host that logged in well before the other could run
	// its second job before the other began its first.
	shared := sharedDir(t, dir)
	job := fmt.Sprintf(`touch %[1]s/{}.$(whoami); n=0; while [ ! -e %[1]s/go ] && [ $n -lt 600 ]; do n=$((n+1)); sleep 0.1; done; echo {}`, shared)
	c = remoteFan(t, hs, dir, "--onall", "-S", "h1,h2", job, ":::", "1", "2", "3")
	var out bytes.Buffer
	c.Stdout = &out
	stderr := stderrFile(t, c)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	awaitFiles(t, shared, 2, stderr)
	c.Process.Signal(syscall.SIGINT)
	await(t, "the drain's message", stderr, func() bool { return strings.Contains(stderr(), "starting no new jobs") })
	if err := os.WriteFile(filepath.Join(shared, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	status, err := exitCode(c.Wait())
	if err != nil {
		t.Fatal(err)
	}
	if status != 130 || out.String() != "1\n1\n" || strings.Count(stderr(), ": 2 jobs not started: the run is stopping") != 2 {
		t.Errorf("after Ctrl-C: status %d, stdout %q, want 130 and each host's first job; stderr:\n%s", status, out.String(), stderr())
	}
	noLeftovers(t, hs)

	// A base file reaches each host before its first job, and goes with
	// --cleanup.
	if err := os.WriteFile(filepath.Join(dir, "base"), []byte("based\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, remoteFan(t, hs, dir, "--onall", "-S", "h1,h2", "-k", "--bf", "base", "--cleanup", "cat base; echo {}", ":::", "x"))
	if r.status != 0 || r.stdout != "based\nx\nbased\nx\n" {
		t.Errorf("--onall --bf: status %d, stdout %q; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
	for _, h := range hs.Hosts {
		if _, err := os.Stat(filepath.Join(h.Home(), "base")); !os.IsNotExist(err) {
			t.Errorf("%s: --cleanup left the base file (%v)", h.Name, err)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nonall", "-S", "h1", "echo", ":::", "a"}, "fan: --nonall runs the command once on each host with no argument, and takes no input"},
		{[]string{"--onall", "-S", "h1", "--failures", "f", "echo", ":::", "a"}, "fan: --onall cannot be used with --failures"},
		{[]string{"--onall", "echo", ":::", "a"}, "fan: --onall is for jobs on other hosts"},
	} {
		r := run(t, remoteFan(t, hs, dir, tc.args...))
		if r.status != 255 || !strings.HasPrefix(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("fan %q: status %d, stderr %q; want 255 and one line starting %q", tc.args, r.status, r.stderr, tc.want)
		}
	}
}

// With --onall, a host that cannot be reached is tried once, not once per
// item: one that refuses (h2, its sshd down) and one that takes the
// connection and never answers (quiet, which costs the 20 s bound on
// logging in) fail all their items at once, with the reason, while h1
// runs its own; the run lasts one bound, not one per item.
func TestRemoteOnAllUnreachableHostTriedOnce(t *testing.T) {
	t.Parallel()
	hs := sshtest.Start(t, 2, sshtest.Options{})
	hs.Hosts[1].Down()
	conns := hs.Silent(t, "quiet")
	dir := t.TempDir()
	c := remoteFan(t, hs, dir, "--onall", "-S", "h1,h2,quiet", "-k", "--joblog", "log", "echo {} $(whoami)", ":::", "1", "2", "3", "4", "5")
	killer := time.AfterFunc(3*time.Minute, func() { c.Process.Kill() })
	defer killer.Stop()
	begin := time.Now()
	r := run(t, c)
	if took := time.Since(begin); took > time.Minute {
		t.Errorf("the run took %v: each item waited for the silent host", took)
	}
	u := hs.Hosts[0].User
	want := fmt.Sprintf("1 %s\n2 %s\n3 %s\n4 %s\n5 %s\n", u, u, u, u, u)
	if r.status != 2 || r.stdout != want {
		t.Errorf("status %d, stdout %q; want 2 (two hosts had jobs fail) and %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	const silent = "no answer within 20s: ssh did not log in"
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "fan: job 1: host h2: ssh: ") ||
		!strings.HasPrefix(lines[1], "fan: host h2: 4 jobs not started: it cannot be reached (ssh: ") ||
		lines[2] != "fan: job 1: host quiet: "+silent ||
		lines[3] != "fan: host quiet: 4 jobs not started: it cannot be reached ("+silent+")" {
		t.Errorf("stderr:\n%s\nwant, for h2 then quiet, job 1's failure and the 4 jobs not started, and the summary", r.stderr)
	}
	logged := joblogHosts(t, filepath.Join(dir, "log"))
	if got := fmt.Sprint(logged); got != "map[1:[h1 exit 0] 2:[h2 exit 5] 3:[quiet exit 5]]" {
		t.Errorf("joblog rows %s, want h1 exit 0, and h2 and quiet exit 5 (their failed jobs)", got)
	}
	taken, open := conns()
	for wait := time.Now().Add(5 * time.Second); open != 0 && time.Now().Before(wait); _, open = conns() {
		time.Sleep(20 * time.Millisecond)
	}
	if taken != 1 || open != 0 {
		t.Errorf("the silent host took %d connections, %d still open after the run; want one, closed", taken, open)
	}
	noLeftovers(t, hs)
}

func TestRemoteHostGoesSilent(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	shared := sharedDir(t, dir)
	var items []string
	for i := 1; i <= 16; i++ {
		items = append(items, fmt.Sprint(i))
	}
	job := fmt.Sprintf(`echo {} >> %s/started.$(whoami); sleep 0.5; echo {}`, shared)
	c := remoteFan(t, hs, dir, append([]string{"-S", "2/h1,2/h2", "--joblog", "log", job, ":::"}, items...)...)
	out, errb := startFan(t, c)
	killer := time.AfterFunc(2*time.Minute, func() { c.Process.Kill() })
	defer killer.Stop()
	awaitLines(t, filepath.Join(shared, "started."+hs.Hosts[0].User), 3, errb.String)
	// h1 stops answering: its sshd and sessions are stopped, its
	// connections stay open. fan notices by ssh's keep-alives (the test
	// configuration's ServerAliveInterval 1, ServerAliveCountMax 3), and
	// the items h1 held run on h2.
	hs.Hosts[0].Stop()
	status, err := exitCode(c.Wait())
	hs.Hosts[0].Cont()
	if err != nil {
		t.Fatal(err)
	}
	if status != 0 || strings.Join(sortedLines(out.String()), " ") != strings.Join(sortedLines(strings.Join(items, "\n")), " ") {
		t.Errorf("status %d, stdout %q: want 0 and every item once; stderr:\n%s", status, out.String(), errb.String())
	}
	if n := strings.Count(errb.String(), "host h1 cannot be reached"); n != 1 {
		t.Errorf("stderr names the silent host %d times, want once:\n%s", n, errb.String())
	}
	for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
		if len(hosts) != 1 || !strings.HasSuffix(hosts[0], "exit 0") {
			t.Errorf("job %s logged as %v, want once, succeeded", seq, hosts)
		}
	}
	// Once it answers again, it sees the connections gone and ends what
	// fan had started there (the jobs' lifelines).
	hs.Hosts[0].WaitClean(t, 15*time.Second)
	hs.Hosts[1].WaitClean(t, 5*time.Second)
}

func TestRemoteThirdCtrlCKillsAtOnce(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	shared := sharedDir(t, dir)
	// The jobs ignore TERM and INT, and the termination sequence would
	// wait 100 s before its KILL: only the third Ctrl-C ends them soon.
	job := fmt.Sprintf(`trap "" TERM INT; touch %s/{}; sleep 300 & sleep 300`, shared)
	c := remoteFan(t, hs, dir, "-S", "1/h1,1/h2", "--termseq", "TERM,100000,KILL,25", "--failures", "failed", job, ":::", "a", "b", "c")
	stderr := stderrFile(t, c)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	awaitFiles(t, shared, 2, stderr)
	// Each press once fan has taken in the one before: three signals
	// that fan counted as two would leave the jobs to the termseq's 100 s.
	press(t, c, stderr, "starting no new jobs")
	press(t, c, stderr, "stopping 2 running jobs")
	begin := time.Now()
	c.Process.Signal(syscall.SIGINT)
	status, err := exitCode(c.Wait())
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); status != 130 || took > 20*time.Second {
		t.Errorf("status %d %v after the third Ctrl-C, want 130 soon; stderr:\n%s", status, took, stderr())
	}
	if !strings.Contains(stderr(), "fan: killing 2 running jobs") {
		t.Errorf("stderr does not tell of the kill:\n%s", stderr())
	}
	noLeftovers(t, hs)
}

func TestRemoteBooksAndResume(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	// The failures file and its JSON lines, the joblog and --results work
	// as locally; the JSON lines and the joblog name the host.
	job := `echo out {}; [ {} != b ]`
	r := run(t, remoteFan(t, hs, dir, "-S", "1/h1", "--joblog", "log", "--failures", "failed", "--results", "res", job, ":::", "a", "b", "c"))
	if r.status != 1 {
		t.Errorf("status %d, want 1; stderr:\n%s", r.status, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "failed")); string(b) != "b\n" {
		t.Errorf("failures file %q, want b", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "failed.jsonl")); !strings.Contains(string(b), `"host":"h1"`) {
		t.Errorf("failures record %q does not name the host", b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "res", "1", "b", "stdout")); err != nil || string(b) != "out b\n" {
		t.Errorf("--results: b's stdout %q (%v)", b, err)
	}
	// --resume-failed runs again only what failed, on whichever host.
	r = run(t, remoteFan(t, hs, dir, "-S", "1/h2", "--joblog", "log", "--resume-failed", `echo again {}`, ":::", "a", "b", "c"))
	if r.status != 0 || r.stdout != "again b\n" {
		t.Errorf("--resume-failed: status %d, stdout %q, want only b again; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
	logged := joblogHosts(t, filepath.Join(dir, "log"))
	if got := strings.Join(logged["2"], ","); got != "h1 exit 1,h2 exit 0" {
		t.Errorf("joblog rows of job 2: %q, want h1's failure then h2's success", got)
	}
}

func TestRemoteSSHFlagWinsAndTf(t *testing.T) {
	hs := sshtest.Start(t, 1, sshtest.Options{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("carried\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// --ssh wins over $PARALLEL_SSH (here a command that cannot reach
	// anything); --tf is --transferfile.
	c := remoteFan(t, hs, dir, "--ssh", hs.SSHCommand(), "-S", "1/h1", "--tf", "in.txt", "cat in.txt; echo {}", ":::", "x")
	c.Env = append(c.Env, "PARALLEL_SSH=false")
	r := run(t, c)
	if r.status != 0 || r.stdout != "carried\nx\n" {
		t.Errorf("status %d, stdout %q; stderr:\n%s", r.status, r.stdout, r.stderr)
	}
}

// TestRemotePlusHost: --plus's {host} and {sshlogin} name the host a job
// runs on and the login it went through, as PARALLEL_SSHHOST and
// PARALLEL_SSHLOGIN do there: the login as given (user, port, ssh command
// and all, without N/), and its host part alone.
func TestRemotePlusHost(t *testing.T) {
	hs := sshtest.Start(t, 2, sshtest.Options{})
	dir := t.TempDir()
	h2 := hs.Hosts[1]
	// h2 by its address, with its user and port in the login.
	login2 := fmt.Sprintf("%s@%s:%d", h2.User, h2.Addr, h2.Port)
	// Each host has one slot and each job lasts: the two jobs run one on
	// each host.
	r := run(t, remoteFan(t, hs, dir, "--plus", "-S", "1/h1,1/"+login2, "--tagstring", "{host}",
		`sleep 0.5; echo "{host}|{sshlogin}|$PARALLEL_SSHHOST|$PARALLEL_SSHLOGIN|$(id -un)|{}"`, ":::", "a", "b"))
	want := []string{
		"h1\th1|h1|h1|h1|" + hs.Hosts[0].User + "|",
		h2.Addr + "\t" + h2.Addr + "|" + login2 + "|" + h2.Addr + "|" + login2 + "|" + h2.User + "|",
	}
	sort.Strings(want)
	lines := sortedLines(r.stdout)
	if r.status != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], want[0]) || !strings.HasPrefix(lines[1], want[1]) {
		t.Errorf("status %d, stdout %q, want lines starting %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	// -t prints the command the job's shell runs on its host, with its
	// host's values, not the ssh command that carries it there.
	r = run(t, remoteFan(t, hs, dir, "--plus", "-t", "-S", "1/h1", `echo {host} {%} {}`, ":::", "t"))
	if r.status != 0 || r.stdout != "h1 1 t\n" || !strings.Contains("\n"+r.stderr, "\necho h1 1 t\n") {
		t.Errorf("-t: status %d, stdout %q, want %q; stderr, want the line %q:\n%s", r.status, r.stdout, "h1 1 t\n", "echo h1 1 t", r.stderr)
	}
	// A login with an ssh command of its own: {sshlogin} holds it, quoted
	// as one word; {host} is the host alone.
	own := hs.SSHCommand() + " " + h2.User + "@h2"
	r = run(t, remoteFan(t, hs, dir, "--plus", "-S", "1/"+own, `printf '%s|' {host} {sshlogin} {}; echo`, ":::", "it's"))
	if want := "h2|" + own + "|it's|\n"; r.status != 0 || r.stdout != want {
		t.Errorf("own ssh command: status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	// File names too: --return brings back the file the job named by its
	// host.
	r = run(t, remoteFan(t, hs, dir, "--plus", "-S", "1/h1", "--return", "{}.{host}", `echo {host} > {}.{host}`, ":::", "ret"))
	if b, err := os.ReadFile(filepath.Join(dir, "ret.h1")); r.status != 0 || string(b) != "h1\n" {
		t.Errorf("--return {}.{host}: status %d, ret.h1 %q (%v); stderr:\n%s", r.status, b, err, r.stderr)
	}
	// --onall and --nonall: each host's jobs see their host.
	r = run(t, remoteFan(t, hs, dir, "--plus", "-k", "--onall", "-S", "h1,"+login2, `echo {host} {sshlogin} {}`, ":::", "x"))
	if want := "h1 h1 x\n" + h2.Addr + " " + login2 + " x\n"; r.status != 0 || r.stdout != want {
		t.Errorf("--onall: status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	r = run(t, remoteFan(t, hs, dir, "--plus", "-k", "--nonall", "--tagstring", "{sshlogin}", "-S", "h1,:", `echo {host}`))
	if want := "h1\th1\n:\t:\n"; r.status != 0 || r.stdout != want {
		t.Errorf("--nonall: status %d, stdout %q, want %q; stderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	noLeftovers(t, hs)
}

// A host that takes the connection and never answers (a machine still
// booting, a hung sshd, a firewall that drops what it let through; here a
// listener that never writes, reached with no ConnectTimeout, with which
// ssh alone would wait for ever) is unreachable once its login has taken
// 20 s: it is quarantined like a host that refuses, its items run
// elsewhere, and fan leaves no connection to it behind.
func TestRemoteSilentHost(t *testing.T) {
	t.Parallel()
	hs := sshtest.Start(t, 1, sshtest.Options{})
	conns := hs.Silent(t, "quiet")
	// The runs' directories are the test's, which sshtest made
	// reachable to the host's user (a subtest's are not).
	dirs := [3]string{t.TempDir(), t.TempDir(), t.TempDir()}
	const said = "fan: host quiet cannot be reached (no answer within 20s: ssh did not log in): it takes no jobs until it answers again; its items run elsewhere\n"
	t.Run("beside a host that answers", func(t *testing.T) {
		t.Parallel()
		dir := dirs[0]
		shared := sharedDir(t, dir)
		// The first item holds a slot of h1 until the test has seen what
		// fan says of quiet: the run lasts until then.
		job := fmt.Sprintf(`if [ {} = wait ]; then while [ ! -e %s/go ]; do sleep 0.1; done; fi; echo {}`, shared)
		c := remoteFan(t, hs, dir, "-S", "2/h1,2/quiet", "--joblog", "log", job, ":::", "wait", "1", "2", "3", "4", "5", "6")
		stderr := stderrFile(t, c)
		var out bytes.Buffer
		c.Stdout = &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		killer := time.AfterFunc(2*time.Minute, func() { c.Process.Kill() })
		defer killer.Stop()
		begin := time.Now()
		for !strings.Contains(stderr(), "host quiet") && time.Since(begin) < time.Minute {
			time.Sleep(50 * time.Millisecond)
		}
		if err := os.WriteFile(filepath.Join(shared, "go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		status, err := exitCode(c.Wait())
		if err != nil {
			t.Fatal(err)
		}
		if status != 0 || strings.Join(sortedLines(out.String()), " ") != "1 2 3 4 5 6 wait" {
			t.Errorf("status %d, stdout %q: want 0 and every item once", status, out.String())
		}
		if got := stderr(); got != said {
			t.Errorf("stderr %q, want %q", got, said)
		}
		for seq, hosts := range joblogHosts(t, filepath.Join(dir, "log")) {
			if len(hosts) != 1 || hosts[0] != "h1 exit 0" {
				t.Errorf("job %s logged as %v, want once, on h1", seq, hosts)
			}
		}
	})
	t.Run("alone, with --host-timeout", func(t *testing.T) {
		t.Parallel()
		dir := dirs[1]
		c := remoteFan(t, hs, dir, "-S", "1/quiet", "--host-timeout", "1s", "--failures", "failed", "echo {}", ":::", "a", "b")
		begin := time.Now()
		timer := time.AfterFunc(2*time.Minute, func() { c.Process.Kill() })
		r := run(t, c)
		timer.Stop()
		if r.status != 2 || !strings.HasPrefix(r.stderr, said+"fan: no host could be reached for 1s (quiet): not starting the remaining jobs\n") {
			t.Errorf("status %d after %v, stderr:\n%s\nwant 2 (two items not run), and first:\n%s", r.status, time.Since(begin), r.stderr, said)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "failed")); string(b) != "a\nb\n" {
			t.Errorf("failures file %q, want every item", b)
		}
	})
	t.Run("Ctrl-C", func(t *testing.T) {
		t.Parallel()
		// Ctrl-C while fan waits for the host's first answer ends the
		// run at once.
		dir := dirs[2]
		c := remoteFan(t, hs, dir, "-S", "1/quiet", "--failures", "failed", "echo {}", ":::", "a", "b")
		stderr := stderrFile(t, c)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		killer := time.AfterFunc(2*time.Minute, func() { c.Process.Kill() })
		defer killer.Stop()
		untilWatching(t, c, stderr)
		begin := time.Now()
		c.Process.Signal(syscall.SIGINT)
		status, err := exitCode(c.Wait())
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(begin); status != 130 || took > 10*time.Second {
			t.Errorf("status %d %v after Ctrl-C, want 130 at once; stderr:\n%s", status, took, stderr())
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "failed")); string(b) != "a\nb\n" {
			t.Errorf("failures file %q, want every item; stderr:\n%s", b, stderr())
		}
	})
	t.Cleanup(func() {
		// After the runs (the subtests' cleanups come first): fan
		// left no connection to the host open.
		taken, open := conns()
		for wait := time.Now().Add(5 * time.Second); open != 0 && time.Now().Before(wait); _, open = conns() {
			time.Sleep(20 * time.Millisecond)
		}
		if taken == 0 || open != 0 {
			t.Errorf("the silent host took %d connections, and %d are open after fan exited; want some, none", taken, open)
		}
	})
}

// untilWatching returns once the started fan c watches its signals
// (watching), its stderr being the stderrFile read by stderr.
func untilWatching(t *testing.T, c *exec.Cmd, stderr func() string) {
	t.Helper()
	if err := watching(c.Process.Pid, stderr); err != nil {
		t.Fatal(err)
	}
}

// stderrFile sends c's stderr to a file, and returns what reads it (while
// c runs, too).
func stderrFile(t *testing.T, c *exec.Cmd) func() string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stderr")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c.Stderr = f
	return func() string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
}
