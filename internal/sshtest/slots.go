package sshtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxSlots is how many hosts may run at once on this machine, over all
// tests: slot k is user fanhK at 127.0.0.(10+k).
const maxSlots = 64

// slot is one host's user and address, held by one test at a time.
type slot struct {
	k    int
	user string
	addr string
	uid  int
	gid  int
	home string
	lock *os.File // flock'ed while held
}

// claimSlots takes n free slots for t and releases them when t ends. A
// slot is free when no test (in any process) holds its lock file; the
// kernel drops the lock of a test process that dies. Whatever still runs as
// a slot's user when it is claimed was left by a test that died: it is
// killed.
func claimSlots(t TB, n int, shell string) []*slot {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "fan-sshtest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var slots []*slot
	deadline := time.Now().Add(time.Minute)
	for k := 1; len(slots) < n; k++ {
		if k > maxSlots {
			if time.Now().After(deadline) {
				t.Fatalf("sshtest: no %d free hosts out of %d after a minute", n, maxSlots)
			}
			time.Sleep(50 * time.Millisecond)
			k = 1
		}
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("fanh%d.lock", k)), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		s := &slot{k: k, user: fmt.Sprintf("fanh%d", k), addr: fmt.Sprintf("127.0.0.%d", 10+k), lock: f}
		t.Cleanup(func() { f.Close() })
		slots = append(slots, s)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.ready(shell)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return slots
}

// useradd is serialised in this process: useradd fails, rather than
// waits, when another holds the password file's lock. Other processes are
// met by retrying.
var useraddMu sync.Mutex

// users runs useradd or usermod, retrying while another process holds the
// password file's lock.
func users(argv ...string) error {
	useraddMu.Lock()
	defer useraddMu.Unlock()
	var out []byte
	var err error
	for try := 0; try < 50; try++ {
		out, err = exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err == nil || strings.Contains(string(out), "already exists") {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, out)
}

// ready makes the slot's user if it does not exist, with shell as its
// login shell, kills what a dead test left running as it, and empties its
// home.
func (s *slot) ready(shell string) error {
	u, err := user.Lookup(s.user)
	if err != nil {
		// '*', not the default '!': sshd without PAM refuses a locked
		// account.
		if err := users("useradd", "-m", "-p", "*", "-s", shell, s.user); err != nil {
			return err
		}
		if u, err = user.Lookup(s.user); err != nil {
			return err
		}
	}
	if loginShell(s.user) != shell {
		if err := users("usermod", "-s", shell, s.user); err != nil {
			return err
		}
	}
	s.uid, _ = strconv.Atoi(u.Uid)
	s.gid, _ = strconv.Atoi(u.Gid)
	s.home = u.HomeDir
	killUser(s.uid)
	return s.emptyHome()
}

// emptyHome removes everything in the user's home, after checking that it
// is the user's own directory named for the user.
func (s *slot) emptyHome() error {
	if s.home == "" || filepath.Base(s.home) != s.user {
		return fmt.Errorf("sshtest: %s's home %q is not named for it: not emptying it", s.user, s.home)
	}
	st, err := os.Stat(s.home)
	if err != nil {
		if os.IsNotExist(err) {
			if err := os.MkdirAll(s.home, 0o755); err != nil {
				return err
			}
			return os.Chown(s.home, s.uid, s.gid)
		}
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != s.uid {
		return fmt.Errorf("sshtest: %s is not owned by %s: not emptying it", s.home, s.user)
	}
	ents, err := os.ReadDir(s.home)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(s.home, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// killUser SIGKILLs every process of uid, and the sshd processes that
// serve its logins (their parents, running as root), until none is left:
// a process may fork while it is being killed, and an sshd of a test that
// died while its host was stopped stays stopped forever. Processes are
// found by pid, Uid and parentage in /proc, never by name.
func killUser(uid int) {
	for range 20 {
		procs := scan()
		byPID := make(map[int]Proc, len(procs))
		for _, p := range procs {
			byPID[p.PID] = p
		}
		var targets []Proc
		for _, p := range procs {
			if p.UID != uid {
				continue
			}
			if p.State != "Z" {
				targets = append(targets, p)
			}
			if parent, ok := byPID[p.PPID]; ok && parent.UID == 0 && parent.sshdOwn() {
				targets = append(targets, parent)
			}
		}
		if len(targets) == 0 {
			return
		}
		signalAll(targets, syscall.SIGKILL)
		time.Sleep(5 * time.Millisecond)
	}
}

// loginShell is the login shell of the named user in /etc/passwd.
func loginShell(name string) string {
	b, _ := os.ReadFile("/etc/passwd")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) == 7 && f[0] == name {
			return f[6]
		}
	}
	return ""
}
