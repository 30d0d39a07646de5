package runner

import (
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Pipes left behind: a process that escaped its job's group (setsid, a
// daemon) may hold the job's output pipes open after the job ended. Closed
// at once, a pipe would kill that process (SIGPIPE) at its next write; GNU
// parallel's jobs write into files, which never refuse one, and under
// xargs such a process writes to xargs's own stdout. So fan keeps the
// pipe, reading and dropping what comes, until that process closes it or
// the run ends; once fan's run is over, its writes fail as into any pipe
// whose reader has gone.
//
// Each such pipe holds a descriptor for as long (what comes is spliced
// into /dev/null: no buffer of fan's), so their number is bounded: past the most the
// pool was given (Pool.LeftBehind, which FitBudget keeps room for under
// the open-file limit), the oldest is closed, and its holder's next write
// fails as it would once the run ended. The first time, the user is told
// why, and what to do.

// maxLeftBehind is the most pipes left behind kept open, whatever the
// open-file limit: 256 descriptors, and as many pipes of the default size
// against the user's share of pipe memory (pipe-user-pages-soft holds
// 1024), so that the jobs' own pipes keep theirs. A run that leaves more
// processes behind, each holding its output, is leaving daemons that
// want their output sent somewhere else.
const maxLeftBehind = 256

// leftBehind is the capturePoll's account of the pipes left behind,
// under capturePoll.mu but for null.
type leftBehind struct {
	pipes  map[uint64]*pipeCapture // by id: the lowest is the oldest
	most   int
	warned bool
	notify func(string)
	// null is /dev/null, opened when a pipe left behind first brings
	// something; -1 until then. What such pipes bring is spliced into it,
	// so that they need no buffer of fan's to be emptied. Read and set
	// atomically (pumps run on more than one goroutine).
	null int32
}

func newLeftBehind(most int, notify func(string)) leftBehind {
	if most <= 0 {
		most = maxLeftBehind
	}
	return leftBehind{pipes: map[uint64]*pipeCapture{}, most: most, notify: notify, null: -1}
}

// nullFd is the descriptor of /dev/null for dropping what pipes left
// behind bring, opened when first asked for; -1 when it cannot be now
// (out of descriptors, say), to be tried again at the next call.
func (p *capturePoll) nullFd() int {
	if fd := atomic.LoadInt32(&p.left.null); fd >= 0 {
		return int(fd)
	}
	fd, err := unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	if !atomic.CompareAndSwapInt32(&p.left.null, -1, int32(fd)) {
		unix.Close(fd) // another pump opened it meanwhile
	}
	return int(atomic.LoadInt32(&p.left.null))
}

// discard empties what a pipe left behind holds into /dev/null, up to
// what one splice moves, or where splice cannot, reads it and drops it.
func (c *pipeCapture) discard(fd int) (int, error) {
	if null := c.poll.nullFd(); null >= 0 {
		n, err := unix.Splice(fd, nil, null, nil, spillPipeSize, unix.SPLICE_F_NONBLOCK)
		if err != unix.EINVAL {
			return int(n), err
		}
	}
	return unix.Read(fd, c.buffer())
}

// leave keeps fd, the read end of a pipe whose job has ended but which a
// process that escaped the job's group still holds open, until that
// process closes it or the run ends, reading and dropping what comes. When
// that makes more pipes left behind than the most kept, the oldest is
// closed.
func (p *capturePoll) leave(fd int) {
	if p.stop.Load() {
		unix.Close(fd)
		return
	}
	// A big stream's pipe was grown: back to the default size, so that
	// pipes left behind count as such against the user's pipe memory
	// (refused, harmlessly, while it holds more).
	unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, captureChunk)
	l := &pipeCapture{poll: p, fd: fd, wfd: -1, done: make(chan struct{}), left: true}
	if p.watch(l) != nil {
		unix.Close(fd)
		return
	}
	p.mu.Lock()
	var oldest *pipeCapture
	if len(p.left.pipes) > p.left.most {
		for _, c := range p.left.pipes {
			if oldest == nil || c.id < oldest.id {
				oldest = c
			}
		}
		delete(p.left.pipes, oldest.id)
	}
	warn := oldest != nil && !p.left.warned
	p.left.warned = p.left.warned || warn
	p.mu.Unlock()
	if oldest == nil {
		return
	}
	oldest.giveUp() // whoever has it closes it
	if warn && p.left.notify != nil {
		p.left.notify(fmt.Sprintf("fan: more than %d output pipes of ended jobs are held open by processes the jobs left running (setsid, daemons): closing the oldest, so its holder's next write fails; send such processes' output elsewhere (CMD >/dev/null 2>&1 &) to keep them writing", p.left.most))
	}
}
