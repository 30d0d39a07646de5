package sshtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Host is one test host: a private sshd on a loopback address, logging in
// as a local user of its own. Its methods are safe for concurrent use.
type Host struct {
	// Name is the host's alias in the client configuration: h1, h2, ...
	Name string
	// Addr and Port are where its sshd listens: 127.0.0.(10+k), port 22
	// when free there, another port otherwise.
	Addr string
	Port int
	// User is the local user that logins become (fanhK).
	User string

	tools *tools
	dir   string // its sshd's configuration, keys and log
	slot  *slot
	max   int // MaxSessions; 0: sshd's default

	mu   sync.Mutex
	sshd *exec.Cmd     // the listener; nil while down
	done chan struct{} // closed when sshd has exited
}

// UID is the host user's user id.
func (h *Host) UID() int { return h.slot.uid }

// Home is the host user's home directory, emptied at start and at the end
// of the test.
func (h *Host) Home() string { return h.slot.home }

// Log is the path of the host's sshd log.
func (h *Host) Log() string { return filepath.Join(h.dir, "sshd.log") }

// prepare makes the host's directory and host key.
func (h *Host) prepare() error {
	if err := os.Mkdir(h.dir, 0o711); err != nil {
		return err
	}
	return keygen(h.tools, filepath.Join(h.dir, "host_ed25519"))
}

// start writes the sshd configuration, authorising key, and starts sshd.
func (h *Host) start(authorized []byte) error {
	if err := os.WriteFile(filepath.Join(h.dir, "authorized_keys"), authorized, 0o644); err != nil {
		return err
	}
	h.Port = 22
	if !canListen(h.Addr, h.Port) {
		h.Port = 0
	}
	var err error
	for try := 0; try < 5; try++ {
		if h.Port == 0 {
			if h.Port, err = freePort(h.Addr); err != nil {
				return err
			}
		}
		if err = h.up(); !errors.Is(err, errBind) {
			return err
		}
		h.Port = 0 // taken meanwhile: another
	}
	return err
}

// Up starts the host's sshd again after Down or Kill, at the same address
// and port, and returns once it accepts connections.
func (h *Host) Up() error { return h.up() }

var errBind = errors.New("sshd could not bind its address")

func (h *Host) up() error {
	cfg := filepath.Join(h.dir, "sshd_config")
	if err := os.WriteFile(cfg, []byte(h.config()), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(h.tools.sshd, "-D", "-f", cfg, "-E", h.Log())
	// Its own process group: a terminal's Ctrl-C is for the test. Killed
	// with the test process, should that die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("sshd: %v", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	h.mu.Lock()
	h.sshd, h.done = cmd, done
	h.mu.Unlock()
	addr := net.JoinHostPort(h.Addr, strconv.Itoa(h.Port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			log, _ := os.ReadFile(h.Log())
			if strings.Contains(string(log), "Address already in use") || strings.Contains(string(log), "Cannot bind") {
				return errBind
			}
			return fmt.Errorf("sshd for %s exited at start: %s", h.Name, lastLines(log, 5))
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd for %s does not accept connections on %s after 10s", h.Name, addr)
		}
	}
}

// config is the host's sshd_config.
func (h *Host) config() string {
	var b strings.Builder
	fmt.Fprintf(&b, `ListenAddress %s
HostKey %s
PidFile %s
AuthorizedKeysFile %s
AllowUsers %s
PermitRootLogin no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 100
PrintMotd no
PrintLastLog no
X11Forwarding no
UseDNS no
LogLevel VERBOSE
`, net.JoinHostPort(h.Addr, strconv.Itoa(h.Port)), filepath.Join(h.dir, "host_ed25519"),
		filepath.Join(h.dir, "sshd.pid"), filepath.Join(h.dir, "authorized_keys"), h.User)
	if h.max > 0 {
		fmt.Fprintf(&b, "MaxSessions %d\n", h.max)
	}
	if h.tools.penalties {
		// Faults look like attacks to OpenSSH 9.8's penalties.
		b.WriteString("PerSourcePenalties no\n")
	}
	return b.String()
}

// canListen reports whether addr:port is free to listen on.
func canListen(addr string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// freePort returns a port that was free on addr a moment ago.
func freePort(addr string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// daemon returns the listener's pid (0 when down) and its exit channel.
func (h *Host) daemon() (int, chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
		return 0, h.done
	default:
	}
	if h.sshd == nil {
		return 0, nil
	}
	return h.sshd.Process.Pid, h.done
}

// DaemonPID is the pid of the host's listening sshd, 0 while it is down.
// The CPU time of the sessions it served adds up in its children's times
// (/proc/PID/stat) once they have ended.
func (h *Host) DaemonPID() int {
	pid, _ := h.daemon()
	return pid
}

// targets are the host's sshd (listener and the processes it forked for
// connections) and every process of its user.
func (h *Host) targets() []int {
	procs := scan()
	var pids []int
	if pid, _ := h.daemon(); pid != 0 {
		pids = tree(procs, pid)
	}
	for _, p := range procs {
		if p.UID == h.slot.uid && p.State != "Z" {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// Stop makes the host silent: its sshd and every process of its user are
// stopped (SIGSTOP). Connections stay open and new ones are accepted by
// the kernel, but nothing answers. Cont undoes it.
func (h *Host) Stop() {
	for range 2 { // again, for what forked meanwhile
		signalAll(h.targets(), syscall.SIGSTOP)
	}
}

// Cont continues what Stop stopped.
func (h *Host) Cont() { signalAll(h.targets(), syscall.SIGCONT) }

// Kill makes the host die: its sshd, its connections' processes and every
// process of its user are killed (SIGKILL). Nothing listens afterwards;
// Up starts sshd again.
func (h *Host) Kill() {
	for range 20 {
		pids := h.targets()
		if len(pids) == 0 {
			break
		}
		signalAll(pids, syscall.SIGKILL)
		time.Sleep(2 * time.Millisecond)
	}
	h.awaitDaemon()
}

// Down takes the host's listener down, so that nothing listens at its
// address (connections are refused). Connections already open go on; Up
// starts sshd again.
func (h *Host) Down() {
	if pid, _ := h.daemon(); pid != 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	h.awaitDaemon()
}

func (h *Host) awaitDaemon() {
	if _, done := h.daemon(); done != nil {
		<-done
	}
}

// Processes returns every process running as the host's user, sshd's own
// session processes included.
func (h *Host) Processes() []Proc {
	var out []Proc
	for _, p := range scan() {
		if p.UID == h.slot.uid {
			out = append(out, p)
		}
	}
	return out
}

// Leftovers returns the processes running as the host's user other than
// sshd's own (which serve open connections), zombies and those exiting
// (a session process whose connection just closed): what jobs left
// behind.
func (h *Host) Leftovers() []Proc {
	var out []Proc
	for _, p := range h.Processes() {
		if p.State != "Z" && !p.sshdOwn() && !p.exiting() {
			out = append(out, p)
		}
	}
	return out
}

// WaitClean waits up to grace for the host to have no Leftovers, and fails
// t, listing them, if some remain.
func (h *Host) WaitClean(t TB, grace time.Duration) {
	t.Helper()
	deadline := time.Now().Add(grace)
	for {
		left := h.Leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, p := range left {
				b.WriteString("\n\t" + p.String())
			}
			t.Errorf("%s: processes of %s left running after %v:%s", h.Name, h.User, grace, b.String())
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cleanup kills everything of the host and empties its user's home.
func (h *Host) cleanup() {
	h.Kill()
	killUser(h.slot.uid)
	_ = h.slot.emptyHome()
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
