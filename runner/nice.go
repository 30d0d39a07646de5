package runner

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// niceSpawner starts the jobs of --nice N from one OS thread of its own
// whose nice value is N: a process takes its nice value from the thread
// that forks it, and Go gives no hook between fork and exec, where GNU
// parallel calls setpriority. The thread lives as long as the spawner:
// the jobs' parent-death signal is tied to the thread that forked them.
type niceSpawner struct {
	reqs chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	c         *Command
	env       []string
	stdio     []uintptr
	inherited []int
	reply     chan spawnReply
}

type spawnReply struct {
	p   *proc
	err error
}

// SetNice makes the jobs of l run at nice value n (--nice). It fails when
// n is not allowed (below fan's own without the privilege to raise
// priority). Call it before any Start; Close ends it.
func (l *Local) SetNice(n int) error {
	s := &niceSpawner{reqs: make(chan spawnReq), done: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		defer close(s.done)
		// Never unlocked: the thread, niced for good, ends with this
		// goroutine rather than run anything else.
		runtime.LockOSThread()
		if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), n); err != nil {
			errc <- fmt.Errorf("--nice %d: %w (only root may lower a nice value)", n, err)
			return
		}
		errc <- nil
		for r := range s.reqs {
			p, err := startProcess(r.c, r.env, r.stdio, r.inherited)
			r.reply <- spawnReply{p, err}
		}
	}()
	if err := <-errc; err != nil {
		return err
	}
	l.nice = s
	return nil
}

// spawn starts c from the niced thread.
func (s *niceSpawner) spawn(c *Command, env []string, stdio []uintptr, inherited []int) (*proc, error) {
	reply := make(chan spawnReply, 1)
	s.reqs <- spawnReq{c, env, stdio, inherited, reply}
	r := <-reply
	return r.p, r.err
}

// close ends the thread; no job may be running.
func (s *niceSpawner) close() {
	close(s.reqs)
	<-s.done
}
