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
	if nofile, known := jobNofile.get(); known && len(stdio) == 3 && !vforkOff.Load() {
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

// vforkOff is set once vforkSpawn is found unsupported.
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

// jobLimit is the open-file limit a job is to start with, limit, where
// fan's own is still raised, the one the Go runtime raised it to.
type jobLimit struct {
	limit, raised unix.Rlimit
}

// nofileLimit is the open-file limit jobs are to start with: the one fan
// was started with, as with xargs and GNU parallel. The Go runtime raises
// fan's soft limit to one below the hard limit as it starts, and keeps
// the limit it found where only syscall.ForkExec reads it, to set it
// back in each child. So while fan's limit is one the runtime may have
// raised, jobs start through ForkExec, and each one's limit is read
// (prlimit) right after: the first two that agree on a limit that can be
// the one fan was started with give it for the rest. A job can change its
// own limit before it is read (a JVM raises its soft limit to the hard
// one; a Go program as fan's runtime did): a limit whose hard part is
// not fan's, or whose soft part is the hard one or one below it, is not
// one the runtime would have raised, and two jobs that do the same to
// their limits at once are unlikely.
type nofileLimit struct {
	once   sync.Once
	known  atomic.Bool
	mu     sync.Mutex
	limit  *jobLimit   // nil: fan's own (the runtime did not raise it)
	raised unix.Rlimit // fan's limit when the runtime raised it
	seen   unix.Rlimit // the last job's, when it could be the original
	tries  int         // jobs read
}

// nofileTries is how many jobs' limits are read, at most, in search of
// the one fan started with; then ForkExec starts every job.
const nofileTries = 8

// jobNofile is the process's.
var jobNofile nofileLimit

// get returns the limit to set in a job (nil: leave fan's), and whether
// it is known yet.
func (n *nofileLimit) get() (*jobLimit, bool) {
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
// while the limit is not known.
func (n *nofileLimit) learn(pid int) {
	if n.known.Load() {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.known.Load() || n.tries >= nofileTries {
		return
	}
	n.tries++
	var lim unix.Rlimit
	if unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &lim) != nil || lim.Max != n.raised.Max || lim.Cur >= n.raised.Max-1 {
		n.seen = unix.Rlimit{}
		return
	}
	if lim != n.seen {
		n.seen = lim
		return
	}
	n.limit = &jobLimit{limit: lim, raised: n.raised}
	n.known.Store(true)
}
