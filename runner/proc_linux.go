package runner

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// proc is a started job: the leader of a process group of its own. Its exit
// is awaited through a pidfd on Go's poller, so a waiting job holds no
// thread.
type proc struct {
	pid   int
	pidfd *os.File      // nil on kernels without pidfds
	exitc chan struct{} // without pidfds: closed when the leader has exited
}

// spawn starts c in a new process group with the given stdin, stdout and
// stderr.
func spawn(c *Command, env []string, stdio []uintptr) (*proc, error) {
	pidfd := -1
	attr := &syscall.ProcAttr{
		Env:   env,
		Files: stdio,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	}
	pid, err := syscall.ForkExec(c.Path, c.Args, attr)
	if err != nil {
		return nil, err
	}
	p := &proc{pid: pid}
	// A pidfd's file status flags are only its access mode, so O_NONBLOCK
	// is set with one fcntl rather than unix.SetNonblock's two.
	if pidfd >= 0 {
		if _, err := unix.FcntlInt(uintptr(pidfd), unix.F_SETFL, unix.O_NONBLOCK); err == nil {
			p.pidfd = os.NewFile(uintptr(pidfd), "pidfd")
			return p, nil
		}
		unix.Close(pidfd)
	}
	p.exitc = make(chan struct{})
	go func() {
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(p.exitc)
	}()
	return p, nil
}

// wait waits for the job's leader to exit, applying seq to the group if ctx
// ends first; if kill ends during the sequence, the group is killed at once.
// Once the leader has exited, whatever it left in its group is killed; then
// the leader is reaped. The group cannot be reused before that, because the
// unreaped leader keeps its id. terminated reports whether the sequence was
// applied: the leader was still running when ctx ended.
func (p *proc) wait(ctx, kill context.Context, seq TermSeq) (ws syscall.WaitStatus, terminated bool) {
	if !p.awaitExit(ctx, 0) && !p.exited() {
		p.terminate(kill, seq)
		terminated = true
	}
	p.signal(unix.SIGKILL)
	for {
		_, err := syscall.Wait4(p.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if p.pidfd != nil {
		p.pidfd.Close()
	}
	return ws, terminated
}

// signal sends sig to the job's whole process group. ESRCH (nobody left) is
// not an error worth reporting.
func (p *proc) signal(sig syscall.Signal) {
	_ = unix.Kill(-p.pid, sig)
}

// terminate walks the termination sequence until the leader exits; if it
// outlives the sequence, or kill ends first, the group is killed and awaited.
func (p *proc) terminate(kill context.Context, seq TermSeq) {
	for _, step := range seq {
		if kill.Err() != nil {
			break
		}
		p.signal(step.Signal)
		if p.awaitExit(kill, max(step.Wait, time.Millisecond)) {
			return
		}
	}
	p.signal(unix.SIGKILL)
	p.awaitExit(context.Background(), 0)
}

// awaitExit blocks until the leader has exited (true), or until ctx ends or
// the timeout d (when non-zero) passes (false). The leader is not reaped.
func (p *proc) awaitExit(ctx context.Context, d time.Duration) bool {
	if p.pidfd == nil {
		return p.awaitChan(ctx, d)
	}
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	p.pidfd.SetReadDeadline(deadline)
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		p.pidfd.SetReadDeadline(time.Unix(1, 0))
		close(cancelled)
	})
	defer func() {
		if !stop() {
			<-cancelled // the cancel ran or is running: let it finish first
		}
	}()
	rc, err := p.pidfd.SyscallConn()
	if err != nil {
		return p.exited()
	}
	exited := false
	err = rc.Read(func(fd uintptr) bool {
		exited = p.exited()
		return exited
	})
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return p.exited()
	}
	return exited
}

func (p *proc) awaitChan(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-p.exitc:
		return true
	case <-ctx.Done():
	case <-timeout:
	}
	select {
	case <-p.exitc:
		return true
	default:
		return false
	}
}

// exited reports, without blocking or reaping, whether the leader has exited.
func (p *proc) exited() bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err != nil || info.Signo != 0
	}
}
