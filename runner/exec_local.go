package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fan-run/fan/internal/pathmsg"
)

// Local is the Executor that runs jobs on this machine: each attempt is
// the leader of a process group of its own, waited for through its pidfd
// and swept with SIGKILL once it has exited, so that nothing it started
// outlives it.
type Local struct {
	// FewThreads makes every job wait for its exit on the netpoller, none
	// in a blocking wait that holds a thread: under a low process limit
	// (ulimit -u), which counts threads, those would crowd out the jobs.
	FewThreads bool
	// MostJobs is the most jobs that may run at once (-j; 0: not known).
	// Only when every one of them can wait in a blocking waitid
	// (blockingWaits) does a waiting job get the Go scheduler a spare P
	// (spareProcs.give): with more, many jobs start at once, and each
	// spare P lets one more thread run fan's Go code (-j 1000 of sleep
	// made some 50 threads instead of 25). Not known, none is given.
	MostJobs int
	// Notify, when set, passes a message for the user on; it must not
	// block. Local says through it that processes have run short.
	Notify func(string)

	devnull *os.File
	nice    *niceSpawner // --nice: jobs start from a niced thread
	// inherited: the descriptors fan was started with that jobs inherit
	// (past 0-2), which starting a job must not close (clearOfInherited).
	inherited []int
	groups    groups
	running   atomic.Int64
	// forkWarned: the user has been told that processes ran short.
	forkWarned atomic.Bool
}

// NewLocal returns a local executor. It holds /dev/null open for the jobs'
// stdin until Close.
func NewLocal() (*Local, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	return &Local{devnull: devnull, inherited: inheritedDescriptors()}, nil
}

// Close releases what the executor holds; no attempt may be running.
func (l *Local) Close() error {
	if l.nice != nil {
		l.nice.close()
	}
	return l.devnull.Close()
}

// Running is the number of attempts running now.
func (l *Local) Running() int { return int(l.running.Load()) }

// Suspend implements Executor: SIGTSTP to every running job's group.
func (l *Local) Suspend() { l.groups.suspend() }

// Resume implements Executor: SIGCONT to every running job's group.
func (l *Local) Resume() { l.groups.resume() }

// Start implements Executor.
func (l *Local) Start(a *Attempt) (Process, error) {
	stdio := []uintptr{l.devnull.Fd(), 1, 2}
	for i, f := range []*os.File{a.Stdin, a.Stdout, a.Stderr} {
		if f != nil {
			stdio[i] = f.Fd()
		}
	}
	if a.captured != nil {
		out, err := a.captured.fds()
		if out >= 0 {
			stdio[1] = uintptr(out)
		}
		stdio[2] = uintptr(err)
	}
	c := a.Command
	pr, err := l.spawnIn(c, a, stdio)
	if errors.Is(err, syscall.ENOEXEC) {
		// A script without #!: a shell would run it with itself.
		sh := Command{Path: a.Shell, Args: []string{a.Shell, "-c", c.String()}, Dir: c.Dir}
		pr, err = l.startProcess(&sh, a.Env, stdio)
	}
	if err != nil {
		return nil, startError(a, err)
	}
	l.groups.add(pr.pid)
	pr.listed = &l.groups
	n := l.running.Add(1)
	block := n <= blockingWaits && !l.FewThreads
	if block && l.sparesP() {
		spare.give(int(n))
	}
	return &localProc{proc: pr, l: l, block: block}, nil
}

// sparesP reports whether a job in a blocking wait gets the scheduler a
// spare P: only when -j is known and every job can wait blocking.
func (l *Local) sparesP() bool { return l.MostJobs > 0 && l.MostJobs <= blockingWaits }

// startError says why the attempt could not start, with the status a shell would
// give where the error alone does not tell it.
func startError(a *Attempt, err error) error {
	c, job := a.Command, "job "+strconv.FormatInt(a.Seq, 10)
	switch {
	case errors.Is(err, syscall.EINVAL) && holdsNUL(c.Args):
		return &StartError{Name: job, Status: 127,
			Reason: "an argument holds a NUL byte, which no command line can carry (split items at NUL with -0)"}
	case errors.Is(err, syscall.E2BIG):
		// 126, as a shell gives for "argument list too long".
		return &StartError{Name: job, Status: 126,
			Reason: "its command line is longer than the system allows (give it fewer or shorter items; -X and -m pack only what fits)"}
	}
	var se *StartError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("%s: %w", c.Path, err) // say which program
}

// localProc is a running local attempt.
type localProc struct {
	*proc
	l     *Local
	block bool // wait in a blocking waitid (see blockingWaits)
}

// Wait implements Process.
func (p *localProc) Wait(stop, kill context.Context, seq TermSeq) (Exit, error) {
	ws, terminated := p.wait(stop, kill, seq, p.block)
	p.l.running.Add(-1)
	return Exit{Status: ws, Terminated: terminated}, nil
}

// spawnIn spawns c in its working directory, which it makes first when
// missing (GNU parallel's --workdir does the same).
func (l *Local) spawnIn(c *Command, a *Attempt, stdio []uintptr) (*proc, error) {
	if c.Dir != "" {
		if err := os.MkdirAll(c.Dir, 0o755); err != nil {
			err = pathmsg.Bare(err)
			return nil, &StartError{Name: c.Dir, Status: 126, Reason: fmt.Sprintf("cannot be the job's working directory: %v", err)}
		}
	}
	return l.spawnWaiting(c, a, stdio)
}

// Waits for a process when the system has none to spare: the first, the
// longest between two tries, and how long fan keeps trying while none of
// its own jobs is running (one that ends would free a process; otherwise
// only other programs ending can, which may take a while).
const (
	forkRetryFirst = 10 * time.Millisecond
	forkRetryMax   = 500 * time.Millisecond
	forkRetryAlone = time.Minute
)

// startProcess is spawn, replaced in tests that need it to fail.
var startProcess = spawn

// spawnWaiting spawns c; when the system cannot make another process now
// (EAGAIN: the user's process limit, ulimit -u; ENOMEM), it waits and
// tries again, for as long as fan's own jobs run and then forkRetryAlone
// more, rather than fail item after item at once. GNU parallel likewise
// runs fewer jobs. The first such wait is announced through Notify.
func (l *Local) spawnWaiting(c *Command, a *Attempt, stdio []uintptr) (*proc, error) {
	pr, err := l.startProcess(c, a.Env, stdio)
	wait, alone := forkRetryFirst, time.Duration(0)
	cancel := a.Cancel
	if cancel == nil {
		cancel = context.Background()
	}
	for errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM) {
		if l.Notify != nil && !l.forkWarned.Swap(true) {
			l.Notify(fmt.Sprintf("fan: cannot start another process now (%v): waiting for running jobs to end (lower -j, or raise the task limit: ulimit -u, or the cgroup's pids.max)", err))
		}
		if alone >= forkRetryAlone {
			return nil, &StartError{Name: "job " + strconv.FormatInt(a.Seq, 10), Status: 126,
				Reason: fmt.Sprintf("no process could be started for %v (%v): the task limit (ulimit -u, or the cgroup's pids.max) stayed full", forkRetryAlone, err)}
		}
		if !Sleep(cancel, wait) {
			break
		}
		if l.running.Load() == 0 {
			alone += wait
		}
		wait = min(2*wait, forkRetryMax)
		pr, err = l.startProcess(c, a.Env, stdio)
	}
	return pr, err
}

// startProcess starts c, from the niced thread with --nice, keeping
// the descriptors fan inherited open in it.
func (l *Local) startProcess(c *Command, env []string, stdio []uintptr) (*proc, error) {
	if l.nice != nil {
		return l.nice.spawn(c, env, stdio, l.inherited)
	}
	return startProcess(c, env, stdio, l.inherited)
}

// holdsNUL reports whether an argument holds a NUL byte: exec refuses such
// an argv (EINVAL), as it cannot be passed.
func holdsNUL(args []string) bool {
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return true
		}
	}
	return false
}
