package runner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/internal/chans"
)

// JobVars are the variables the pool sets in each job's environment: its
// job number and its slot, under fan's names and GNU parallel's (for
// scripts written for it), and, as GNU parallel sets them, the login and
// host it runs on (":" for this machine), and with --cat and --fifo the
// file of its block (PARALLEL_TMP, the same name as {}).
func JobVars() []string {
	return []string{"FAN_SEQ", "FAN_SLOT", "PARALLEL_SEQ", "PARALLEL_JOBSLOT", "PARALLEL_SSHLOGIN", "PARALLEL_SSHHOST", "PARALLEL_TMP"}
}

// Pool runs jobs: it takes items, waits for a slot for each (Slots), starts
// its attempts through the slot's Executor, retries, times out and halts,
// and tells the output stage what happens as one Stream of events.
//
// The files hold its parts: dispatch (this file), attempts and retries
// (attempt.go), one attempt (job.go), output capture (capture.go,
// capture_pipe.go, capture_poll.go, capture_move.go), the -k window (order.go), --timeout
// (timeout.go), --retry-delay (retry.go), --delay (delay.go), --halt
// (halt.go).
type Pool struct {
	// Jobs is how many jobs run at once; 0 means no limit. It is used
	// when Slots is nil, to make FixedSlots over Exec.
	Jobs int
	// Slots, when set, decides when and where each attempt runs.
	Slots Slots
	// Exec starts the attempts (through Jobs' slots), and is suspended and
	// resumed with the run (Ctrl-Z). It may be nil for a dry run.
	Exec Executor
	// Template renders each job's command.
	Template *Template
	// Env is the environment of every job, without the JobVars.
	Env []string
	// WorkDir, when set, names the directory each job runs in, made as
	// needed (--workdir; it may hold replacement strings).
	WorkDir *Text
	// Transfer and Return name, for each job, the files a remote job
	// takes to its host and brings back; Cleanup removes them there
	// afterwards (--transfer, --return, --cleanup). They may hold
	// replacement strings.
	Transfer, Return []*Text
	Cleanup          bool
	// Spool captures each job's output; nil lets jobs write straight to
	// fan's own stdout and stderr (--ungroup).
	Spool Spool
	// LeftBehind is how many output pipes left behind by their jobs (held
	// open by processes that escaped them: capture_left.go) are kept open
	// at most; past it the oldest is closed. 0 is maxLeftBehind; FitBudget
	// fits it to the open-file limit.
	LeftBehind int
	// DryRun renders commands without running them.
	DryRun bool
	// TermSeq is how a job is terminated when its context ends.
	TermSeq TermSeq
	// KeepOrder hands Finished events on in input order (-k).
	KeepOrder bool
	// Window bounds the jobs started but not yet handed to the output
	// stage (see order.go); 0 means no bound.
	Window int
	// HoldOutput bounds the bytes of finished jobs' captured output that
	// the output stage has not written yet: while more wait, no job starts
	// (see hold.go). 0 means no bound. It applies to grouped output in
	// completion order only: KeepOrder has its Window, Live output and
	// output that is not captured (no Spool) do not wait.
	HoldOutput int64
	// Direct, when set, is fan's stdout, given to the job whose output
	// comes next, once all before it is written, to write its stdout
	// into while it runs (see direct.go). The caller sets it only where
	// that is safe for the run as a whole (output.Sink.HandOver says
	// when: KeepOrder, or one job at a time with a limit the caller keeps
	// at one; output captured in Spool, not Live); the pool decides per
	// attempt. The output stage must write nothing to it but job output,
	// in turn.
	Direct *os.File
	// Announce sends an Announced event for each command just before it
	// starts (-t).
	Announce bool
	// Live sends with each Started event descriptors of the attempt's
	// output files, so that the output stage can write its output while
	// it runs (--line-buffer).
	Live bool
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
	// Ready, when set, is called before each attempt starts (or, in a dry
	// run, is rendered), and returns once jobs may start: fan's signal
	// handling is set up meanwhile, off the path to the first job, and a
	// dry run's output must meet a closed stdout with SIGPIPE caught.
	Ready func()
	// Skip, when set, tells which jobs an earlier run did (--resume); they
	// yield a Skipped result and do not run.
	Skip func(seq int64) bool
	// Finished, when set, sees each job's final result before its slot is
	// freed, so that it can stop the intake before another job starts
	// (--xargs stops at a job that exits 255). It may be called from
	// several goroutines at once.
	Finished func(*Result)
	// StdinAs is how jobs get an item's Stdin (pipe mode): on their
	// stdin, or as a file or FIFO named by {} (--cat, --fifo), made in
	// TmpDir ("" is $TMPDIR).
	StdinAs StdinMode
	TmpDir  string
	// Hold, when set, keeps the blocks of failed jobs that wait for
	// their turn under KeepOrder out of memory (pipe mode).
	Hold *input.BlockHold
	// Evict, when set, is asked every second while jobs run; when it
	// reports true, the youngest running job is terminated with TermSeq
	// and put back in the queue (--memfree below half its size).
	Evict func() bool
	// SlotVar, when set, names an environment variable that holds the
	// job's slot counted from 0 (xargs's --process-slot-var).
	SlotVar string
	// NotStartedCommands renders, for each item a drain or a halt keeps
	// from starting, the command it would have run, into its Result
	// (for the failures file's record). Without it such a result has no
	// Command: a drain can leave a million items, and nothing else reads
	// the commands of jobs that did not run.
	NotStartedCommands bool

	slots   Slots
	capPoll *capturePoll // watches capture pipes while Run runs (capture_poll.go)
	pollErr error        // why there is none where one is needed
	stream  *Stream
	events  chan<- Event
	win     window
	deliver func(ticketed)
	taken   atomic.Int64
	gone    atomic.Int64 // items out of the read-ahead: started, skipped or not started
	goneB   atomic.Int64 // the bytes they held
	ended   atomic.Int64 // jobs that ran and ended (Done)
	failed  atomic.Int64 // of them, failed
	running atomic.Int64
	halter  halter
	pace    pacer
	medians runtimes
	clock   pauseClock
	live    running
	intake  context.Context
	// batch is a dry run's results not yet handed on, batchFrom the bytes
	// dispatched (goneB) before the first of them (dryrun.go).
	batch     []*Result
	batchFrom int64
	drySlots  drySlots
}

// Run takes items until items is closed or intake ends, runs each as a job
// under jobCtx (whose end terminates running jobs with TermSeq) and sends
// one Finished event per item taken on s, among the other events. It
// closes s.Events after the last one.
func (p *Pool) Run(intake, jobCtx context.Context, items <-chan input.Item, s *Stream) error {
	p.stream, p.events, p.intake = s, s.events, intake
	p.win = newWindow(p.Window)
	if p.DryRun && !p.KeepOrder {
		// Nothing runs: every result is handed on by the dispatcher before
		// it takes the next item (a batch of them, see dryDelivery), so
		// there are no started jobs for a window to bound.
		p.win = nil
	}
	if !p.KeepOrder && !p.Live && p.Spool != nil && !p.DryRun {
		s.hold.limit = p.HoldOutput
	}
	p.slots = p.Slots
	if p.slots == nil {
		p.slots = NewFixedSlots(p.Jobs, "", p.Exec)
	}
	p.halter.h = p.Halt
	p.pace.gap = p.Delay
	// Deferred, so run in turn at the end: the jobs end, the memory
	// watcher stops, the last results are handed on.
	finish := p.startDelivery()
	defer finish()
	defer p.startWatch()()
	if _, ok := p.Spool.(MemorySpool); ok && !p.Live && !p.DryRun {
		p.capPoll, p.pollErr = startCapturePoll(p.LeftBehind, s.Notify)
		defer p.capPoll.close() // after the jobs
	}
	w := newWorkers(jobCtx, p)
	defer w.close()
	for ticket := int64(0); ; ticket++ {
		if len(p.batch) > 0 && len(items) == 0 {
			p.flushDry() // no item waits: what was rendered goes out before the wait
		}
		item, ok, stopped := chans.Receive(items, intake.Done())
		if stopped {
			p.notStartedRest(ticket, items)
			return nil
		}
		if !ok {
			return nil
		}
		if p.Skip != nil && p.Skip(item.Seq) {
			p.out(&item)
			p.deliver(ticketed{ticket: ticket, r: &Result{Item: item, Skipped: true}})
			continue
		}
		slot, ok := p.acquire(intake)
		p.out(&item)
		if !ok {
			p.deliver(ticketed{ticket: ticket, r: p.notStarted(item)})
			p.notStartedRest(ticket+1, items)
			return nil
		}
		p.taken.Add(1)
		// A value, not a pointer: a dry run's stays on the stack, and a
		// job that runs is copied to its worker.
		j := job{item: item, ticket: ticket, held: p.win != nil}
		if p.DryRun {
			// Nothing runs, so nothing finishes out of order: rendering
			// here, in turn, prints the commands in input order as GNU
			// parallel does, with or without -k.
			p.attempts(jobCtx, &j, slot, time.Time{}, nil)
			continue
		}
		// The slot and the start are taken here, in input order: the
		// first job gets slot 1 ({%}), and --delay starts jobs in turn.
		at := p.pace.reserve()
		// -t: rendered and announced here, the commands come in input
		// order, as GNU parallel prints them; from the jobs' goroutines
		// they would race. The job runs what was printed. With --delay a
		// job is announced when its turn comes (in order, a delay apart).
		var shown *prepared
		if p.Announce && p.Delay == 0 {
			pr := p.prepare(&item, slot)
			shown = &pr
			p.announce(pr.cmd)
		}
		w.run(work{j: j, slot: slot, at: at, shown: shown})
	}
}

// startDelivery sets up how final results reach the output stage: in input
// order through an orderer with -k, else straight away. The returned
// function, called once every job has ended, hands on what is left and
// closes the events.
func (p *Pool) startDelivery() func() {
	if p.DryRun && !p.KeepOrder {
		return p.dryDelivery()
	}
	if !p.KeepOrder {
		p.deliver = func(t ticketed) {
			p.events <- Event{Kind: Finished, Result: t.r}
			if t.held {
				p.win.give()
			}
		}
		return func() { close(p.events) }
	}
	o := newOrderer(p.events, p.win, max(16, cap(p.events)))
	done := make(chan struct{})
	go func() {
		defer close(done)
		o.run()
	}()
	p.deliver = func(t ticketed) { o.in <- t }
	return func() {
		close(o.in)
		<-done
		close(p.events)
	}
}

// out counts an item out of the read-ahead.
func (p *Pool) out(item *input.Item) {
	p.gone.Add(1)
	if n := item.Held(); n > 0 {
		p.goneB.Add(n)
	}
}

// Dispatched is how many items the pool has taken out of the read-ahead
// (the items read and not yet started) so far, to start them, skip them
// or report them as not started, and how many bytes of fan's memory they
// held (input.Item.Held). It is safe to call from any goroutine.
func (p *Pool) Dispatched() (items, bytes int64) {
	return p.gone.Load(), p.goneB.Load()
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

// notStartedRest reports every item still coming from the input as not
// started, their tickets counting on from ticket. The input stage closes
// items promptly once intake has ended.
func (p *Pool) notStartedRest(ticket int64, items <-chan input.Item) {
	for item := range items {
		p.out(&item)
		p.deliver(ticketed{ticket: ticket, r: p.notStarted(item)})
		ticket++
	}
}

// notStarted is the result of an item a drain or a halt kept from
// starting. With NotStartedCommands, it carries the command the job
// would have run, rendered with no slot ({%} is 0, and the host this machine).
func (p *Pool) notStarted(item input.Item) *Result {
	r := &Result{Item: item, Status: -1, NotStarted: true}
	if p.NotStartedCommands && p.Template != nil {
		r.Command = p.Template.Render(&r.Item, Slot{})
	}
	return r
}

// acquire waits for a place in the window, for room in the output hold and
// for a slot. It fails when ctx has ended, even if all were free: a halt or
// a drain that ended ctx just as a slot came free must not let one more job
// start.
func (p *Pool) acquire(ctx context.Context) (Slot, bool) {
	if !p.win.take(ctx) {
		return Slot{}, false
	}
	if slot, ok := p.takeSlot(ctx); ok {
		if ctx.Err() == nil {
			return slot, true
		}
		p.slots.Put(slot)
	}
	p.win.give()
	return Slot{}, false
}

// takeSlot waits for room in the output hold and a slot. A job counts its
// output in the hold before it gives its slot back, so the slot that comes
// free may bring the hold over its limit: then the slot goes back until
// the output stage has caught up.
func (p *Pool) takeSlot(ctx context.Context) (Slot, bool) {
	return p.takeWith(ctx, p.slots.Take)
}

// takeWith is takeSlot with take in place of the slots' Take.
func (p *Pool) takeWith(ctx context.Context, take func(context.Context) (Slot, bool)) (Slot, bool) {
	for {
		if !p.stream.hold.wait(ctx) {
			return Slot{}, false
		}
		slot, ok := take(ctx)
		if !ok || !p.stream.hold.over() {
			return slot, ok
		}
		p.slots.Put(slot)
	}
}

// announce sends a command about to start (-t).
func (p *Pool) announce(c Command) {
	p.events <- Event{Kind: Announced, Command: c}
}

// jobEnv is the environment of one attempt: the pool's, with the job's
// number, slot and host.
func (p *Pool) jobEnv(seq int64, slot Slot) []string {
	return jobEnv(p.Env, p.SlotVar, seq, slot)
}

// jobEnv is base with the JobVars of job seq in slot, and slotVar (if
// set) holding the slot's number counted from 0.
func jobEnv(base []string, slotVar string, seq int64, slot Slot) []string {
	s, n := strconv.FormatInt(seq, 10), strconv.Itoa(slot.N)
	env := append(base[:len(base):len(base)],
		"FAN_SEQ="+s, "FAN_SLOT="+n, "PARALLEL_SEQ="+s, "PARALLEL_JOBSLOT="+n,
		"PARALLEL_SSHLOGIN="+slot.Login(), "PARALLEL_SSHHOST="+slot.addr())
	if slotVar != "" {
		env = append(env, slotVar+"="+strconv.Itoa(slot.N-1))
	}
	return env
}

// startWatch starts the --memfree watcher, if any; the returned function
// stops it and waits for it.
func (p *Pool) startWatch() func() {
	if p.Evict == nil {
		return func() {}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		p.watchMemory(stop)
	}()
	return func() {
		close(stop)
		<-done
	}
}

// watchMemory puts the youngest running job back in the queue whenever
// Evict says memory is short, at most once a second, until stop closes.
func (p *Pool) watchMemory(stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if !p.Evict() {
				continue
			}
			if a := p.live.evictYoungest(); a != nil {
				p.stream.Notify(fmt.Sprintf("fan: --memfree: memory is short: putting job %d, the youngest, back in the queue (%s)", a.seq, a.command))
			}
		}
	}
}
