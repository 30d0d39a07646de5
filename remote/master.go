package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config is what the hosts of a run share.
type Config struct {
	// SSH is the ssh command and its options (--ssh, $PARALLEL_SSH,
	// split with SplitCommand); nil is ssh. A login's own ssh command
	// replaces it for that login.
	SSH []string
	// MaxSessions is how many channels (jobs, probes, signals) one
	// connection carries at once: the host's sshd MaxSessions, which is
	// 10 unless its administrator changed it. 0 is 10. Beyond it, Host
	// opens another connection to the same host; should the host refuse
	// a channel sooner, that connection is given fewer.
	MaxSessions int
	// DialTimeout bounds the opening of a connection, from starting ssh
	// to its having logged in: a host that takes the connection and
	// never answers (a hung sshd, a machine still booting, a firewall
	// that drops what it let through) is unreachable once it has passed.
	// 0 is DefaultDialTimeout.
	DialTimeout time.Duration
}

// DefaultMaxSessions is sshd's default MaxSessions.
const DefaultMaxSessions = 10

// DefaultDialTimeout is how long a connection may take to log in. ssh has
// no bound of its own unless the user's ssh_config sets ConnectTimeout,
// and even that one ends with the banner exchange, before the key
// exchange and the login. A login over a slow link, or to an sshd whose
// reverse DNS lookup times out, takes seconds; one that has not ended in
// this long is taken as not coming.
const DefaultDialTimeout = 20 * time.Second

// Host is the shared connection to one host: one OpenSSH master
// connection (ControlMaster), through which every job, probe and signal
// for the host runs as a channel, or more than one connection when more
// channels are wanted at once than one may carry. Connections are opened
// when first needed, with the system's ssh client in a process group of
// its own (so a terminal's Ctrl-C reaches fan alone), and closed by Close;
// should fan die, the kernel kills them (and the host, seeing the
// connection gone, the jobs: see the wrapper's lifeline). A Host is safe
// for concurrent use.
type Host struct {
	login Login
	ssh   []string      // the ssh command for the login, without the destination
	dir   string        // private directory of the control sockets
	max   int           // channels a connection carries: Config.MaxSessions, less once refused
	bound time.Duration // Config.DialTimeout

	mu      sync.Mutex
	masters []*master     // connected (or lost, with channels still open)
	dialing []*master     // being opened
	waiting int           // acquires waiting for a channel
	changed chan struct{} // closed (and replaced) when a channel may be free
	seq     int           // names the control sockets
	closed  bool
	wg      sync.WaitGroup // the masters' processes
}

// master is one master connection: an "ssh -M -N" process of fan's own.
type master struct {
	path  string        // control socket
	cmd   *exec.Cmd     // ssh -M -N
	ready chan struct{} // closed when the connection is usable or has failed
	err   error         // why it failed, set before ready is closed
	done  chan struct{} // closed when the process has exited
	out   tail          // its stderr

	n, cap int // channels open and allowed at once (Host.mu)
}

// NewHost returns the shared connection to l's host, not yet connected.
// It makes a private directory for the control sockets, which Close
// removes. l must not be local (":").
func NewHost(l Login, c Config) (*Host, error) {
	if l.Local || l.File != "" || l.Host == "" {
		return nil, fmt.Errorf("remote: %q is not a remote host", l.String())
	}
	dir, err := os.MkdirTemp(socketBase(), "fan-ssh-")
	if err != nil {
		return nil, err
	}
	limit := c.MaxSessions
	if limit <= 0 {
		limit = DefaultMaxSessions
	}
	bound := c.DialTimeout
	if bound <= 0 {
		bound = DefaultDialTimeout
	}
	return &Host{login: l, ssh: l.Command(c.SSH), dir: dir, max: limit, bound: bound, changed: make(chan struct{})}, nil
}

// socketBase is where control socket directories go: the temporary
// directory, unless its name is so long that a socket path in it would
// pass the system's limit (about 100 bytes), then /tmp.
func socketBase() string {
	if d := os.TempDir(); len(d) <= 60 {
		return d
	}
	return "/tmp"
}

// Login is the login that h connects to.
func (h *Host) Login() Login { return h.login }

// Connect makes sure that a connection to the host is open (opening one
// when none has a channel to spare) and reports whether that worked; an
// error is a *runner.TransportError. Jobs and probes connect as they need
// to: Connect only tells sooner.
func (h *Host) Connect(ctx context.Context) error {
	m, err := h.acquire(ctx)
	if err != nil {
		return err
	}
	h.release(m, false)
	return nil
}

// Connections reports how many master connections are open to the host.
func (h *Host) Connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.masters {
		if m.live() {
			n++
		}
	}
	return n
}

// Close closes the host's connections (any channel still open with them)
// and removes the control sockets. It waits for the ssh processes to end.
func (h *Host) Close() error {
	h.mu.Lock()
	h.closed = true
	ms := append(append([]*master(nil), h.masters...), h.dialing...)
	h.mu.Unlock()
	for _, m := range ms {
		m.stop()
	}
	h.wg.Wait()
	return os.RemoveAll(h.dir)
}

var errClosed = errors.New("the connection was closed")

// acquire takes a channel on a live connection. When every connection is
// full, it opens another, or waits for one being opened (several are
// opened at once when more channels are wanted than those being opened will
// carry), or for a channel to be given back. Its error is a
// *runner.TransportError.
func (h *Host) acquire(ctx context.Context) (*master, error) {
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return nil, h.transport(errClosed)
		}
		if m := h.room(); m != nil {
			m.n++
			h.mu.Unlock()
			return m, nil
		}
		h.waiting++
		coming := 0
		for _, d := range h.dialing {
			coming += d.cap
		}
		var d *master
		if coming < h.waiting {
			d = h.dial()
		} else {
			d = h.dialing[len(h.dialing)-1]
		}
		changed := h.changed
		h.mu.Unlock()
		select {
		case <-changed:
		case <-d.ready: // failed to start at all
		case <-ctx.Done():
		}
		h.mu.Lock()
		h.waiting--
		h.mu.Unlock()
		if ctx.Err() != nil {
			return nil, h.transport(context.Cause(ctx))
		}
		if closed(d.ready) && d.err != nil {
			return nil, d.err
		}
	}
}

// room returns a live connection with a channel to spare, and forgets
// connections that are gone and have no channel open; h.mu is held.
func (h *Host) room() *master {
	live := h.masters[:0]
	for _, m := range h.masters {
		if m.live() || m.n > 0 {
			live = append(live, m)
		}
	}
	clear(h.masters[len(live):])
	h.masters = live
	for _, m := range h.masters {
		if m.live() && m.n < m.cap {
			return m
		}
	}
	return nil
}

// wake lets every waiting acquire look again; h.mu is held.
func (h *Host) wake() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// release gives back a channel of m. refused reports that the host
// refused it: m then carries at most as many as it had open besides, and
// so do the host's other connections, and those opened later.
func (h *Host) release(m *master, refused bool) {
	h.mu.Lock()
	if refused {
		h.max = min(h.max, max(1, m.n-1))
		for _, o := range append(h.masters, h.dialing...) {
			o.cap = min(o.cap, h.max)
		}
		m.cap = min(m.cap, h.max)
	}
	m.n--
	h.wake()
	h.mu.Unlock()
}

// dial starts opening a connection; h.mu is held.
func (h *Host) dial() *master {
	h.seq++
	m := &master{
		path:  filepath.Join(h.dir, strconv.Itoa(h.seq)),
		ready: make(chan struct{}),
		done:  make(chan struct{}),
		cap:   h.max,
	}
	argv := append(h.args(m), "-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-N", h.login.Host)
	m.cmd = exec.Command(argv[0], argv[1:]...)
	m.cmd.Stderr = &m.out
	m.cmd.SysProcAttr = sysProcAttr()
	if err := m.cmd.Start(); err != nil {
		m.err = h.transport(fmt.Errorf("%s: %w", argv[0], err))
		close(m.ready)
		close(m.done)
		return m
	}
	h.dialing = append(h.dialing, m)
	h.wg.Add(2)
	go func() {
		defer h.wg.Done()
		m.cmd.Wait()
		close(m.done)
	}()
	go func() {
		defer h.wg.Done()
		err := h.await(m)
		h.mu.Lock()
		m.err = err
		if err == nil {
			h.masters = append(h.masters, m)
		}
		h.dialing = slices.DeleteFunc(h.dialing, func(d *master) bool { return d == m })
		close(m.ready)
		h.wake()
		h.mu.Unlock()
	}()
	return m
}

// await waits until m's control socket accepts connections (the master
// has logged in), or m's process has exited, or h's bound has passed:
// then it stops m, which would wait for a host that does not answer for
// ever, so that the next acquire opens a connection of its own rather
// than wait for this one.
func (h *Host) await(m *master) error {
	wait := time.Millisecond
	bound := time.NewTimer(h.bound)
	defer bound.Stop()
	for {
		if c, err := net.Dial("unix", m.path); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-m.done:
			msg := oneLine(m.out.String())
			if msg == "" {
				msg = "ssh " + m.cmd.ProcessState.String()
			}
			return h.transport(errors.New(msg))
		case <-bound.C:
			said := oneLine(m.out.String()) // before its dying words
			m.stop()
			msg := fmt.Sprintf("no answer within %v: ssh did not log in", h.bound)
			if said != "" {
				msg += " (" + said + ")"
			}
			return h.transport(errors.New(msg))
		case <-time.After(wait):
			wait = min(2*wait, 20*time.Millisecond)
		}
	}
}

// args is the ssh command line up to the options shared by every use of
// m's connection (no destination yet).
func (h *Host) args(m *master) []string {
	argv := append([]string(nil), h.ssh...)
	// BatchMode: fan's ssh runs in a process group of its own, where a
	// password prompt would stop it (SIGTTIN) rather than ask.
	return append(argv, "-o", "BatchMode=yes", "-S", strings.ReplaceAll(m.path, "%", "%%"))
}

// stop ends m's connection: SIGTERM (ssh closes its channels and removes
// its socket), then SIGKILL if it lingers.
func (m *master) stop() {
	if m.cmd.Process == nil {
		return
	}
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(2 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

// live reports whether m's process is running.
func (m *master) live() bool { return !closed(m.done) }

// closed reports, without blocking, whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// sysProcAttr is how fan's ssh processes start: in a process group of
// their own, killed with fan (Go's threads do not exit under a running
// process, so the thread that forked one outlives it).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// tailLimit is how much of an ssh process's stderr is kept.
const tailLimit = 4096

// tail keeps the last lines written to it, up to tailLimit bytes: an ssh
// process's error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailLimit {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailLimit:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

// String is what was kept.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// oneLine joins s's non-blank lines with "; ", for a one-line message.
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}
