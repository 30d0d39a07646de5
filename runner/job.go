package runner

import (
	"context"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/fan-run/fan/input"
)

// run runs one attempt of a job to its end, in slot, starting it no earlier
// than start; shown is its command as -t has shown it already, or nil.
// With direct set, the job writes its stdout there rather than into a
// spool file (see direct.go).
func (p *Pool) run(ctx context.Context, item *input.Item, slot Slot, start time.Time, shown *prepared, direct *os.File) *Result {
	if p.Ready != nil {
		p.Ready()
	}
	if p.DryRun {
		return p.render(item, slot)
	}
	var prep prepared
	if shown != nil {
		prep = *shown
	} else {
		prep = p.prepare(item, slot)
	}
	var bf *blockFile
	if prep.block != "" {
		// --cat, --fifo: {} names the block's file.
		var err error
		if bf, err = newBlockFile(prep.block, p.StdinAs, item.Stdin); err != nil {
			r := &Result{Item: *item, Slot: slot}
			r.Start = time.Now()
			return p.cannotStart(r,
				&StartError{Name: "job " + strconv.FormatInt(item.Seq, 10), Status: 126, Reason: "cannot make the file of its block: " + err.Error()})
		}
		named := *item
		named.Args = []string{bf.path}
		item = &named
	}
	defer bf.ended() // removes the file when the attempt is over
	// However the attempt ends, its input will not be read by it any
	// more (abandon is idempotent: a job that ran was told at its end).
	defer abandon(item)
	r := &Result{Item: *item, Slot: slot, Command: prep.cmd}
	r.Start = time.Now() // for the joblog of a command that cannot start; a job that runs is timed again after its --delay
	if prep.err != nil {
		return p.cannotStart(r, prep.err)
	}
	jc, err := p.capture(r, direct)
	if err != nil {
		// fan's own failure, not the job's: it did not start.
		r.Status, r.NotStarted, r.Err = -1, true, err
		return r
	}
	defer jc.release() // unless captured took its files
	// A job waiting for its --delay turn does not start once the run is
	// being stopped; one the dispatcher started at once (its slot taken
	// before the stop) runs, as the jobs already running do.
	if !start.IsZero() && !Sleep(p.intake, time.Until(start)) {
		r.Status, r.NotStarted = -1, true
		p.discard(r)
		return r
	}
	// After its --delay, the job is announced (-t) and timed from here.
	if p.Announce && shown == nil {
		p.announce(r.Command)
	}
	r.Start = time.Now()
	p.started(r)
	jctx, timeoutHit := p.deadline(ctx)
	a := &Attempt{Seq: item.Seq, Command: &r.Command, Env: p.jobEnv(item.Seq, slot),
		Stdout: r.Stdout, Stderr: r.Stderr, Shell: p.Template.shell, Cancel: p.intake, Files: p.files(item, slot)}
	if bf != nil {
		a.Env = append(a.Env, "PARALLEL_TMP="+bf.path) // as GNU parallel names it for --cat and --fifo
	}
	_, local := slot.Exec.(*Local)
	if jc != nil && local {
		a.captured = jc
	} else if jc != nil {
		a.Stdout, a.Stderr = jc.stdout(), jc.stderr()
	}
	if r.Direct {
		a.Stdout = direct
	}
	var fed *feeder
	if item.Stdin != nil && bf == nil {
		var err error
		if fed, err = newFeeder(item.Stdin); err != nil {
			timeoutHit()
			return p.cannotStart(r, err)
		}
		a.Stdin = fed.r
	}
	// Counted and listed as running from before the spawn: the job may be
	// at work (on a loaded machine, for a while) before Start returns, and
	// a drain's message and a status report must count it.
	live := &attempt{seq: item.Seq, slot: slot, command: &r.Command, start: r.Start}
	wctx := jctx
	if p.Evict != nil {
		wctx, live.evict = context.WithCancelCause(jctx)
	}
	p.running.Add(1)
	p.live.add(live)
	pr, err := slot.Exec.Start(a)
	fed.started(err == nil)
	if err != nil {
		p.unlist(wctx, live, r)
		timeoutHit() // releases the timer
		return p.cannotStart(r, err)
	}
	live.spawned.Store(true)
	bf.started()
	// Only Local is known to hand the files to the job's processes and
	// never write into them itself: a remote executor relays the host's
	// stderr into them, and --onall's relays every host's output, until
	// Wait returns.
	if local && jc != nil {
		jc.started() // the job's processes hold their own ends
	}
	exit, err := pr.Wait(wctx, p.kill(), p.TermSeq)
	p.unlist(wctx, live, r)
	// The job has ended: an input that waits for more to write
	// (--round-robin's next block) must not wait for the job's sake, nor
	// hand it more; fed.wait below waits for that writer.
	abandon(item)
	r.Sent = fed.wait() + bf.ended()
	r.Runtime = time.Since(r.Start)
	limit := timeoutHit()
	if err != nil {
		// Its host was lost: the job's fate is unknown, and it runs again.
		r.Status, r.Err = -1, err
		p.discard(r)
		return r
	}
	if limit > 0 && exit.Terminated {
		r.TimedOut, r.TimeLimit = true, limit
	}
	ws := exit.Status
	switch {
	case exit.Terminated:
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
	p.captured(r, jc)
	return r
}

// abandon tells the item's stdin, when it wants to know (an
// input.Abandoner), that the job will read no more of it: the job has
// ended, or will not start.
func abandon(item *input.Item) {
	if a, ok := item.Stdin.(input.Abandoner); ok {
		a.Abandon()
	}
}

// unlist takes an attempt off the running list when it has ended, or did
// not start, and marks r evicted when --memfree put it back in the queue
// (wctx is the context its wait was given).
func (p *Pool) unlist(wctx context.Context, live *attempt, r *Result) {
	p.live.remove(live.seq)
	if live.evict != nil {
		r.Evicted = context.Cause(wctx) == errEvicted
		live.evict(nil)
	}
	p.running.Add(-1)
}

// prepared is an attempt's command, rendered before the attempt makes
// what the command names: with --cat or --fifo, {} names block, the
// file the attempt makes for the block. The dispatcher prepares a first
// attempt to print its command (-t) in input order, and the attempt runs
// what was printed rather than render it again.
type prepared struct {
	cmd   Command
	err   error // renderCommand's
	block string
}

// prepare renders the command of an attempt of item in slot.
func (p *Pool) prepare(item *input.Item, slot Slot) prepared {
	var pr prepared
	if item.Stdin != nil && p.StdinAs != OnStdin {
		pr.block = blockPath(p.TmpDir)
		named := *item
		named.Args = []string{pr.block}
		item = &named
	}
	pr.err = renderCommand(&pr.cmd, p.Template, p.WorkDir, item, slot)
	return pr
}

// renderCommand renders into c the command of item in slot, from t, in
// its directory of workDir (nil: fan's own), and returns what keeps it
// from starting on the slot's executor, if anything: a program not found
// here is looked for on the host of an executor that runs it elsewhere.
func renderCommand(c *Command, t *Template, workDir *Text, item *input.Item, slot Slot) error {
	*c = t.Render(item, slot)
	if workDir != nil {
		c.Dir = workDir.Render(item, slot)
	}
	if c.Err != nil && !(c.Err == t.look && runsElsewhere(slot.Exec)) {
		return c.Err
	}
	return nil
}

// started tells the output stage that an attempt begins, with descriptors
// of its output files of its own when it writes output live: the pool
// gives the files back for reuse when the job ends.
func (p *Pool) started(r *Result) {
	if !p.Live {
		return // nobody needs to know
	}
	shown := &Result{Item: r.Item, Slot: r.Slot, Command: r.Command}
	ev := Event{Kind: Started, Result: shown}
	ev.Live = liveFiles(r) // nil when they cannot be had: the output is written whole when the job ends
	p.events <- ev
}

// liveFiles duplicates an attempt's output files for the output stage, or
// returns nil when there are none (-u) or they cannot be duplicated.
func liveFiles(r *Result) *LiveFiles {
	if r.Stdout == nil {
		return nil
	}
	out, err := dup(r.Stdout)
	if err != nil {
		return nil
	}
	errf, err := dup(r.Stderr)
	if err != nil {
		out.Close()
		return nil
	}
	return &LiveFiles{Stdout: out, Stderr: errf}
}

// cannotStart turns a start failure into a failed result, with the status
// a shell would give.
func (p *Pool) cannotStart(r *Result, err error) *Result {
	r.Status, r.Err = 127, err
	var se *StartError
	switch {
	case IsTransport(err):
		r.Status, r.NotStarted = -1, true // the job never ran
	case errors.As(err, &se):
		r.Status = se.Status
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.EPERM),
		errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.ENOMEM):
		r.Status = 126 // found, but could not be run
	}
	p.discard(r)
	return r
}

// files renders the files a remote job takes along and brings back, or
// nil.
func (p *Pool) files(item *input.Item, slot Slot) *Files {
	return renderFiles(p.Transfer, p.Return, p.Cleanup, item, slot)
}

// renderFiles renders, for item in slot, the files of --transferfile
// (transfer) and --return (ret) of a remote job, or nil when there are
// none.
func renderFiles(transfer, ret []*Text, cleanup bool, item *input.Item, slot Slot) *Files {
	if len(transfer) == 0 && len(ret) == 0 {
		return nil
	}
	f := &Files{Cleanup: cleanup}
	for _, t := range transfer {
		f.Transfer = append(f.Transfer, t.Render(item, slot))
	}
	for _, t := range ret {
		f.Return = append(f.Return, t.Render(item, slot))
	}
	return f
}
