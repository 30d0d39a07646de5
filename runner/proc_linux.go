package runner

import (
	"context"
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// blockingWaits is how many running jobs, at most, wait for their exit in a
// blocking waitid that holds a thread each. Jobs started while more are
// running wait through their pidfd on Go's netpoller instead, so that a
// thousand running jobs hold no thousand threads. The blocking wait is the
// cheaper one per job (no epoll registration, no poller wake-up to hand the
// exit over: fan's own CPU on W1 fell from a median of 670 to 585 µs a
// job, see BENCHMARKS.md), so the common -j of a few jobs gets it.
const blockingWaits = 16

// proc is a started job: the leader of a process group of its own.
type proc struct {
	pid   int
	pidfd int           // -1 on kernels without pidfds
	exitc chan struct{} // without pidfds: closed when the leader has exited

	pollOnce sync.Once
	polled   *os.File // the pidfd on the netpoller, made at first need

	listed *groups // where the group is listed, to come off before the reap
}

// poller is the pidfd as a file on Go's netpoller, made the first time a
// wait needs it: a blocking wait that no timeout or drain interrupts never
// registers it. The file then owns the pidfd.
func (p *proc) poller() *os.File {
	p.pollOnce.Do(func() { p.polled = os.NewFile(uintptr(p.pidfd), "pidfd") })
	return p.polled
}

// wait waits for the job's leader to exit, applying seq to the group if ctx
// ends first; if kill ends during the sequence, the group is killed at once.
// With block, the wait holds this goroutine's thread in a waitid (see
// blockingWaits). Once the leader has exited, whatever it left in its group
// is killed; then the leader is reaped. The group cannot be reused before
// that, because the unreaped leader keeps its id. terminated reports whether
// the sequence was applied: the leader was still running when ctx ended.
func (p *proc) wait(ctx, kill context.Context, seq TermSeq, block bool) (ws syscall.WaitStatus, terminated bool) {
	if block && p.pidfd >= 0 {
		terminated = p.blockingWait(ctx, kill, seq)
	} else if !p.awaitExit(ctx, 0) && !p.exited() {
		p.terminate(kill, seq)
		terminated = true
	}
	p.signal(unix.SIGKILL)
	if p.listed != nil {
		p.listed.remove(p.pid)
	}
	for {
		_, err := syscall.Wait4(p.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if p.pidfd >= 0 {
		// No wait is running now, so polled is settled.
		if p.polled != nil {
			p.polled.Close()
		} else {
			unix.Close(p.pidfd)
		}
	}
	return ws, terminated
}

// blockingWait blocks in waitid until the leader exits. If ctx ends first,
// another goroutine applies seq meanwhile, which ends the wait; it reports
// whether it did.
func (p *proc) blockingWait(ctx, kill context.Context, seq TermSeq) bool {
	terminated := false
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		if !p.exited() {
			terminated = true
			p.terminate(kill, seq)
		}
	})
	p.blockUntilExit()
	if !stop() {
		<-done // the sequence ran or is running: let it finish first
	}
	return terminated
}

// blockUntilExit blocks until the leader has exited, without reaping it.
func (p *proc) blockUntilExit() {
	var info unix.Siginfo
	for unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
	}
}

// signal sends sig to the job's whole process group. ESRCH (nobody left) is
// not an error worth reporting.
func (p *proc) signal(sig syscall.Signal) {
	_ = unix.Kill(-p.pid, sig)
}

// terminate walks the termination sequence until the leader exits; if it
// outlives the sequence, or kill ends first, the group is killed and awaited.
// Each signal that neither kills nor stops is followed by SIGCONT, so that a
// stopped job gets to act on it.
func (p *proc) terminate(kill context.Context, seq TermSeq) {
	for _, step := range seq {
		if kill.Err() != nil {
			break
		}
		p.signal(step.Signal)
		switch step.Signal {
		case unix.SIGKILL, unix.SIGCONT, unix.SIGSTOP, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU:
		default:
			// A stopped job acts on the signal only once continued (as
			// GNU timeout does, and a shell's kill for a stopped job).
			p.signal(unix.SIGCONT)
		}
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
	if p.pidfd < 0 {
		return p.awaitChan(ctx, d)
	}
	pidfd := p.poller()
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	pidfd.SetReadDeadline(deadline)
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		pidfd.SetReadDeadline(time.Unix(1, 0))
		close(cancelled)
	})
	defer func() {
		if !stop() {
			<-cancelled // the cancel ran or is running: let it finish first
		}
	}()
	rc, err := pidfd.SyscallConn()
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
