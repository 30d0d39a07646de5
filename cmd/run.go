package cmd

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

	"fan/input"
	"fan/output"
	"fan/runner"
)

// defaultWindow is how many results may be finished but not yet written:
// the distance -k lets fast jobs run ahead of a slow one. FAN_WINDOW
// changes it (for tests).
const defaultWindow = 4096

// window is FAN_WINDOW if it is a positive number, else defaultWindow.
func window() int {
	if n, err := strconv.Atoi(os.Getenv("FAN_WINDOW")); err == nil && n > 0 {
		return n
	}
	return defaultWindow
}

// run wires the three stages together and runs them to the end.
func run(o *Options, stdin io.Reader, stdout, stderr *os.File) outcome {
	c, err := o.check()
	if err != nil {
		return outcome{err: err, xargs: o.Xargs}
	}
	term, err := o.terminal(stderr, os.Getenv)
	if err != nil {
		return outcome{err: err, xargs: o.Xargs}
	}
	env := jobEnv(os.Environ())
	var srcs []input.Source
	var lines input.LineReader
	if o.Xargs {
		in, closeIn, err := xargsInput(c, stdin)
		if err != nil {
			return outcome{err: err, xargs: o.Xargs}
		}
		defer closeIn()
		lines = xargsLines(in, o, c)
	} else {
		var closeSrcs func()
		if srcs, closeSrcs, err = openSources(c.sources, c.delim, stdin); err != nil {
			return outcome{err: err, xargs: o.Xargs}
		}
		defer closeSrcs()
	}
	lim := computeLimits(env, o.ProcessSlotVar)
	if o.ShowLimits {
		lim.show(stderr) // before the sink owns stderr
	}
	books, err := openBooks(o, c)
	if err != nil {
		return outcome{err: err, xargs: o.Xargs}
	}

	intake, stopIntake := context.WithCancel(context.Background())
	defer stopIntake()
	jobCtx, stopJobs := context.WithCancel(context.Background())
	defer stopJobs()
	killCtx, killJobs := context.WithCancel(context.Background())
	defer killJobs()

	queue := 4 * c.jobs
	if c.jobs == 0 {
		queue = 1024
	}
	items := make(chan input.Item, queue)
	results := make(chan runner.Result, max(c.jobs, 16))
	var counted output.Intake // items read so far, for the progress display and --halt N%
	reader := &input.Reader{Sources: srcs, Link: o.Link, Colsep: c.colsep, MaxArgs: o.MaxArgs, NoArgs: o.NoArgs,
		SkipBlank: o.NoRunIfEmpty && !o.Xargs, EOF: o.EOFString, Count: &counted.Read}
	if c.pack != nil {
		reader.Pack = c.packer(lim, lines)
		if _, ok := lines.(*input.XargsSplitter); ok {
			reader.Pack.Record = input.XargsQuote // the failures file re-reads the same items
		}
	}
	var halted atomic.Pointer[runner.Halted]
	pool := &runner.Pool{
		Jobs:       c.jobs,
		Template:   c.template,
		Env:        env,
		SlotVar:    o.ProcessSlotVar,
		DryRun:     o.DryRun,
		TermSeq:    c.termSeq,
		Window:     window() + c.jobs,
		Timeout:    c.timeout,
		Retries:    o.Retries,
		RetryDelay: c.retryGap,
		Delay:      c.delay,
		Halt:       c.halt,
		Skip:       books.skip,
		Kill:       killCtx,
		OnHalt: func(h *runner.Halted) {
			halted.Store(h)
			stopIntake()
			if c.halt.Now {
				stopJobs()
			}
		},
	}
	if c.halt.Percent {
		// As GNU parallel: a percentage of the jobs needs their number.
		reader.Prefetch = true
		pool.Total = counted.Read.Load
	}
	var watch *xargsWatch
	if o.Xargs {
		watch = &xargsWatch{stop: stopIntake}
		pool.Finished = watch.finished
	}
	var spool *output.Spool
	if !o.Ungroup {
		keep := 2*c.jobs + 8
		if o.LineBuffer {
			keep = 0 // the sink reads a job's files after the pool gives them back
		}
		spool = output.NewSpool("", keep)
		defer spool.Close()
		pool.Spool = spool
	}
	var announce chan runner.Command
	if o.Verbose && !o.DryRun {
		announce = make(chan runner.Command)
		pool.Announce = announce
	}
	var writeErr sync.Once
	sink := &output.Sink{
		Stdout: stdout, Stderr: stderr, KeepOrder: o.KeepOrder,
		LineBuffer: o.LineBuffer,
		Tag:        o.tagger(),
		Release:    pool.Release,
		Announce:   announce,
		Joblog:     books.joblog,
		Failures:   books.failures,
		Meter:      term.meter(stderr, &counted, c.jobs),
		Color:      term.palette,
		OnError: func(error) {
			writeErr.Do(func() { stopIntake(); stopJobs() })
		},
	}
	if spool != nil {
		sink.Spool = spool
	}
	if o.Results != "" {
		sink.Results = &output.Results{Dir: o.Results, Sources: len(c.sources)}
	}
	if o.LineBuffer {
		pool.Started = sink.StartHook()
	}

	notices := make(chan string, 8)
	sink.Notices = notices
	drain := &drain{
		timeout: c.drainTimeout,
		running: pool.Running,
		notify: func(msg string) {
			select {
			case notices <- msg:
			default: // the sink is stuck on a write: the message is not worth a hang
			}
		},
		stopIntake: stopIntake,
		terminate:  stopJobs,
		kill:       killJobs,
	}
	stopSignals := watchSignals(drain)
	defer stopSignals()

	readErr := make(chan error, 1)
	go func() {
		err := reader.Run(intake, items)
		counted.Ended.Store(true)
		readErr <- err
	}()
	go pool.Run(intake, jobCtx, items, results)
	stats, err := sink.Run(results)
	if rerr := <-readErr; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = &inputError{readError(rerr, reader.Pack)}
	}
	if cerr := books.close(); err == nil && cerr != nil {
		err = cerr
	}
	res := outcome{stats: stats, err: err, interrupted: drain.interrupted(), halted: halted.Load(), halt: c.halt, xargs: o.Xargs}
	if watch != nil {
		res.xargsAbort, res.xargsFailed = watch.result()
	}
	return res
}

// jobEnv is fan's environment without a FAN_SEQ or FAN_SLOT of an outer fan.
func jobEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "FAN_SEQ=") && !strings.HasPrefix(kv, "FAN_SLOT=") {
			out = append(out, kv)
		}
	}
	return out
}

// readError says what went wrong with the input, with the size limit when
// an item did not fit.
func readError(err error, p *input.Packer) error {
	if p != nil && errors.Is(err, input.ErrItemTooLong) {
		return fmt.Errorf("%w: %d bytes (pass such data in a file instead)", err, p.MaxItem)
	}
	if p != nil && (errors.Is(err, input.ErrArgTooLong) || errors.Is(err, input.ErrListTooLong)) {
		return fmt.Errorf("%w: the limit is %d bytes (raise it with -s, or use fewer items per job)", err, p.Limit)
	}
	return fmt.Errorf("reading input: %w", err)
}
