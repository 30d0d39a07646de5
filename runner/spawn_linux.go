package runner

import (
	"errors"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// spawn starts c in a new process group with the given stdio as its
// standard input, output and error, keeping the descriptors fan
// inherited open in it. Should fan itself be killed (SIGKILL: it cannot
// sweep then), the kernel kills the job's main process with it
// (Pdeathsig; Go's threads do not exit under a running job, so the
// thread that forked it outlives it).
//
// A job is started through vforkSpawn where the kernel allows and the
// job's open-file limit is known (jobNofile), else through
// syscall.ForkExec.
func spawn(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error) {
	if nofile, known := jobNofile.get(); known && !vforkOff.Load() {
		pid, pidfd, err := vforkSpawn(c, env, stdio, nofile)
		if !errors.Is(err, errVforkUnsupported) {
			if err != nil {
				return nil, err
			}
			return started(pid, pidfd), nil
		}
		vforkOff.Store(true)
	}
	pid, pidfd, err := forkExec(c, env, stdio, inherited)
	if err != nil {
		return nil, err
	}
	jobNofile.learn(pid)
	return started(pid, pidfd), nil
}

// vforkOff is set once vforkSpawn is found unsupported (or in tests, to
// try syscall.ForkExec's way).
var vforkOff atomic.Bool

// errVforkUnsupported is vforkSpawn's error when the kernel, or a
// sandbox's system call filter, refuses its clone3.
var errVforkUnsupported = errors.New("clone3 with CLONE_CLEAR_SIGHAND is not supported")

// forkExec starts c through syscall.ForkExec, returning its pid and pidfd
// (-1 on kernels without pidfds).
func forkExec(c *Command, env []string, stdio []uintptr, inherited []int) (pid, pidfd int, err error) {
	stdio, moved, err := clearOfInherited(stdio, inherited)
	if err != nil {
		return 0, -1, err
	}
	if moved >= 0 {
		defer unix.Close(moved)
	}
	pidfd = -1
	attr := &syscall.ProcAttr{
		Dir:   c.Dir,
		Env:   env,
		Files: stdio,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd, Pdeathsig: syscall.SIGKILL},
	}
	pid, err = syscall.ForkExec(c.Path, c.Args, attr)
	return pid, pidfd, err
}

// started is the proc of a job just started.
func started(pid, pidfd int) *proc {
	p := &proc{pid: pid, pidfd: pidfd}
	// A pidfd's file status flags are only its access mode, so O_NONBLOCK
	// (for the netpoller) is set with one fcntl rather than unix.SetNonblock's
	// two.
	if pidfd >= 0 {
		if _, err := unix.FcntlInt(uintptr(pidfd), unix.F_SETFL, unix.O_NONBLOCK); err == nil {
			return p
		}
		unix.Close(pidfd)
		p.pidfd = -1
	}
	p.exitc = make(chan struct{})
	go func() {
		p.blockUntilExit()
		close(p.exitc)
	}()
	return p
}

// nofileLimit is the open-file limit jobs are to start with: the one fan
// was started with, as with xargs and GNU parallel. The Go runtime raises
// fan's soft limit to one below the hard limit as it starts, and keeps
// the limit it found where only syscall.ForkExec reads it, to set it
// back in each child. So while fan's limit is one it may have raised,
// jobs start through ForkExec, and the limit of the first that did not
// raise its own in the meantime is the one for the rest.
type nofileLimit struct {
	once   sync.Once
	known  atomic.Bool
	mu     sync.Mutex
	limit  *unix.Rlimit // nil: fan's own (the runtime did not raise it)
	raised unix.Rlimit  // fan's limit when the runtime raised it
	tries  int          // jobs read without an answer
}

// nofileTries is how many jobs' limits are read, at most, in search of
// the one fan started with; then ForkExec starts every job.
const nofileTries = 8

// jobNofile is the process's.
var jobNofile nofileLimit

// get returns the limit to set in a job (nil: leave fan's), and whether
// it is known yet.
func (n *nofileLimit) get() (*unix.Rlimit, bool) {
	n.once.Do(func() {
		var lim unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil || lim.Max == 0 || lim.Cur != lim.Max-1 {
			n.known.Store(true) // not raised: jobs inherit fan's
			return
		}
		n.raised = lim
	})
	if !n.known.Load() {
		return nil, false
	}
	return n.limit, true
}

// learn reads the open-file limit of pid, a job ForkExec just started,
// while the limit is not known: ForkExec set the one fan started with in
// it, unless the job has changed its own since (a Go program raises it
// as fan's runtime did: such a limit, one below the hard one, says
// nothing).
func (n *nofileLimit) learn(pid int) {
	if n.known.Load() {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.known.Load() || n.tries >= nofileTries {
		return
	}
	var lim unix.Rlimit
	if unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &lim) != nil || lim == n.raised {
		n.tries++
		return
	}
	n.limit = &lim
	n.known.Store(true)
}
