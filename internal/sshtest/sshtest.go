// Package sshtest starts real OpenSSH hosts for tests: one private sshd per
// host on a loopback address of its own (127.0.0.11, 127.0.0.12, ...), each
// logging in as a local user of its own (fanh1, fanh2, ...), so that hosts
// have separate homes and "nothing left running on the host" is a question
// about one user's processes.
//
// It needs root (to add the users and run sshd) and OpenSSH's sshd,
// ssh-keygen and ssh. Without them a test is skipped, unless FAN_SSHTEST is
// "require" (as in CI), when it fails instead.
//
// A host's user and address are held by one test at a time, across test
// processes (a lock file each), so tests of several packages may start hosts
// at once; a test never sees, or kills, another test's processes.
package sshtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Options tune the hosts that Start starts.
type Options struct {
	// MaxSessions is each sshd's MaxSessions: how many channels (jobs)
	// one connection may carry at once. 0 is sshd's default, 10.
	MaxSessions int
	// Shell is the hosts' users' login shell, which parses every
	// command that ssh sends; "" is /bin/sh.
	Shell string
}

// Hosts are a test's running hosts and the ssh client configuration that
// reaches them.
type Hosts struct {
	// Config is an ssh client configuration file naming each host by its
	// alias (h1, h2, ...): address, port, user, the test's key, no
	// prompts, no known-hosts files, quiet.
	Config string
	// Hosts are the hosts, Hosts[0] being h1.
	Hosts []*Host

	tools *tools
}

// Start starts n hosts for t, in parallel, and returns once every one
// listens at its address (its own sshd holds the socket there, see
// listen.go). Everything it made is removed when t ends: the sshd
// processes and whatever runs as the hosts' users are killed, and the
// users' homes are emptied (the users themselves stay, for the next test).
func Start(t TB, n int, o Options) *Hosts {
	t.Helper()
	tools := need(t)
	dir := t.TempDir()
	// sshd reads the authorized keys as the host's user: it must be able
	// to reach them. t.TempDir's parent is private.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	hs := &Hosts{Config: filepath.Join(dir, "ssh_config"), tools: tools}
	key := filepath.Join(dir, "id_ed25519")
	shell := o.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	slots := claimSlots(t, n, shell)
	var wg sync.WaitGroup
	errs := make([]error, n+1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[n] = keygen(tools, key)
	}()
	for i := range n {
		h := &Host{
			Name:  fmt.Sprintf("h%d", i+1),
			tools: tools,
			dir:   filepath.Join(dir, fmt.Sprintf("h%d", i+1)),
			slot:  slots[i],
			max:   o.MaxSessions,
		}
		h.User, h.Addr = slots[i].user, slots[i].addr
		hs.Hosts = append(hs.Hosts, h)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.prepare()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range hs.Hosts {
		// Registered after the slot's release: cleanups run last first.
		t.Cleanup(func() {
			if t.Failed() {
				log, _ := os.ReadFile(h.Log())
				t.Logf("%s: sshd log (%s):\n%s", h.Name, h.Log(), lastLines(log, 40))
			}
			h.cleanup()
		})
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	binds := make([][]error, n)
	for i, h := range hs.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			binds[i], errs[i] = h.start(pub)
		}()
	}
	wg.Wait()
	for i, h := range hs.Hosts {
		for _, err := range binds[i] {
			// Something took the address from under the host: the
			// evidence, should it come to matter.
			t.Logf("%s: %v", h.Name, err)
		}
	}
	for _, err := range errs[:n] {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(hs.Config, []byte(hs.clientConfig(key)), 0o644); err != nil {
		t.Fatal(err)
	}
	return hs
}

// clientConfig is the ssh_config text for the hosts.
func (hs *Hosts) clientConfig(key string) string {
	var b strings.Builder
	for _, h := range hs.Hosts {
		fmt.Fprintf(&b, "Host %s\n\tHostName %s\n\tPort %d\n\tUser %s\n", h.Name, h.Addr, h.Port, h.User)
	}
	fmt.Fprintf(&b, `Host *
	IdentityFile "%s"
	IdentitiesOnly yes
	IdentityAgent none
	BatchMode yes
	StrictHostKeyChecking no
	UserKnownHostsFile /dev/null
	GlobalKnownHostsFile /dev/null
	CheckHostIP no
	UpdateHostKeys no
	LogLevel ERROR
	ConnectTimeout 5
	ServerAliveInterval 1
	ServerAliveCountMax 3
`, key)
	return b.String()
}

// SSH is the ssh command that reaches the hosts: ssh -F Config.
func (hs *Hosts) SSH() []string { return []string{hs.tools.ssh, "-F", hs.Config} }

// SSHCommand is SSH as one shell command line, for --ssh or PARALLEL_SSH.
func (hs *Hosts) SSHCommand() string {
	return shellQuote(hs.tools.ssh) + " -F " + shellQuote(hs.Config)
}

// Host returns the host named name (h1, h2, ...), or nil.
func (hs *Hosts) Host(name string) *Host {
	for _, h := range hs.Hosts {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// shellQuote is s as one word of a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tools are the programs a host needs.
type tools struct {
	sshd, keygen, ssh string
	penalties         bool // sshd knows PerSourcePenalties (OpenSSH 9.8 on)
}

var (
	toolsOnce sync.Once
	found     *tools
	toolsErr  string
)

// need returns the tools, or skips (fails, under FAN_SSHTEST=require) t
// when hosts cannot be started here.
func need(t TB) *tools {
	t.Helper()
	toolsOnce.Do(func() { found, toolsErr = lookTools() })
	if toolsErr != "" {
		if os.Getenv("FAN_SSHTEST") == "require" {
			t.Fatal(toolsErr)
		}
		t.Skip(toolsErr)
	}
	return found
}

func lookTools() (*tools, string) {
	if os.Geteuid() != 0 {
		return nil, "sshtest: needs root, to add the hosts' users and run sshd"
	}
	look := func(name string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, d := range []string{"/usr/sbin", "/usr/bin", "/sbin", "/usr/local/sbin"} {
			if p := filepath.Join(d, name); isExec(p) {
				return p
			}
		}
		return ""
	}
	tl := &tools{sshd: look("sshd"), keygen: look("ssh-keygen"), ssh: look("ssh")}
	switch {
	case tl.sshd == "":
		return nil, "sshd not installed: apt-get install openssh-server"
	case tl.keygen == "" || tl.ssh == "":
		return nil, "ssh or ssh-keygen not installed: apt-get install openssh-client"
	}
	if _, err := exec.LookPath("useradd"); err != nil && !isExec("/usr/sbin/useradd") {
		return nil, "sshtest: useradd not found (apt-get install passwd)"
	}
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return nil, fmt.Sprintf("sshtest: %v", err)
	}
	tl.penalties = sshdAtLeast(tl.sshd, 9, 8)
	return tl, ""
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// sshdAtLeast reports whether sshd's version is at least major.minor.
// sshd -V prints "OpenSSH_9.2p1 ..." (older ones print it in their usage).
func sshdAtLeast(sshd string, major, minor int) bool {
	out, _ := exec.Command(sshd, "-V").CombinedOutput()
	s := string(out)
	i := strings.Index(s, "OpenSSH_")
	if i < 0 {
		return false
	}
	var ma, mi int
	if _, err := fmt.Sscanf(s[i+len("OpenSSH_"):], "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// keygen makes an ed25519 key pair at path and path.pub.
func keygen(tl *tools, path string) error {
	out, err := exec.Command(tl.keygen, "-q", "-t", "ed25519", "-N", "", "-C", "sshtest", "-f", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ssh-keygen: %v: %s", err, out)
	}
	return nil
}
