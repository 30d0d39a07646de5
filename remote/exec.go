package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fan-run/fan/runner"
)

// Executor runs jobs on one host: a runner.Executor whose attempts are
// channels of the host's shared connection. Each job runs under a small
// sh wrapper on the host (see job.script) in a process group of its own,
// whose id the executor learns before Start returns; termination
// (--termseq) is sent to that group over the same connection, and the
// wrapper kills what the job left in it before it reports the job's
// status. It is safe for concurrent use.
//
// What reaches the job: its command (the rendered command line, run by the
// host's shell of the same name as the local one: sh, bash, ...; a
// directly exec'd command is quoted into a line), the variables of the
// attempt's environment that the executor passes (runner.JobVars and those
// named at NewExecutor: not fan's whole environment, which is this
// machine's; a name given there that is an exported bash function,
// BASH_FUNC_name%%, passes the function), Command.Dir as a directory on
// the host (relative to the login's home; made when missing; TempDir for
// a fresh one), and the attempt's stdin (pipe mode) or
// nothing. Its stdout is written to the attempt's Stdout file by the
// master connection itself (no ssh process runs per job: see channel);
// its stderr passes through the executor, which takes the
// wrapper's two lines out of it.
//
// Exit statuses come from the host's shell: a job killed by signal N
// exits 128+N there, which Wait reports as killed by signal N; a job
// that exits 129..192 itself reads the same.
//
// Limits: in pipe mode (Attempt.Stdin set) the job has no lifeline yet, as
// its stdin carries its data: should the connection be lost, it runs on
// until it reads to the end of its input or writes. And a signal reaches
// the group by its id, which, once the job has ended, a new group of the
// same user may take when pids wrap around (the local executor avoids it
// by reaping late; a remote shell cannot).
type Executor struct {
	host *Host
	// passed holds the names of the variables (and bash functions) a job
	// gets; each is true when a shell can name it, so that it is exported
	// as a variable. Being here, not the value, means passed (passes).
	passed map[string]bool
	nonce  string

	mu        sync.Mutex
	running   map[*process]struct{}
	suspended bool
}

// NewExecutor returns an executor for h. Jobs get runner.JobVars and the
// variables named in env (--env) from their attempt's environment.
func NewExecutor(h *Host, env []string) *Executor {
	passed := map[string]bool{}
	for _, n := range append(runner.JobVars(), env...) {
		passed[n] = varName().MatchString(n) // checked once, not per job
	}
	var b [8]byte
	rand.Read(b[:])
	return &Executor{host: h, passed: passed, nonce: hex.EncodeToString(b[:]), running: map[*process]struct{}{}}
}

// passes reports whether jobs get the variable or function name.
func (e *Executor) passes(name string) bool {
	_, ok := e.passed[name]
	return ok
}

// RunsElsewhere implements runner.Elsewhere: the program of a job is
// looked for on the host, not on this machine's PATH.
func (e *Executor) RunsElsewhere() bool { return true }

// Host is the host the executor runs jobs on.
func (e *Executor) Host() *Host { return e.host }

// process is one job running on the host.
type process struct {
	e      *Executor
	m      *master
	ch     *channel      // the job's channel
	exited chan struct{} // closed when the channel has ended
	stdin  *os.File      // the lifeline's end that fan holds (argument mode)
	out    *demux
	pgid   int
	files  *files    // to bring back and clean up
	stderr io.Writer // the job's, for what goes wrong with its files
}

// ctx is what gives up an attempt's start: its Cancel, or nothing.
func ctx(a *runner.Attempt) context.Context {
	if a.Cancel != nil {
		return a.Cancel
	}
	return context.Background()
}

// maxCommand is the longest command line a job's channel carries: as
// long as one argument of a program may be here (ssh's, before fan spoke
// to the master itself), so that what runs on a host does not depend on
// how fan reaches it.
const maxCommand = 128<<10 - 1

// TempDir, as Command.Dir (--workdir ...), runs the job in a fresh
// directory on its host (under ~/.parallel/tmp, as GNU parallel), removed
// when the job has ended.
const TempDir = "..."

// varName matches a variable's name. It is compiled when first used, as
// login.go's expressions are: a run without -S uses none, and every
// regular expression compiled at start-up delays every run.
var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// Start implements runner.Executor. It returns once the job runs on the
// host (the wrapper has said so), which takes a round trip. A failure to
// get there (no connection, the host refusing the channel, the wrapper
// unable to start, Attempt.Cancel ending first) is a
// *runner.TransportError: the job did not start.
func (e *Executor) Start(a *runner.Attempt) (runner.Process, error) {
	c := a.Command
	line, ok := c.ShellLine()
	shell := "sh"
	if ok {
		shell = filepath.Base(c.Args[0])
	} else {
		line = c.String()
	}
	j := &job{nonce: e.nonce, dir: c.Dir, shell: shell, line: line, stdin: a.Stdin != nil}
	if c.Dir == TempDir {
		var b [8]byte
		rand.Read(b[:])
		j.dir, j.temp = "", "fan-"+hex.EncodeToString(b[:])
		j.keep = a.Files != nil && len(a.Files.Return) > 0
	}
	for _, kv := range a.Env {
		name, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
		case e.passed[name]: // passed, and a shell can name it
			j.env = append(j.env, kv)
		case strings.HasPrefix(name, "BASH_FUNC_") && strings.HasSuffix(name, "%%") && e.passes(name[len("BASH_FUNC_"):len(name)-2]):
			j.funcs = append(j.funcs, kv) // an exported bash function (export -f)
		}
	}
	script := j.script()
	if strings.IndexByte(script, 0) >= 0 {
		return nil, &runner.StartError{Name: shell, Status: 127,
			Reason: "an argument holds a NUL byte, which no command line can carry (split items at NUL with -0)"}
	}
	remote := remoteCommand(script)
	if len(remote) > maxCommand {
		return nil, &runner.StartError{Name: "ssh", Status: 126,
			Reason: "its command line is longer than the system allows (give it fewer or shorter items)"}
	}
	// The files go last: a job refused above would leave them on the
	// host, with no process to clean them up.
	fs := &files{job: j, f: a.Files, flag: "--transfer"}
	if a.Files != nil {
		if err := e.host.send(ctx(a), fs); err != nil {
			return nil, err
		}
	}
	ctx := ctx(a)
	for try := 0; ; try++ {
		m, err := e.host.acquire(ctx)
		if err != nil {
			return nil, err
		}
		p, refused, err := e.start(ctx, m, a, remote)
		if refused && try < retries {
			continue
		}
		if p != nil {
			p.files = fs
		}
		return p, err
	}
}

// start runs remote as a channel of m and waits for the job to start.
// refused reports that the host refused the channel. On failure the
// channel is given back.
func (e *Executor) start(ctx context.Context, m *master, a *runner.Attempt, remote string) (_ *process, refused bool, _ error) {
	h := e.host
	// Once the channel is asked for, the command may run at any moment:
	// a Cancel (a drain) then gives the host startGrace more to say so,
	// and a job that ran is not reported as not started (its item would
	// run twice). grace ends startGrace after ctx.
	grace, endGrace := context.WithCancelCause(context.WithoutCancel(ctx))
	defer endGrace(nil)
	defer context.AfterFunc(ctx, func() {
		time.AfterFunc(startGrace, func() { endGrace(context.Cause(ctx)) })
	})()
	errR, errW, err := os.Pipe()
	if err != nil {
		h.release(m, false)
		return nil, false, err
	}
	stdin, lifeline := a.Stdin, (*os.File)(nil)
	if stdin == nil {
		if stdin, lifeline, err = os.Pipe(); err != nil {
			errR.Close()
			errW.Close()
			h.release(m, false)
			return nil, false, err
		}
	}
	stdout, stderr := a.Stdout, a.Stderr
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	ch, err := openChannel(grace, m.path, remote, stdin, stdout, errW)
	errW.Close()
	if lifeline != nil {
		stdin.Close()
	}
	if err != nil {
		errR.Close()
		if lifeline != nil {
			lifeline.Close()
		}
		refused = refusedChannel(err.Error())
		h.release(m, refused)
		if grace.Err() != nil {
			return nil, false, h.transport(context.Cause(ctx))
		}
		return nil, refused, h.transport(fmt.Errorf("the job did not start: %v", err))
	}
	p := &process{e: e, m: m, ch: ch, exited: ch.done, stdin: lifeline, out: newDemux(e.nonce, errR, stderr), stderr: stderr}
	go p.out.run()
	select {
	case <-p.out.started:
	case <-p.exited:
		p.drain()
		if p.out.begun() {
			break // it started, and has ended already
		}
		_, _, pre := p.out.result()
		p.closeLifeline()
		refused = refusedChannel(pre)
		h.release(m, refused)
		msg := oneLine(pre)
		if msg == "" {
			msg = fmt.Sprintf("its channel ended with status %d", ch.status)
		}
		return nil, refused, h.transport(fmt.Errorf("the job did not start: %s", msg))
	case <-grace.Done():
		ch.Kill()
		<-p.exited
		p.out.closeNow() // what the master still holds is of no use now
		<-p.out.done
		p.closeLifeline()
		h.release(m, false)
		return nil, false, h.transport(context.Cause(ctx))
	}
	p.pgid, _, _ = p.out.result()
	e.mu.Lock()
	e.running[p] = struct{}{}
	suspended := e.suspended
	e.mu.Unlock()
	if suspended {
		h.signal(context.Background(), syscall.SIGSTOP, false, p.pgid)
	}
	return p, false, nil
}

// startGrace is how long a start whose Cancel ended after its channel was
// asked for still waits for the host to say the job runs (see start).
const startGrace = 2 * time.Second

// drainWait is how long, after its channel has ended, a job's stderr may
// take to end: the master holds the pipe while it closes the channel.
const drainWait = 2 * time.Second

// drain waits for the job's stderr to end, closing it if it does not.
func (p *process) drain() {
	select {
	case <-p.out.done:
	case <-time.After(drainWait):
		// The reader's deferred Close unblocks its Read.
		p.out.closeNow()
		<-p.out.done
	}
}

func (p *process) closeLifeline() {
	if p.stdin != nil {
		p.stdin.Close()
		p.stdin = nil
	}
}

// killWait is how long a job is waited for after SIGKILL was sent to its
// group; a host that does not answer in that time is given up on (the
// job's lifeline ends it there, if the host is still alive).
const killWait = 5 * time.Second

// Wait implements runner.Process. Termination sends each signal of seq to
// the job's group on the host over a channel of its own, then waits for
// the job for the step's time. A job whose channel ends without the
// wrapper's report (the connection was lost, or the host did not answer
// SIGKILL in killWait) is a *runner.TransportError.
func (p *process) Wait(stop, kill context.Context, seq runner.TermSeq) (runner.Exit, error) {
	var x runner.Exit
	select {
	case <-p.exited:
	case <-stop.Done():
		x.Terminated = p.terminate(kill, seq)
	case <-kill.Done():
		x.Terminated = p.terminate(kill, seq)
	}
	<-p.exited
	p.drain()
	p.closeLifeline()
	e := p.e
	e.mu.Lock()
	delete(e.running, p)
	e.mu.Unlock()
	e.host.release(p.m, false)
	_, status, _ := p.out.result()
	if status < 0 {
		if code := p.ch.status; code != 255 {
			status = code // the wrapper's own status, without its report
		} else {
			return x, e.host.transport(errors.New("the connection was lost while the job ran"))
		}
	}
	p.files.back(e.host, p.stderr)
	if status > 128 && status <= 128+64 {
		x.Status = syscall.WaitStatus(status - 128) // killed by a signal
	} else {
		x.Status = syscall.WaitStatus(status << 8)
	}
	return x, nil
}

// terminate walks seq until the job ends, then kills its group; it
// reports whether the job was still running. When kill ends, it skips to
// SIGKILL. A host that does not answer a signal, or SIGKILL within
// killWait, is given up on: its channel is closed, and so its lifeline (the host, if alive, then ends the job).
func (p *process) terminate(kill context.Context, seq runner.TermSeq) bool {
	if p.ended() {
		return false
	}
	h := p.e.host
	for _, step := range seq {
		if kill.Err() != nil {
			break
		}
		cont := true
		switch step.Signal {
		case syscall.SIGKILL, syscall.SIGCONT, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
			cont = false
		}
		if err := h.signal(kill, step.Signal, cont, p.pgid); err != nil && kill.Err() == nil {
			p.abandon()
			return true
		}
		if p.await(kill, max(step.Wait, time.Millisecond)) {
			return true
		}
	}
	if err := h.signal(context.Background(), syscall.SIGKILL, false, p.pgid); err != nil || !p.await(context.Background(), killWait) {
		p.abandon()
	}
	return true
}

// abandon gives the job up: its channel is closed, and waited for.
func (p *process) abandon() {
	p.closeLifeline()
	p.ch.Kill()
	<-p.exited
}

// await waits up to d for the job's channel to end, or for ctx to end; it
// reports whether the channel ended.
func (p *process) await(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return p.ended()
}

func (p *process) ended() bool { return closed(p.exited) }

// Suspend implements runner.Executor: SIGSTOP to every running job's group
// on the host, and to each job that starts until Resume. Not SIGTSTP, as
// locally: a job's group is a session of its own there (setsid), which
// makes it an orphaned group, to which the kernel does not deliver
// SIGTSTP.
func (e *Executor) Suspend() { e.setSuspended(true, syscall.SIGSTOP) }

// Resume implements runner.Executor: SIGCONT to every running job's group.
func (e *Executor) Resume() { e.setSuspended(false, syscall.SIGCONT) }

func (e *Executor) setSuspended(on bool, sig syscall.Signal) {
	e.mu.Lock()
	e.suspended = on
	var groups []int
	for p := range e.running {
		if p.pgid > 0 {
			groups = append(groups, p.pgid)
		}
	}
	e.mu.Unlock()
	e.host.signal(context.Background(), sig, false, groups...)
}
