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

// downPatience is how long Down lets the children that the listener
// forked just before it died close their copies of its listening socket
// (see listen.go) before it kills them.
const downPatience = 5 * time.Second

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

// start writes the sshd configuration, authorising key, and starts sshd,
// on port 22 if it is free, on another port otherwise. binds are the
// failures to bind it met on the way, each on a port that was free a
// moment before.
func (h *Host) start(authorized []byte) (binds []error, err error) {
	if err := os.WriteFile(filepath.Join(h.dir, "authorized_keys"), authorized, 0o644); err != nil {
		return nil, err
	}
	h.Port = 22
	if !canListen(h.Addr, h.Port) {
		h.Port = 0
	}
	for try := 0; try < 5; try++ {
		if h.Port == 0 {
			if h.Port, err = freePort(h.Addr); err != nil {
				return binds, err
			}
		}
		if err = h.up(); !errors.Is(err, errBind) {
			return binds, err
		}
		binds = append(binds, err)
		h.Port = 0 // taken meanwhile: another
	}
	return binds, err
}

// Up starts the host's sshd again after Down or Kill, at the same address
// and port, and returns once it listens there. It fails, saying what
// holds the address, when its sshd cannot bind it.
func (h *Host) Up() error { return h.up() }

var errBind = errors.New("could not bind its address")

// up starts sshd and returns once it listens: once the socket listening
// at the host's address is its own. A connection would not tell: it is
// taken as well by a copy of a dead sshd's socket that one of its
// children still holds, while the new sshd fails to bind (listen.go).
func (h *Host) up() error {
	cfg := filepath.Join(h.dir, "sshd_config")
	if err := os.WriteFile(cfg, []byte(h.config()), 0o600); err != nil {
		return err
	}
	// sshd appends to its log: what this one writes starts here.
	var logFrom int64
	if st, err := os.Stat(h.Log()); err == nil {
		logFrom = st.Size()
	}
	ownLog := func() string {
		b, _ := os.ReadFile(h.Log())
		return string(b[min(logFrom, int64(len(b))):])
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
		select {
		case <-done:
			log := ownLog()
			if strings.Contains(log, "Address already in use") || strings.Contains(log, "Cannot bind") {
				return fmt.Errorf("sshd for %s %w %s; %s", h.Name, errBind, addr, whoListens(h.Addr, h.Port))
			}
			return fmt.Errorf("sshd for %s exited at start: %s", h.Name, lastLines([]byte(log), 5))
		default:
		}
		inode, err := listening(h.Addr, h.Port)
		if err != nil {
			return err
		}
		if inode != 0 && holds(cmd.Process.Pid, inode) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd for %s (pid %d) does not listen on %s after 10s; %s; its log:\n%s",
				h.Name, cmd.Process.Pid, addr, whoListens(h.Addr, h.Port), lastLines([]byte(ownLog()), 5))
		}
		time.Sleep(2 * time.Millisecond)
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

// daemon returns the listener (nil when down) and its exit channel. It is
// signalled through its process handle (a pidfd), which cannot reach
// another process that took its pid once it is reaped.
func (h *Host) daemon() (*os.Process, chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
		return nil, h.done
	default:
	}
	if h.sshd == nil {
		return nil, nil
	}
	return h.sshd.Process, h.done
}

// DaemonPID is the pid of the host's listening sshd, 0 while it is down.
// The CPU time of the sessions it served adds up in its children's times
// (/proc/PID/stat) once they have ended.
func (h *Host) DaemonPID() int {
	if d, _ := h.daemon(); d != nil {
		return d.Pid
	}
	return 0
}

// signal sends sig to the host's sshd (the listener and the processes it
// forked for connections) and every process of its user, and reports how
// many processes it sent it to.
func (h *Host) signal(sig syscall.Signal) int {
	procs := scan()
	var targets []Proc
	n := 0
	if d, _ := h.daemon(); d != nil {
		if d.Signal(sig) == nil {
			n++
		}
		targets = descendants(procs, d.Pid)
	}
	for _, p := range procs {
		if p.UID == h.slot.uid && p.State != "Z" {
			targets = append(targets, p)
		}
	}
	signalAll(targets, sig)
	return n + len(targets)
}

// Stop makes the host silent: its sshd and every process of its user are
// stopped (SIGSTOP). Connections stay open and new ones are accepted by
// the kernel, but nothing answers. Cont undoes it.
func (h *Host) Stop() {
	for range 2 { // again, for what forked meanwhile
		h.signal(syscall.SIGSTOP)
	}
}

// Cont continues what Stop stopped.
func (h *Host) Cont() { h.signal(syscall.SIGCONT) }

// Kill makes the host die: its sshd, its connections' processes and every
// process of its user are killed (SIGKILL). Nothing listens afterwards;
// Up starts sshd again.
func (h *Host) Kill() {
	for range 20 {
		if h.signal(syscall.SIGKILL) == 0 {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.awaitDaemon()
	h.awaitUnbound(0)
}

// Down takes the host's listener down, so that nothing listens at its
// address (connections are refused). Connections already open go on; Up
// starts sshd again.
func (h *Host) Down() {
	if d, _ := h.daemon(); d != nil {
		_ = d.Kill()
	}
	h.awaitDaemon()
	h.awaitUnbound(downPatience)
}

func (h *Host) awaitDaemon() {
	if _, done := h.daemon(); done != nil {
		<-done
	}
}

// awaitUnbound returns once no socket listens at the host's address, its
// sshd being dead: the children it forked just before it died close their
// copies of its socket as soon as they run. Those of its sshd processes
// that still hold one after patience are killed; anything else is left
// for the next start to report.
func (h *Host) awaitUnbound(patience time.Duration) {
	if h.Port == 0 {
		return
	}
	start := time.Now()
	for {
		inode, err := listening(h.Addr, h.Port)
		if err != nil || inode == 0 {
			return
		}
		waited := time.Since(start)
		if waited > patience+10*time.Second {
			return
		}
		if waited >= patience {
			var own []Proc
			for _, p := range holders(inode) {
				if p.sshdOwn() {
					own = append(own, p)
				}
			}
			signalAll(own, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
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
