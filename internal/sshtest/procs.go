package sshtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Proc is a process as /proc shows it.
type Proc struct {
	PID, PPID int
	UID       int    // real user id
	State     string // R, S, T, Z, ...
	Exe       string // the program file; "" when gone (a zombie, or exiting)
	Cmdline   string // argv joined by spaces

	start uint64 // when it started, in clock ticks since boot: with PID, who it is
}

func (p Proc) String() string {
	return fmt.Sprintf("pid %d (ppid %d, %s): %s", p.PID, p.PPID, p.State, p.Cmdline)
}

// sshdOwn reports whether p is sshd's own: the session process that
// serves a connection runs as the user it logged in (sshd, or sshd-session
// and sshd-auth from OpenSSH 9.8 on).
func (p Proc) sshdOwn() bool {
	switch filepath.Base(p.Exe) {
	case "sshd", "sshd-session", "sshd-auth":
		return true
	}
	return false
}

// exiting reports whether p is on its way out: its program and memory are
// gone already (no exe, no command line), but it is not yet a zombie. A
// user's process is never a kernel thread, the other kind without them.
func (p Proc) exiting() bool { return p.Exe == "" && p.Cmdline == "" }

// ProcessesOf returns the processes whose real user is the named user,
// found by the Uid line of /proc/*/status (never by name).
func ProcessesOf(name string) ([]Proc, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return nil, err
	}
	var out []Proc
	for _, p := range scan() {
		if p.UID == uid {
			out = append(out, p)
		}
	}
	return out, nil
}

// scan reads every process of the machine; processes that end while it
// reads are left out.
func scan() []Proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := make([]Proc, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			procs = append(procs, p)
		}
	}
	return procs
}

func readProc(pid int) (Proc, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return Proc{}, false
	}
	p := Proc{PID: pid, UID: -1}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "State":
			p.State = f[0]
		case "PPid":
			p.PPID, _ = strconv.Atoi(f[0])
		case "Uid":
			p.UID, _ = strconv.Atoi(f[0])
		}
	}
	p.start = startTime(pid)
	p.Exe, _ = os.Readlink(dir + "/exe")
	cmd, _ := os.ReadFile(dir + "/cmdline")
	p.Cmdline = string(bytes.TrimRight(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}), " "))
	return p, p.UID >= 0
}

// startTime is when process pid started, in clock ticks since boot
// (field 22 of /proc/PID/stat), 0 when it is gone.
func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that follow are counted from the last ')', state (field
	// 3) first.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	t, _ := strconv.ParseUint(f[19], 10, 64)
	return t
}

// descendants returns the processes descended from root, parents first.
func descendants(procs []Proc, root int) []Proc {
	kids := map[int][]Proc{}
	for _, p := range procs {
		kids[p.PPID] = append(kids[p.PPID], p)
	}
	out := kids[root]
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i].PID]...)
	}
	return out
}

// signalAll sends sig to each process that is still the one read from
// /proc: a scan of a busy machine takes a good part of a second, in which
// a process may end and its pid be taken by another (pids come round
// again within seconds where thousands of processes start each second).
// The signal goes through a pidfd, opened once the process's start time
// is seen to be the same; a process that is gone is no error.
func signalAll(procs []Proc, sig syscall.Signal) {
	for _, p := range procs {
		fd, err := unix.PidfdOpen(p.PID, 0)
		if err != nil {
			if errors.Is(err, unix.ENOSYS) && startTime(p.PID) == p.start {
				_ = syscall.Kill(p.PID, sig) // before Linux 5.3
			}
			continue
		}
		if startTime(p.PID) == p.start {
			_ = unix.PidfdSendSignal(fd, sig, nil, 0)
		}
		unix.Close(fd)
	}
}
