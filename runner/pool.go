package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"fan/input"
)

// Spool lends the files that jobs write their stdout and stderr into, so
// that output can be grouped without passing through fan's memory. It must
// be safe for concurrent use.
type Spool interface {
	// Get returns an empty file, positioned at its start.
	Get() (*os.File, error)
	// Put takes back a file that Get returned, with whatever it holds.
	Put(*os.File)
}

// FullSpool is a Spool that can tell whether the filesystem its files are
// on is full. The pool asks after a job that wrote output or failed: its
// writes may have been cut short, and the job may not have said so.
type FullSpool interface {
	Full() bool
	Dir() string
}

// A CaptureError is fan's own failure to capture a job's output: no
// temporary file could be made for it, or their filesystem was full when
// the job ended, so what it wrote may be cut short. Like a failure to write
// fan's own output, it ends the run.
type CaptureError struct {
	Dir string // where the spool files are
	Err error
}

func (e *CaptureError) Error() string {
	where := " in " + e.Dir
	if strings.Contains(e.Err.Error(), e.Dir) {
		where = "" // the error says where already
	}
	return fmt.Sprintf("cannot keep job output%s: %v (free space there, or set TMPDIR to a directory with room)", where, e.Err)
}

func (e *CaptureError) Unwrap() error { return e.Err }

// EmptyPutter is a Spool that can take back, with no system call, a file
// its caller has found empty and positioned at its start. The pool uses it,
// when the Spool has it, for the output files jobs leave empty (most jobs'
// stderr).
type EmptyPutter interface {
	PutEmpty(*os.File)
}

// JobVars are the variables the pool sets in each job's environment: its
// job number and its slot, under fan's names and GNU parallel's (for
// scripts written for it).
func JobVars() []string {
	return []string{"FAN_SEQ", "FAN_SLOT", "PARALLEL_SEQ", "PARALLEL_JOBSLOT"}
}

// Pool runs jobs: at most Jobs at once, each in its own process group.
type Pool struct {
	// Jobs is how many jobs run at once; 0 means no limit.
	Jobs int
	// Template renders each job's command.
	Template *Template
	// Env is the environment of every job, without the JobVars.
	Env []string
	// WorkDir, when set, names the directory each job runs in, made as
	// needed (--workdir; it may hold replacement strings).
	WorkDir *Text
	// Spool captures each job's output; nil lets jobs write straight to
	// fan's own stdout and stderr (--ungroup).
	Spool Spool
	// DryRun renders commands without running them.
	DryRun bool
	// TermSeq is how a job is terminated when its context ends.
	TermSeq TermSeq
	// Window bounds the results that were started but not yet released by
	// the output stage (see Release); 0 means no bound.
	Window int
	// Announce, when set, receives each command just before it starts (-t).
	Announce chan<- Command
	// Timeout ends a job that runs longer (--timeout); zero means none.
	Timeout Timeout
	// Retries is how many times in all a failing job is run (--retries);
	// 0 and 1 both mean once.
	Retries int
	// RetryDelay is the wait before the first retry; it doubles for each
	// further one, with jitter, up to a minute. The job holds no slot
	// while it waits.
	RetryDelay time.Duration
	// Delay is the least time between two job starts (--delay).
	Delay time.Duration
	// Halt stops the run early (--halt); OnHalt is called once when it
	// does and must stop the intake (and, with Halt.Now, the running jobs).
	Halt   Halt
	OnHalt func(*Halted)
	// Total, when set, is the number of jobs in the run, for a Halt
	// percentage; without it, the jobs started so far count.
	Total func() int64
	// Kill, when set and ended, cuts every termination sequence short:
	// jobs being terminated are killed with SIGKILL at once.
	Kill context.Context
	// Skip, when set, tells which jobs an earlier run did (--resume); they
	// yield a Skipped result and do not run.
	Skip func(seq int64) bool
	// Started, when set, is called from the job's goroutine just before
	// each attempt is spawned, with the result so far: Item, Slot, Command
	// and the Stdout and Stderr files the job is about to write into. It
	// lets the output stage read output while the job runs (--line-buffer).
	// The files go back to the Spool when the job ends, so a receiver that
	// reads them later must keep its own descriptors.
	Started func(r *Result)
	// Finished, when set, sees each job's final result before its slot is
	// freed, so that it can stop the intake before another job starts
	// (--xargs stops at a job that exits 255). It may be called from
	// several goroutines at once.
	Finished func(*Result)
	// SlotVar, when set, names an environment variable that holds the
	// job's slot counted from 0 (xargs's --process-slot-var).
	SlotVar string
	// FewThreads makes every job wait for its exit on the netpoller, none
	// in a blocking wait that holds a thread: under a low process limit
	// (ulimit -u), which counts threads, those would crowd out the jobs.
	FewThreads bool
	// Notify, when set, passes a message for the user to the output stage.
	// It must not block.
	Notify func(string)

	window  chan struct{}
	slots   slots
	groups  groups
	devnull *os.File
	taken   atomic.Int64
	running atomic.Int64
	// forkWarned: the user has been told that processes ran short.
	forkWarned atomic.Bool
	halter     halter
	pace       pacer
	medians    runtimes
	intake     context.Context
}

// Run takes items until items is closed or intake ends, runs each as a job
// under jobCtx (whose end terminates running jobs with TermSeq) and sends one
// Result per item taken. It closes results after the last one.
func (p *Pool) Run(intake, jobCtx context.Context, items <-chan input.Item, results chan<- Result) error {
	defer close(results)
	if !p.DryRun {
		devnull, err := os.Open(os.DevNull)
		if err != nil {
			p.notStartedRest(items, results) // every item still yields its result
			return err
		}
		p.devnull = devnull
		defer devnull.Close()
	}
	if p.Window > 0 {
		p.window = make(chan struct{}, p.Window)
	}
	p.slots.init(p.Jobs)
	p.intake = intake
	p.halter.h = p.Halt
	p.pace.gap = p.Delay
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var item input.Item
		select {
		case it, ok := <-items:
			if !ok {
				return nil
			}
			item = it
		case <-intake.Done():
			p.notStartedRest(items, results)
			return nil
		}
		if p.Skip != nil && p.Skip(item.Seq) {
			results <- Result{Item: item, Skipped: true}
			continue
		}
		if !p.acquire(intake) {
			results <- notStarted(item)
			p.notStartedRest(items, results)
			return nil
		}
		p.taken.Add(1)
		if p.DryRun {
			// Nothing runs, so nothing finishes out of order: rendering
			// here, in turn, prints the commands in input order as GNU
			// parallel does, with or without -k.
			p.attempts(jobCtx, &item, p.slots.take(), time.Time{}, false, results)
			continue
		}
		// The slot and the start are taken here, in input order: the
		// first job gets slot 1 ({%}), and --delay starts jobs in turn.
		slot, at := p.slots.take(), p.pace.reserve()
		// -t: announced here, the commands come in input order, as GNU
		// parallel prints them; from the jobs' goroutines they would race.
		// With --delay a job is announced when its turn comes (in order,
		// a delay apart).
		announced := p.Announce != nil && p.Delay == 0
		if announced {
			p.Announce <- p.Template.Render(&item, slot)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.attempts(jobCtx, &item, slot, at, announced, results)
		}()
	}
}

// Running is the number of jobs running now. It is safe to call from any
// goroutine.
func (p *Pool) Running() int { return int(p.running.Load()) }

func (p *Pool) kill() context.Context {
	if p.Kill == nil {
		return context.Background()
	}
	return p.Kill
}

// notStartedRest reports every item still coming from the input as not started.
// The input stage closes items promptly once intake has ended.
func (p *Pool) notStartedRest(items <-chan input.Item, results chan<- Result) {
	for item := range items {
		results <- notStarted(item)
	}
}

func notStarted(item input.Item) Result {
	return Result{Item: item, Status: -1, NotStarted: true}
}

// acquire waits for a place in the window and a free slot. It fails when
// ctx has ended, even if both were free: a halt or a drain that ended ctx
// just as a slot came free must not let one more job start.
func (p *Pool) acquire(ctx context.Context) bool {
	if p.window != nil {
		select {
		case p.window <- struct{}{}:
		case <-ctx.Done():
			return false
		}
	}
	if p.slots.wait(ctx) {
		if ctx.Err() == nil {
			return true
		}
		p.slots.unwait()
	}
	if p.window != nil {
		<-p.window
	}
	return false
}

// Release frees the window place held by a result. The output stage calls
// it once for every result it has finished with.
func (p *Pool) Release(r *Result) {
	if r.held {
		r.held = false
		<-p.window
	}
}

// attempts runs a job, and again while it fails and retries are left, and
// sends its Result. Its slot is given back between attempts, so a job
// waiting to retry does not keep other items from running. The output of
// failed attempts is dropped: only the last attempt's is kept. The first
// attempt runs in slot, starting at start (see pacer), and has been
// announced (-t) already when announced is set; a retry takes a slot and a
// start of its own, and is announced when it starts.
func (p *Pool) attempts(ctx context.Context, item *input.Item, slot int, start time.Time, announced bool, results chan<- Result) {
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			slot, start, announced = p.slots.take(), p.pace.reserve(), false
		}
		r := p.run(ctx, item, slot, start, announced)
		r.Attempts = attempt
		if r.OK() || r.DryRun || r.NotStarted || attempt >= p.Retries || p.intake.Err() != nil {
			// Before the slot is free, so that no new job slips in past a
			// halt, and results arrive in the order the jobs ended (with
			// -j1, input order).
			p.finish(&r, results)
			p.slots.put(slot)
			return
		}
		p.slots.put(slot)
		// A retry is a new start: a drain or a halt cancels it.
		if !sleep(p.intake, backoff(p.RetryDelay, attempt)) || !p.slots.wait(p.intake) {
			p.finish(&r, results)
			return
		}
		p.discard(&r)
	}
}

// finish hands over a job's final result, once --halt has counted it and
// Finished has seen it.
func (p *Pool) finish(r *Result, results chan<- Result) {
	p.checkHalt(r)
	if p.Finished != nil {
		p.Finished(r)
	}
	results <- *r
}

// checkHalt counts a job's end for --halt and halts the run when that met
// the condition. A dry run, or a job a drain or halt kept from starting,
// has nothing to count.
func (p *Pool) checkHalt(r *Result) {
	if r.DryRun || r.NotStarted || p.OnHalt == nil {
		return
	}
	total := p.Total
	if total == nil {
		total = p.taken.Load
	}
	if h := p.halter.finished(r, total); h != nil {
		p.OnHalt(h)
	}
}

// discard gives back the output files of a result that will not be written.
func (p *Pool) discard(r *Result) {
	for _, f := range []*os.File{r.Stdout, r.Stderr} {
		if f != nil {
			p.Spool.Put(f)
		}
	}
	r.Stdout, r.Stderr = nil, nil
}

// run runs one job to its end, starting it no earlier than start; announced
// says that -t has shown its command already.
func (p *Pool) run(ctx context.Context, item *input.Item, slot int, start time.Time, announced bool) Result {
	r := Result{Item: *item, Slot: slot, Command: p.Template.Render(item, slot), held: p.window != nil}
	if p.DryRun {
		r.DryRun = true
		return r
	}
	if p.WorkDir != nil {
		r.Command.Dir = p.WorkDir.Render(item, slot)
	}
	r.Start = time.Now() // for the joblog of a command that cannot start; a job that runs is timed again after its --delay
	if r.Command.Err != nil {
		return p.cannotStart(r, r.Command.Err)
	}
	stdio := []uintptr{p.devnull.Fd(), 1, 2}
	if p.Spool != nil {
		var err error
		if r.Stdout, err = p.Spool.Get(); err == nil {
			r.Stderr, err = p.Spool.Get()
		}
		if err != nil {
			// fan's own failure, not the job's: it did not start.
			r.Status, r.NotStarted, r.Err = -1, true, p.captureError(err)
			p.discard(&r)
			return r
		}
		stdio[1], stdio[2] = r.Stdout.Fd(), r.Stderr.Fd()
	}
	seq, slotNum := strconv.FormatInt(item.Seq, 10), strconv.Itoa(slot)
	env := append(p.Env[:len(p.Env):len(p.Env)],
		"FAN_SEQ="+seq, "FAN_SLOT="+slotNum, "PARALLEL_SEQ="+seq, "PARALLEL_JOBSLOT="+slotNum)
	if p.SlotVar != "" {
		env = append(env, p.SlotVar+"="+strconv.Itoa(slot-1))
	}
	if !sleep(p.intake, time.Until(start)) {
		r.Status, r.NotStarted = -1, true
		p.discard(&r)
		return r
	}
	// After its --delay, the job is announced (-t) and timed from here.
	if p.Announce != nil && !announced {
		p.Announce <- r.Command
	}
	r.Start = time.Now()
	if p.Started != nil {
		p.Started(&r)
	}
	jctx, timeoutHit := p.deadline(ctx)
	pr, err := p.spawnIn(&r.Command, env, stdio)
	if errors.Is(err, syscall.ENOEXEC) {
		// A script without #!: a shell would run it with itself.
		sh := Command{Path: p.Template.shell, Args: []string{p.Template.shell, "-c", r.Command.String()}, Dir: r.Command.Dir}
		pr, err = spawn(&sh, env, stdio)
	}
	switch {
	case errors.Is(err, syscall.EINVAL) && holdsNUL(r.Command.Args):
		err = &StartError{Name: "job " + strconv.FormatInt(item.Seq, 10), Status: 127,
			Reason: "an argument holds a NUL byte, which no command line can carry (split items at NUL with -0)"}
	case errors.Is(err, syscall.E2BIG):
		// 126, as a shell gives for "argument list too long".
		err = &StartError{Name: "job " + strconv.FormatInt(item.Seq, 10), Status: 126,
			Reason: "its command line is longer than the system allows (give it fewer or shorter items; -X and -m pack only what fits)"}
	}
	if err != nil {
		var se *StartError
		if !errors.As(err, &se) {
			err = fmt.Errorf("%s: %w", r.Command.Path, err) // say which program
		}
		timeoutHit() // releases the timer
		return p.cannotStart(r, err)
	}
	p.groups.add(pr.pid)
	pr.listed = &p.groups
	block := p.running.Add(1) <= blockingWaits && !p.FewThreads
	ws, killed := pr.wait(jctx, p.kill(), p.TermSeq, block) // killed: fan ended it (timeout, drain, halt)
	p.running.Add(-1)
	r.Runtime = time.Since(r.Start)
	if limit := timeoutHit(); limit > 0 && killed {
		r.TimedOut, r.TimeLimit = true, limit
	}
	switch {
	case killed:
		// GNU parallel logs a job it killed with Exitval -1.
		r.Status = -1
		if ws.Signaled() {
			r.Signal = ws.Signal()
		}
	case ws.Signaled():
		// A job that a signal ended on its own: Exitval 0, as GNU parallel.
		r.Status, r.Signal = 0, ws.Signal()
	default:
		r.Status = ws.ExitStatus()
	}
	if r.OK() && p.Timeout.Percent > 0 {
		p.medians.add(r.Runtime)
	}
	r.Stdout = p.keep(r.Stdout)
	r.Stderr = p.keep(r.Stderr)
	if full, ok := p.Spool.(FullSpool); ok && (r.Stdout != nil || r.Stderr != nil || !r.OK()) && full.Full() {
		r.Err = p.captureError(syscall.ENOSPC)
	}
	return r
}

// captureError wraps a failure to capture output with where the spool is.
func (p *Pool) captureError(err error) error {
	dir := os.TempDir()
	if full, ok := p.Spool.(FullSpool); ok {
		dir = full.Dir()
	}
	return &CaptureError{Dir: dir, Err: err}
}

// Waits for a process when the system has none to spare: the first, the
// longest between two tries, and how long fan keeps trying while none of
// its own jobs is running (one that ends would free a process).
const (
	forkRetryFirst = 10 * time.Millisecond
	forkRetryMax   = 500 * time.Millisecond
	forkRetryAlone = 10 * time.Second
)

// spawnIn spawns c in its working directory, which it makes first when
// missing (GNU parallel's --workdir does the same).
func (p *Pool) spawnIn(c *Command, env []string, stdio []uintptr) (*proc, error) {
	if c.Dir != "" {
		if err := os.MkdirAll(c.Dir, 0o755); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the message names the directory already
			}
			return nil, &StartError{Name: c.Dir, Status: 126, Reason: fmt.Sprintf("cannot be the job's working directory: %v", err)}
		}
	}
	return p.spawnWaiting(c, env, stdio)
}

// startProcess is spawn, replaced in tests that need it to fail.
var startProcess = spawn

// spawnWaiting spawns c; when the system cannot make another process now
// (EAGAIN: the user's process limit, ulimit -u; ENOMEM), it waits and
// tries again, for as long as fan's own jobs run and then forkRetryAlone
// more, rather than fail item after item at once. GNU parallel likewise
// runs fewer jobs. The first such wait is announced through Notify.
func (p *Pool) spawnWaiting(c *Command, env []string, stdio []uintptr) (*proc, error) {
	pr, err := startProcess(c, env, stdio)
	wait, alone := forkRetryFirst, time.Duration(0)
	for errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM) {
		if p.Notify != nil && !p.forkWarned.Swap(true) {
			p.Notify(fmt.Sprintf("fan: cannot start another process now (%v): waiting for running jobs to end (lower -j, or raise ulimit -u)", err))
		}
		if p.running.Load() == 0 {
			if alone += wait; alone > forkRetryAlone {
				break
			}
		}
		if !sleep(p.intake, wait) {
			break
		}
		wait = min(2*wait, forkRetryMax)
		pr, err = startProcess(c, env, stdio)
	}
	return pr, err
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

// keep rewinds a captured output file, or gives it back at once when the job
// wrote nothing into it. One lseek to the end tells the size and, for the
// common empty file, leaves it ready for the next job.
func (p *Pool) keep(f *os.File) *os.File {
	if f == nil {
		return nil
	}
	if size, err := f.Seek(0, io.SeekEnd); err == nil && size == 0 {
		if e, ok := p.Spool.(EmptyPutter); ok {
			e.PutEmpty(f)
		} else {
			p.Spool.Put(f)
		}
		return nil
	}
	f.Seek(0, io.SeekStart)
	return f
}

// cannotStart turns a start failure into a failed result, with the status
// a shell would give.
func (p *Pool) cannotStart(r Result, err error) Result {
	r.Status, r.Err = 127, err
	var se *StartError
	switch {
	case errors.As(err, &se):
		r.Status = se.Status
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.EPERM),
		errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.ENOMEM):
		r.Status = 126 // found, but could not be run
	}
	p.discard(&r)
	return r
}

// slots hands out job slot numbers ({%}, FAN_SLOT): the lowest free one.
type slots struct {
	sem  chan struct{} // nil without a limit
	mu   sync.Mutex
	free []bool // free[i]: slot i+1 is free
}

func (s *slots) init(n int) {
	if n > 0 {
		s.sem = make(chan struct{}, n)
	}
}

// wait blocks until a slot is free or ctx ends.
func (s *slots) wait(ctx context.Context) bool {
	if s.sem == nil {
		return true
	}
	select {
	case s.sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// take returns the lowest free slot; wait must have succeeded first.
func (s *slots) take() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.free {
		if f {
			s.free[i] = false
			return i + 1
		}
	}
	s.free = append(s.free, false)
	return len(s.free)
}

// put frees a slot that take returned.
func (s *slots) put(slot int) {
	s.mu.Lock()
	s.free[slot-1] = true
	s.mu.Unlock()
	s.unwait()
}

// unwait undoes a wait.
func (s *slots) unwait() {
	if s.sem != nil {
		<-s.sem
	}
}
