package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// defaultWindow is how many results may be finished but not yet written:
// the distance -k lets fast jobs run ahead of a slow one. FAN_WINDOW
// changes it (for tests).
const defaultWindow = 4096

// window is FAN_WINDOW if it is a positive number, else defaultWindow.
func window(env Env) int {
	if n, err := strconv.Atoi(env.Get("FAN_WINDOW")); err == nil && n > 0 {
		return n
	}
	return defaultWindow
}

// defaultHold is how many bytes of finished jobs' output may wait to be
// written before fan starts no more jobs (without -k; see runner's hold).
// FAN_OUTPUT_HOLD changes it (for tests).
const defaultHold = 64 << 20

// outputHold is FAN_OUTPUT_HOLD if it is a positive number of bytes, else
// defaultHold.
func outputHold(env Env) int64 {
	if n, err := strconv.ParseInt(env.Get("FAN_OUTPUT_HOLD"), 10, 64); err == nil && n > 0 {
		return n
	}
	return defaultHold
}

// stops are the three ways a run is cut short, each stronger than the last:
// stop taking input (and starting jobs), terminate the running jobs with the
// termseq, and kill them at once.
type stops struct {
	intake, jobs, kill                  context.Context
	stopIntake, terminateJobs, killJobs context.CancelFunc
}

func newStops() *stops {
	s := &stops{}
	s.intake, s.stopIntake = context.WithCancel(context.Background())
	s.jobs, s.terminateJobs = context.WithCancel(context.Background())
	s.kill, s.killJobs = context.WithCancel(context.Background())
	return s
}

func (s *stops) cancelAll() { s.stopIntake(); s.terminateJobs(); s.killJobs() }

// maxQueue bounds the channels between the stages whatever -j is, and
// maxBlockQueue the blocks read ahead in pipe mode.
const (
	maxQueue      = 4096
	maxBlockQueue = 64
)

// run wires the three stages together and runs them to the end. The
// run's signals are caught already, since the command line was read
// (Config.signals).
func run(c *Config) outcome {
	if c.sem != nil {
		return runSemaphore(c)
	}
	failed := func(err error) outcome { return outcome{err: err, xargs: c.Xargs} }
	stdin, stderr := c.Streams.In, c.Streams.Err
	term := c.display()
	if term.Auto && slices.ContainsFunc(c.sources, input.SourceSpec.ReadsStdin) && output.IsTerminalInput(stdin) {
		// The items are typed at the terminal: a bar would be drawn over
		// what is being typed.
		term.Progress, term.Auto = output.ProgressNone, false
	}
	env := runner.BaseEnv(c.Env, c.Output.TmpDir)
	lim := runner.NewArgLimits(env, c.Runner.ProcessSlotVar)
	var counted output.Intake // items read so far, for the progress display and --halt N%
	var in intake
	var reader *input.Reader // argument mode's
	var closeInput func()
	var err error
	budget, err := fitBudget(c)
	if err != nil {
		return failed(err)
	}
	spool := newSpool(c, budget) // its first files are made while the run sets up
	if spool != nil {
		defer spool.Close()
	}
	if c.records != nil {
		in, closeInput, err = openPipe(c, &counted, budget)
	} else {
		reader, closeInput, err = openReader(c, lim, &counted)
		in = reader
	}
	if err != nil {
		return failed(err)
	}
	defer closeInput()
	if c.ShowLimits {
		lim.Show(stderr) // before the sink owns stderr
	}
	if c.typesItems() {
		fmt.Fprintln(stderr, c.typingHintText()) // before the sink owns stderr
	}
	books, err := openBooks(c)
	if err != nil {
		return failed(err)
	}

	st := newStops()
	defer st.cancelAll()
	var halted atomic.Pointer[runner.Halted]
	pool := newPool(c, budget, env, books, st)
	if pool.Hold != nil {
		defer pool.Hold.Close()
	}
	if c.jobs > 0 && pool.Jobs < c.jobs && !c.Runner.DryRun {
		fmt.Fprintf(stderr, "fan: running at most %d jobs at once, not %d: more would exceed %s\n", pool.Jobs, c.jobs, budget.LimitedBy)
	}
	if c.Runner.Halt.Percent && reader != nil {
		// As GNU parallel: a percentage of the jobs needs their number.
		reader.Prefetch = true
		pool.Total = counted.Read.Load
	}
	if c.counts.NeedsTotal() && reader != nil {
		// --plus's {##} is the number of jobs: all of the input is read
		// first, as GNU parallel does.
		reader.Prefetch = true
		c.counts.Total = counted.Read.Load
	}
	var watch *runner.XargsStop
	if c.Xargs {
		watch = &runner.XargsStop{Stop: st.stopIntake}
		pool.Finished = watch.Finished
	}
	sink, err := newSink(c, pool, books, st, spool)
	if err == nil && spool != nil {
		if err = spool.Ready(); err != nil {
			err = usageErrorf("cannot make temporary files for job output: %v (set --tmpdir or TMPDIR to a writable directory)", err)
		}
	}
	if err != nil {
		books.Close(false)
		return failed(err)
	}
	sink.Meter = term.Meter(stderr, &counted, c.jobs)
	sink.Color = term.Palette
	// -k, or one job at a time: the next job's stdout straight to fan's.
	pool.Direct = sink.HandOver(c.serial())

	items := make(chan input.Item, itemQueue(c))
	stream := runner.NewStream(budget.Buffered)
	if !c.Runner.DryRun {
		local, err := runner.NewLocal()
		if err != nil {
			books.Close(false)
			return failed(err)
		}
		defer local.Close()
		local.Notify = stream.Notify
		local.MostJobs = pool.Jobs
		if budget.FewThreads {
			local.KeepThreadsFew()
		}
		if c.flagSet("nice") {
			if err := local.SetNice(c.Runner.Nice); err != nil {
				books.Close(false)
				return failed(usageErrorf("%v", err))
			}
		}
		pool.Exec = local
		if c.remote != nil {
			closeHosts, err := c.remote.attach(c, pool, stream.Notify, st.stopIntake)
			if err != nil {
				books.Close(false)
				return failed(err)
			}
			defer closeHosts()
			in = c.remote.intake(in)
		}
	}
	notify := stream.Notify
	c.warn = notify
	if reader != nil {
		reader.Lost = func(read []byte) { notify(lostPartMessage(read)) }
	}
	var slots *runner.FixedSlots // this machine's; nil with -S
	if c.remote == nil {
		lim := newLimits(c, pool.Jobs, pool.Exec, pool, notify)
		pool.Slots, slots = lim.slots, lim.slots
		defer lim.run()()
		if p, ok := sink.Meter.(*output.Progress); ok && (c.auto != nil || c.procfile != nil) {
			p.Limit = slots.Limit
		}
	}
	pool.OnHalt = func(h *runner.Halted) {
		halted.Store(h)
		notify(h.Message(c.Runner.Halt, runningBut(pool, h.Seq)))
		st.stopIntake()
		if c.Runner.Halt.Now {
			st.terminateJobs()
		}
	}
	drain := newDrain(c, pool, notify, st)
	sigs := c.signals
	pool.Ready = sigs.ready // no job before every signal is caught and watched
	sigs.take()
	defer watchSignals(drain, sigs.drain)()
	defer watchStatus(c, &status{pool: pool, slots: slots, counted: &counted, jobs: pool.Jobs, unlimited: c.jobs == 0}, stream, sigs.status)()
	defer watchStops(pool, sigs.tstp, sigs.cont)()

	readErr := make(chan error, 1)
	go func() {
		err := in.Run(st.intake, items)
		counted.Ended.Store(true)
		readErr <- err
	}()
	poolErr := make(chan error, 1)
	go func() { poolErr <- pool.Run(st.intake, st.jobs, items, stream) }()
	stats, err := sink.Run(stream)
	if perr := <-poolErr; err == nil && perr != nil {
		err = perr
	}
	rerr := <-readErr
	if err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = &inputError{readError(rerr, reader)}
	}
	// A run that stopped on bad input before any item was read leaves the
	// books as they were.
	ranAtAll := err == nil || stats.Read()+stats.Skipped > 0
	if cerr := books.Close(ranAtAll); err == nil && cerr != nil {
		err = cerr
	}
	res := outcome{stats: stats, err: err, interrupted: drain.interrupted(), halted: halted.Load(), halt: c.Runner.Halt, xargs: c.Xargs,
		hostsGone: c.remote != nil && c.remote.gaveUp.Load()}
	if watch != nil {
		res.xargsAbort, res.xargsFailed = watch.Result()
		if a := res.xargsAbort; a != nil {
			a.Last = rerr == nil && a.Seq == stats.Read()
		}
		var ie *inputError
		if res.xargsAbort != nil && errors.As(res.err, &ie) {
			// xargs stops reading where a command stopped it: it never
			// meets the bad input fan had read ahead to.
			res.err = nil
		}
	}
	return res
}

// openReader opens the input sources (so that an unreadable file is an
// error before any job starts) and builds the input stage over them.
func openReader(c *Config, lim runner.ArgLimits, counted *output.Intake) (*input.Reader, func(), error) {
	stdin := c.Streams.In
	var srcs []input.Source
	var gates []input.Closer
	var lines input.LineReader
	var closeInput func()
	if c.Xargs {
		in, closeIn, err := xargsInput(c, stdin)
		if err != nil {
			return nil, nil, err
		}
		g := input.NewGate(in)
		gates = []input.Closer{g}
		lines, closeInput = xargsLines(g, c), closeIn
	} else {
		var err error
		if srcs, gates, closeInput, err = input.OpenSources(c.sources, c.delim, stdin); err != nil {
			return nil, nil, &inputError{err}
		}
		if err := c.readHeader(srcs); err != nil {
			closeInput()
			return nil, nil, err
		}
	}
	reader := &input.Reader{Sources: srcs, Gates: gates, Link: c.Input.Link, Linked: c.linked(), Colsep: c.colsep, Trim: c.trim, MaxArgs: c.maxArgs, NoArgs: c.noArgs,
		SkipBlank: c.Input.NoRunIfEmpty && !c.Xargs, EOF: c.Input.EOF, Count: &counted.Read, Bytes: &counted.Bytes, Shuffle: c.Input.Shuf,
		Shard: c.shard}
	if c.template.Filters() {
		reader.Drop = c.template.Skips
	}
	if c.pack != nil {
		reader.Pack = c.packer(lim, lines)
		if _, ok := lines.(*input.XargsSplitter); ok {
			reader.Pack.Record = input.XargsQuote // the failures file re-reads the same items
		}
	}
	return reader, closeInput, nil
}

// fitBudget fits -j to the open-file and process limits (the budget says
// which one lowered it, and how many events may wait for the sink).
func fitBudget(c *Config) (runner.Budget, error) {
	return runner.FitBudget(runner.BudgetRequest{
		Jobs: c.budgetJobs(), Window: window(c.Env) + c.jobs, KeepOrder: c.Output.KeepOrder,
		Ungrouped: c.Output.Ungroup, LineBuffer: c.lineBuffer, Remote: c.remote != nil,
		DryRun: c.Runner.DryRun, Buffered: eventQueue(c),
	})
}

// newPool builds the runner stage, with -j as the budget fits it.
func newPool(c *Config, b runner.Budget, env []string, books *output.Books, st *stops) *runner.Pool {
	pool := &runner.Pool{
		Jobs:       b.Jobs,
		Template:   c.template,
		Env:        env,
		WorkDir:    c.texts.workDir,
		SlotVar:    c.Runner.ProcessSlotVar,
		DryRun:     c.Runner.DryRun,
		TermSeq:    c.Runner.TermSeq,
		KeepOrder:  c.Output.KeepOrder,
		Window:     b.Window,
		LeftBehind: b.LeftBehind,
		HoldOutput: outputHold(c.Env),
		Announce:   c.Output.Verbose && !c.Runner.DryRun,
		Live:       c.lineBuffer,
		StdinAs:    c.stdinMode(),
		TmpDir:     c.Output.TmpDir,
		Timeout:    c.Runner.Timeout,
		Retries:    c.Runner.Retries,
		RetryDelay: c.Runner.RetryDelay,
		Delay:      c.Runner.Delay,
		Halt:       c.Runner.Halt,
		Skip:       books.Skip,
		Kill:       st.kill,
	}
	if c.records != nil && c.Output.KeepOrder {
		pool.Hold = &input.BlockHold{Dir: c.Output.TmpDir}
	}
	pool.NotStartedCommands = books.Failures != nil // its record names the command
	return pool
}

// itemQueue is the read-ahead between the input stage and the pool: a few
// items a slot, within bounds that a -j of millions or none (0) does not
// turn into an allocation of gigabytes.
func itemQueue(c *Config) int {
	queue := 1024
	if c.jobs > 0 {
		queue = min(4*c.jobs, maxQueue)
	}
	switch {
	case c.records != nil || c.pack != nil:
		// Blocks, or packed items of up to a whole command line each, not
		// items: a few per slot (memory), whatever -j, in a dry run too.
		return min(queue, 2*max(c.jobs, 1), maxBlockQueue)
	case c.Runner.DryRun:
		// Nothing runs: the stages hand items and results over in long
		// runs rather than wake each other for each one.
		return maxQueue
	}
	return queue
}

// eventQueue is how many events may wait for the sink: about one a job,
// or, in a dry run of small items, where results come as fast as they are
// rendered, many: maxQueue results, which without -k come up to
// runner.DryBatch to an event. (Packed items, each up to a whole command
// line, wait as a run's do.)
func eventQueue(c *Config) int {
	switch {
	case c.Runner.DryRun && c.pack == nil && c.Output.KeepOrder:
		return maxQueue
	case c.Runner.DryRun && c.pack == nil:
		return maxQueue / runner.DryBatch
	}
	return min(max(c.jobs, 16), maxQueue)
}

// newSpool makes the spool of grouped output (nil for --ungroup), and
// checks that it can make files, with --line-buffer by starting to make
// the first job's: run asks (Spool.Ready) before any job starts. It keeps
// no more files for reuse than the budget counts: two for each job that
// may run at once.
func newSpool(c *Config, b runner.Budget) *output.Spool {
	if c.Output.Ungroup || c.Runner.DryRun {
		return nil // no job output to capture
	}
	jobs := b.Jobs
	if c.jobs > 0 {
		jobs = min(c.jobs, jobs)
	}
	keep, warm := 2*jobs, 0 // grouped: spool files only for output past the memory budget
	if c.lineBuffer {
		keep = 0 // the sink reads a job's files after the pool gives them back
		warm = 2 // and every job writes into two
	}
	spool := output.NewSpool(c.Output.TmpDir, keep)
	spool.Warm(warm)
	return spool
}

// newSink builds the output stage over the spool files it shares with the
// pool (nil: none). A write error of fan's own stops the run.
func newSink(c *Config, pool *runner.Pool, books *output.Books, st *stops, spool *output.Spool) (*output.Sink, error) {
	var writeErr sync.Once
	o := &c.Output
	sink := &output.Sink{
		Stdout: c.Streams.Out, Stderr: c.Streams.Err, KeepOrder: o.KeepOrder,
		LineBuffer: c.lineBuffer,
		Ungrouped:  o.Ungroup,
		Tag:        c.shownTagger(),
		Joblog:     books.Joblog,
		Failures:   books.Failures,
		Quiet:      o.Quiet,
		OnError: func(error) {
			writeErr.Do(func() { st.stopIntake(); st.terminateJobs() })
		},
		// A book that cannot be written: start nothing more, as its
		// records would only be listed on stderr, but let the running
		// jobs finish and write their output.
		OnBookError: func(error) { st.stopIntake() },
	}
	if o.Files {
		sink.Files = &output.OutputFiles{Dir: c.tmpDir()}
	}
	if spool != nil {
		pool.Spool, sink.Spool = spool, spool
	}
	switch name := c.texts.results; {
	case o.Results == "":
	case output.IsResultsTable(o.Results):
		// --results NAME.csv: rows of one file, opened with the books
		// (none for a dry run), which take the job output in its place.
		if books.Table != nil {
			sink.Results = books.Table
		}
	case name.Varies():
		// --results 'out/{}': files named per job; their directories are
		// made as jobs end.
		sink.Results = &output.Results{Name: name}
	default:
		if err := output.MakeResultsDir(o.Results); err != nil {
			return nil, usageErrorf("--results: cannot use directory %q: %v (give a directory fan can write in)", o.Results, err)
		}
		sink.Results = &output.Results{Dir: o.Results, Sources: len(c.sources), Colsep: c.colsep, Names: c.columns}
		if c.records != nil && !c.Input.Pipe.Tee {
			// Pipe mode's jobs have no arguments to name their
			// directories after: a directory per job number, DIR/{#}/
			// (GNU parallel writes every block's into DIR itself, so
			// that only the last one's is left).
			sink.Results = &output.Results{Name: runner.NewText(filepath.Join(o.Results, "{#}")+"/", c.syntax())}
		}
	}
	return sink, nil
}

// tmpDir is where fan's own temporary files go: --tmpdir, else $TMPDIR,
// else /tmp.
func (c *Config) tmpDir() string {
	for _, d := range []string{c.Output.TmpDir, c.Env.Get("TMPDIR")} {
		if d != "" {
			return d
		}
	}
	return os.TempDir()
}

// newDrain builds the signal state machine of the run. --drain-timeout,
// when given, applies whatever the signal; otherwise a drain SIGTERM began
// lasts termDrain at most, and others for ever.
func newDrain(c *Config, pool *runner.Pool, notify func(string), st *stops) *drain {
	timeout, term := time.Duration(0), termDrain
	if c.flagSet("drain-timeout") {
		timeout, term = c.DrainTimeout, c.DrainTimeout
	}
	return &drain{
		timeout:     timeout,
		termTimeout: term,
		terminal:    output.IsTerminal(c.Streams.Err),
		running:     pool.Running,
		notify:      notify,
		stopIntake:  st.stopIntake,
		terminate:   st.terminateJobs,
		kill:        st.killJobs,
	}
}

// readError says what went wrong with the input, with the size limit when
// an item did not fit.
func readError(err error, r *input.Reader) error {
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, input.ErrJobsGone) {
		return err // says what it is already
	}
	var p *input.Packer
	if r != nil {
		p = r.Pack
	}
	if p != nil && errors.Is(err, input.ErrItemTooLong) {
		return fmt.Errorf("%w: %d bytes (pass such data in a file instead)", err, p.MaxItem)
	}
	if p != nil && (errors.Is(err, input.ErrArgTooLong) || errors.Is(err, input.ErrListTooLong)) {
		return fmt.Errorf("%w: the limit is %d bytes (raise it with -s, or use fewer items per job)", err, p.Limit)
	}
	return fmt.Errorf("reading input: %w", err)
}

// runningBut lists the jobs running now, by number in input order, but
// job seq: the one that just ended.
func runningBut(pool *runner.Pool, seq int64) []int64 {
	var seqs []int64
	for _, j := range pool.RunningJobs() {
		if j.Seq != seq {
			seqs = append(seqs, j.Seq)
		}
	}
	return seqs
}
