package runner

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// capturePoll watches the read ends of every running job's capture pipes
// with one epoll instance of fan's own: a pipe costs no goroutine and no
// file on Go's netpoller while nothing comes through it. Its loop is one
// goroutine, parked on Go's netpoller, which watches the epoll instance
// itself (an epoll descriptor is readable while events wait in it), so it
// holds no thread while it waits. Most jobs write nothing into their
// stderr, and many nothing at all; for such a pipe the only event is its
// end of file (EPOLLHUP), which the loop takes itself: one read, and the
// pipe is closed. What comes is moved by the loop while the stream
// is small (most jobs' whole output), else by a mover goroutine started
// for the stream until its pipe is empty again (capture_move.go). A big
// stream (a pipeful has passed into its spool file; it runs its pipe
// empty over and over) leaves the epoll instance when its pipe first
// runs empty, and its mover waits on Go's netpoller from then on
// (toNetpoller).
//
// Every pipe is watched one-shot (EPOLLONESHOT): whoever takes its event
// (the loop, or the job's end, see jobCapture.end) has the pipe to itself
// until it re-arms the watch or closes the pipe; pipeCapture.mu guards
// that hand-over. The pool's Run starts the loop and stops it once its
// jobs have ended, after the movers.
type capturePoll struct {
	epfd int
	ep   *os.File // epfd, on Go's netpoller
	rc   syscall.RawConn
	stop atomic.Bool

	mu    sync.Mutex
	pipes map[uint64]*pipeCapture // by id, the epoll event's data
	next  uint64                  // the last id given
	left  leftBehind              // pipes left behind by their jobs (capture_left.go)

	movers sync.WaitGroup
	done   chan struct{} // closed when the loop has returned
}

// startCapturePoll makes the epoll instance and starts its loop. Of the
// pipes left behind by their jobs, it keeps at most leftMost open (0 is
// maxLeftBehind), and tells notify the first time it closes one for want
// of room (capture_left.go).
func startCapturePoll(leftMost int, notify func(string)) (*capturePoll, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	// Non-blocking, so that os.NewFile puts it on the netpoller.
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	p := &capturePoll{epfd: epfd, ep: os.NewFile(uintptr(epfd), "epoll"), pipes: map[uint64]*pipeCapture{}, done: make(chan struct{}),
		left: newLeftBehind(leftMost, notify)}
	if p.rc, err = p.ep.SyscallConn(); err != nil {
		p.ep.Close()
		return nil, err
	}
	go p.run()
	return p, nil
}

// close stops the loop, once every capture has ended, and waits for it
// and for the movers; then it closes the pipes left behind (leave). p may
// be nil.
func (p *capturePoll) close() {
	if p == nil {
		return
	}
	p.stop.Store(true)
	p.ep.SetReadDeadline(time.Now()) // wakes the loop
	<-p.done
	p.movers.Wait()
	p.mu.Lock()
	for _, c := range p.pipes {
		unix.Close(c.fd) // every job has ended: only pipes left behind are here
	}
	p.pipes = nil
	if null := atomic.LoadInt32(&p.left.null); null >= 0 {
		unix.Close(int(null))
	}
	p.mu.Unlock()
	p.ep.Close()
}

// run hands each pipe its events until close: it takes what the epoll
// instance holds, and when it holds nothing, waits on the netpoller for
// it to become readable.
func (p *capturePoll) run() {
	defer close(p.done)
	var events [64]unix.EpollEvent
	p.rc.Read(func(fd uintptr) bool {
		for !p.stop.Load() {
			n, err := unix.EpollWait(int(fd), events[:], 0)
			if err == unix.EINTR {
				continue
			}
			if n <= 0 {
				// Empty (or, which cannot be, failing: the jobs' ends
				// then take what their pipes hold after captureGrace).
				return false
			}
			for _, ev := range events[:n] {
				p.handle(uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32)
			}
			if n < len(events) {
				// It was emptied: an event from now on makes it readable
				// again, and the netpoller wakes the loop.
				return false
			}
		}
		return true
	})
}

// handle takes the pipe of an event, unless it was closed since or the
// job's end took it.
func (p *capturePoll) handle(id uint64) {
	p.mu.Lock()
	c := p.pipes[id]
	p.mu.Unlock()
	if c != nil && c.take() {
		c.turn()
	}
}

// watch gives c an id and starts watching its read end.
func (p *capturePoll) watch(c *pipeCapture) error {
	c.armed = true // before the loop can see c
	p.mu.Lock()
	p.next++
	c.id = p.next
	p.pipes[c.id] = c
	if c.left {
		p.left.pipes[c.id] = c
	}
	p.mu.Unlock()
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, c.fd, c.event()); err != nil {
		p.forget(c)
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// forget stops handing events to c: its read end is closing. An event
// already taken from the kernel finds no pipe.
func (p *capturePoll) forget(c *pipeCapture) {
	p.mu.Lock()
	delete(p.pipes, c.id)
	if c.left {
		delete(p.left.pipes, c.id)
	}
	p.mu.Unlock()
}

// event is c's one-shot watch: readable, or its write ends all closed
// (EPOLLHUP, always reported).
func (c *pipeCapture) event() *unix.EpollEvent {
	return &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(uint32(c.id)), Pad: int32(uint32(c.id >> 32))}
}

// take hands the pipe to the caller when it is watched (its watch has
// fired, or is disarmed by the caller's taking it); false when another
// has it or it is closed.
func (c *pipeCapture) take() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.armed {
		return false
	}
	c.armed = false
	return true
}

// turn is a turn at the pipe for whoever took it: small output (not big,
// see toSpool) is moved here, up to a pipeful; then the pipe is closed at
// its end, or watched again when empty, or, with more to move, handed to
// a mover goroutine.
func (c *pipeCapture) turn() {
	switch c.pump(c.fd, captureChunk, c.small) {
	case pumpedEmpty:
		c.settle(false)
		return
	case pumpedEnd:
		c.settle(true)
		return
	}
	c.poll.movers.Add(1)
	go func() {
		defer c.poll.movers.Done()
		eof := c.move(c.fd)
		if !eof && c.big && c.toNetpoller() {
			c.pollBig()
			return
		}
		c.settle(eof)
	}()
}

// toNetpoller moves a big stream's pipe, found empty, from the epoll
// instance to Go's netpoller, where its mover waits for it from then on:
// big output empties the pipe over and over, and a mover started anew
// and a watch re-armed each time cost more CPU (W3, a few %) than a
// goroutine parked on the netpoller. False when end has given up waiting
// (then settle drains the pipe and closes it).
func (c *pipeCapture) toNetpoller() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop.Load() || unix.EpollCtl(c.poll.epfd, unix.EPOLL_CTL_DEL, c.fd, nil) != nil {
		return false
	}
	c.poll.forget(c)
	c.netRead.Store(os.NewFile(uintptr(c.fd), "|0")) // non-blocking: on the netpoller
	return true
}

// pollBig moves what comes through a pipe on the netpoller until its end
// of file, or until end gives up waiting for it (setting stop and a read
// deadline); then it takes what the pipe holds and closes it.
func (c *pipeCapture) pollBig() {
	r := c.netRead.Load()
	rc, err := r.SyscallConn()
	if err == nil {
		err = rc.Read(func(fd uintptr) bool { return c.move(int(fd)) })
		if err != nil {
			rc.Control(func(fd uintptr) { c.leaveIfHeld(int(fd)) })
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r.Close()
	close(c.done)
}

// settle ends a turn at the pipe: at end of file, or when end gave up
// waiting for it (after taking what the pipe holds), the pipe is closed;
// otherwise it is watched again.
func (c *pipeCapture) settle(eof bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !eof && c.stop.Load() {
		if !c.left {
			c.leaveIfHeld(c.fd)
		} // else it is closed for want of room (capturePoll.leave)
		eof = true
	}
	if !eof {
		err := unix.EpollCtl(c.poll.epfd, unix.EPOLL_CTL_MOD, c.fd, c.event())
		if err == nil {
			c.armed = true
			return
		}
		c.fail(os.NewSyscallError("epoll_ctl", err))
	}
	c.finish()
}

// leaveIfHeld takes what the pipe holds, once end has given up waiting
// for its end of file; when a process that escaped the job still holds
// it open, the pipe goes on without the job: a copy of fd, its read end,
// is left behind (capturePoll.leave), and the caller closes fd.
func (c *pipeCapture) leaveIfHeld(fd int) {
	if c.drain(fd) {
		return
	}
	// fd's own watch, if it has one, ends: the copy would keep it alive.
	unix.EpollCtl(c.poll.epfd, unix.EPOLL_CTL_DEL, fd, nil)
	if d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
		c.poll.leave(d)
	}
}

// finish closes the pipe's read end (which also ends its watch) and tells
// the job's end. Called with c.mu held.
func (c *pipeCapture) finish() {
	c.poll.forget(c)
	unix.Close(c.fd)
	close(c.done)
}
