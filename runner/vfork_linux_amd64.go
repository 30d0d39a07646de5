package runner

import (
	"os"
	"reflect"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cloneArgs is clone3(2)'s struct clone_args.
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal uint64
	stack, stackSize, tls, setTID, setTIDSize     uint64
	cgroup                                        uint64
}

// childPlan is all the child of vforkExec does before its exec, made
// ready by the parent. The child shares fan's memory and runs on the
// spawning goroutine's stack with no Go runtime behind it: it may not
// allocate, take a lock, grow its stack or store a pointer. So it reads
// the plan, makes system calls, and stores only errno.
type childPlan struct {
	clone      cloneArgs // first: vforkExec hands the plan's address to clone3
	path       *byte
	argv, envv **byte
	dir        *byte // nil: the job starts in fan's working directory
	stdio      [3]int
	blocked    uint64      // the signals blocked while the child runs fan's code: all
	mask       uint64      // the spawning thread's signal mask, and the job's
	nofile     unix.Rlimit // the job's open-file limit, when setNofile ...
	raised     unix.Rlimit // ... and fan's is still this one
	setNofile  bool
	ppid       int
	pidfd      int32         // written by clone3
	errno      syscall.Errno // written by the child when a step before exec fails
}

// vforkExec starts the plan's child, which runs child: vforkChild's code
// (vfork_linux_amd64.s), and returns clone3's result: the child's pid, or
// -errno. No signal may reach the child while it runs fan's code, so
// vforkExec blocks them all on its thread for the clone3, storing the
// thread's mask as it was in the plan for the job.
func vforkExec(plan *childPlan, child uintptr) uintptr

// vforkChildCode is vforkChild's code address.
var vforkChildCode = reflect.ValueOf(vforkChild).Pointer()

// fanPid is fan's process id, which a child checks its parent against.
var fanPid = os.Getpid()

// vforkSpawn starts c with stdio (three entries) as its standard
// descriptors, in a process group of its own, and returns its pid and
// pidfd; nofile is the open-file limit the job gets, nil to inherit
// fan's. It does what syscall.ForkExec does for spawn's attributes, less
// its error pipe: the parent of a vfork resumes only once its child has
// called exec or exit, so the child reports a failure in the plan, in
// memory both share, and the parent reads it without waiting; ForkExec
// waits on a pipe until the exec has closed it, which put fan's thread
// to sleep and woke it again for most jobs (BENCHMARKS.md).
//
// It takes no syscall.ForkLock, which only keeps a descriptor opened
// without close-on-exec from leaking into a child before its flag is
// set: every descriptor fan and the Go runtime open is close-on-exec
// from the start (test core_job_descriptors). The error is
// errVforkUnsupported when the kernel cannot start a process this way
// (clone3 and its CLONE_CLEAR_SIGHAND are Linux 5.5's).
func vforkSpawn(c *Command, env []string, stdio []uintptr, nofile *jobLimit) (pid, pidfd int, err error) {
	p := &childPlan{ppid: fanPid, blocked: ^uint64(0)}
	if p.path, err = syscall.BytePtrFromString(c.Path); err != nil {
		return 0, -1, err
	}
	argv, err := syscall.SlicePtrFromStrings(c.Args)
	if err != nil {
		return 0, -1, err
	}
	envv, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return 0, -1, err
	}
	p.argv, p.envv = &argv[0], &envv[0]
	if c.Dir != "" {
		if p.dir, err = syscall.BytePtrFromString(c.Dir); err != nil {
			return 0, -1, err
		}
	}
	for i, fd := range stdio {
		p.stdio[i] = int(fd)
	}
	if nofile != nil {
		p.nofile, p.raised, p.setNofile = nofile.limit, nofile.raised, true
	}
	p.clone = cloneArgs{
		// The child's signal handlers are reset to the default (those
		// ignored stay ignored), as the Go runtime's are no use to it.
		flags:      unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD | unix.CLONE_CLEAR_SIGHAND,
		pidfd:      uint64(uintptr(unsafe.Pointer(&p.pidfd))),
		exitSignal: uint64(unix.SIGCHLD),
	}

	r := vforkExec(p, vforkChildCode) // p, used below, keeps argv and envv alive

	if int(r) < 0 && int(r) > -4096 { // -errno
		switch errno := syscall.Errno(-int(r)); errno {
		case unix.ENOSYS, unix.EINVAL, unix.EPERM:
			return 0, -1, errVforkUnsupported
		default:
			return 0, -1, errno
		}
	}
	pid, pidfd = int(r), int(p.pidfd)
	if p.errno != 0 {
		// The child failed before its exec, and has exited: reap it.
		unix.Close(pidfd)
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		return 0, -1, p.errno
	}
	return pid, pidfd, nil
}

// vforkChild is the child of vforkExec: it makes itself the leader of a
// process group, dies with fan, moves to the job's directory, takes the
// job's descriptors, limit and signal mask, and execs the job. A step
// that fails stores its error in the plan and exits. Its system calls go
// through childSyscall, which uses no stack: the linker checks that the
// child's frames fit the stack left below vforkExec's (even in a debug
// build, -gcflags=all=-N -l), but cannot see vforkExec call it.
//
// Like Go's own child (syscall.forkAndExecInChild1), it is compiled
// without the race detector's instrumentation but not without a
// coverage build's counters: a build with -race and -cover counts them
// through the race runtime, in the child.
//
//go:nosplit
//go:norace
//go:nocheckptr
func vforkChild(p *childPlan) {
	if _, e := childSyscall(unix.SYS_SETPGID, 0, 0, 0, 0); e != 0 {
		childFailed(p, e)
	}
	if _, e := childSyscall(unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0); e != 0 {
		childFailed(p, e)
	}
	if ppid, _ := childSyscall(unix.SYS_GETPPID, 0, 0, 0, 0); int(ppid) != p.ppid {
		// fan died before the line above: follow it.
		self, _ := childSyscall(unix.SYS_GETPID, 0, 0, 0, 0)
		childSyscall(unix.SYS_KILL, self, uintptr(unix.SIGKILL), 0, 0)
	}
	if p.dir != nil {
		if _, e := childSyscall(unix.SYS_CHDIR, uintptr(unsafe.Pointer(p.dir)), 0, 0, 0); e != 0 {
			childFailed(p, e)
		}
	}
	// An entry numbered 0 to 2 but not its own place would be overwritten
	// by another's dup3 before it is used: copy it out of the way first,
	// to a free number (F_DUPFD never closes one already open, so a
	// descriptor the job inherits keeps its number), closed at the exec.
	fds := p.stdio
	for i, fd := range fds {
		if fd < len(fds) && fd != i {
			moved, e := childSyscall(unix.SYS_FCNTL, uintptr(fd), unix.F_DUPFD_CLOEXEC, uintptr(len(fds)), 0)
			if e != 0 {
				childFailed(p, e)
			}
			fds[i] = int(moved)
		}
	}
	for i, fd := range fds {
		var e syscall.Errno
		if fd == i {
			_, e = childSyscall(unix.SYS_FCNTL, uintptr(fd), unix.F_SETFD, 0, 0)
		} else {
			_, e = childSyscall(unix.SYS_DUP3, uintptr(fd), uintptr(i), 0, 0)
		}
		if e != 0 {
			childFailed(p, e)
		}
	}
	if p.setNofile {
		// As ForkExec: the limit fan was started with goes back only while
		// fan's is still the one the runtime raised it to (someone may have
		// set fan's since, with prlimit), and one that cannot be set is
		// left as it is.
		var now unix.Rlimit
		_, e := childSyscall(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, 0, uintptr(unsafe.Pointer(&now)))
		if e == 0 && now == p.raised {
			childSyscall(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, uintptr(unsafe.Pointer(&p.nofile)), 0)
		}
	}
	childSyscall(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&p.mask)), 0, 8)
	_, e := childSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(p.path)),
		uintptr(unsafe.Pointer(p.argv)), uintptr(unsafe.Pointer(p.envv)), 0)
	childFailed(p, e)
}

// childFailed ends the child of vforkExec after a failed step, leaving
// its error for the parent.
//
//go:nosplit
//go:norace
func childFailed(p *childPlan, e syscall.Errno) {
	p.errno = e
	for {
		childSyscall(unix.SYS_EXIT, 253, 0, 0, 0)
	}
}

// childSyscall makes a system call of up to four arguments for the child
// of vforkExec, in a frame of no locals (vfork_linux_amd64.s).
//
//go:noescape
func childSyscall(trap, a1, a2, a3, a4 uintptr) (r1 uintptr, errno syscall.Errno)

// System call numbers and the like, for vfork_linux_amd64.s (which
// sees them through go_asm.h, as const_ names).
const (
	sysRtSigprocmask = unix.SYS_RT_SIGPROCMASK
	sysClone3        = unix.SYS_CLONE3
	sysExit          = unix.SYS_EXIT
	sigSetmask       = unix.SIG_SETMASK
)
