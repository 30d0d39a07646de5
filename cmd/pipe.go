package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// intake is the input stage: it sends items until its input or ctx ends,
// and closes out. Argument mode's is an input.Reader, pipe mode's an
// input.PipeReader or input.PartReader.
type intake interface {
	Run(ctx context.Context, out chan<- input.Item) error
}

// checkPipe validates pipe mode's flags and derives its records. In pipe
// mode -N counts records per job and -L lines per record, as in GNU
// parallel; what only makes sense for arguments is refused.
func (c *Config) checkPipe() error {
	p := &c.Input.Pipe
	if !p.on() {
		for _, f := range []string{"block", "recstart", "recend", "regexp", "round-robin", "tee"} {
			if c.flagSet(f) {
				return usageErrorf("--%s is a flag of pipe mode (add --pipe)", f)
			}
		}
		return nil
	}
	refuse := map[string]string{
		"xargs": "--xargs", "context-replace": "-X", "multi-args": "-m",
		"max-chars": "-s", "colsep": "--colsep", "link": "--link", "eof": "-E", "no-run-if-empty": "-r",
		"delimiter": "-d", "shuf": "--shuf",
	}
	for name, flag := range refuse {
		if c.flagSet(name) {
			return usageErrorf("%s does not go with --pipe (jobs read blocks of the input, not arguments)", flag)
		}
	}
	switch {
	case p.Cat && p.Fifo:
		return usageErrorf("--cat and --fifo cannot be used together (pick one)")
	case p.RoundRobin && (p.Cat || p.Fifo):
		return usageErrorf("--round-robin gives each job many blocks on its stdin, so it does not go with --cat or --fifo")
	case p.Tee && p.RoundRobin:
		return usageErrorf("--tee gives all of the input to every job, so it does not go with --round-robin")
	case (p.Tee || p.RoundRobin) && c.Runner.Retries > 1:
		return usageErrorf("--retries cannot run a job of --tee or --round-robin again: its input went by (drop --retries)")
	case (p.Tee || p.RoundRobin) && c.Runner.MemFree > 0:
		// An evicted job runs again later, with nothing on its stdin.
		return usageErrorf("--memfree puts a job back to run again when memory runs low, which a job of --tee or --round-robin cannot: its input went by (drop --memfree)")
	case (p.Tee || p.RoundRobin) && (c.Output.Resume || c.Output.ResumeFailed):
		return usageErrorf("--resume and --resume-failed cannot pick out the jobs of --tee or --round-robin: they share the input as it goes by (run them all again)")
	case p.Block < 0 && !p.PipePart:
		return usageErrorf("--block: a negative size (N blocks per job slot) goes with --pipepart only (give a size, e.g. --block 10M)")
	}
	if err := c.checkPipeFiles(); err != nil {
		return err
	}
	// -n is -N here, as in GNU parallel: both count records.
	n := c.Input.MaxReplace
	if c.flagSet("max-args") {
		if c.flagSet("max-replace-args") {
			return usageErrorf("-n and -N cannot be used together (pick one; with --pipe both count records)")
		}
		n = c.Input.MaxArgs
	}
	rec := input.Records{Regexp: p.Regexp, Header: p.Header, Null: c.Input.Null, N: n, L: c.Input.MaxLines}
	if p.RecStart != nil {
		rec.Start, rec.StartSet = *p.RecStart, true
	}
	if p.RecEnd != nil {
		rec.End, rec.EndSet = *p.RecEnd, true
	}
	if err := rec.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	c.records = &rec
	return nil
}

// checkPipeFiles sorts out what pipe mode reads: --pipe reads stdin, or
// one -a file; --pipepart cuts the files of -a and ::::, each a file it
// can seek in (GNU parallel takes both); --tee's jobs are the items of
// the ::: sources (and ::::'s, without --pipepart).
func (c *Config) checkPipeFiles() error {
	p := &c.Input.Pipe
	files, items := c.Input.ArgFiles, c.Input.Sources
	if p.PipePart {
		files, items = slices.Clone(files), nil
		for _, s := range c.Input.Sources {
			if s.List == nil {
				files = append(files, s.File)
			} else {
				items = append(items, s)
			}
		}
		switch {
		case len(files) == 0:
			return usageErrorf("--pipepart cuts files: give them with -a FILE or :::: FILE")
		case slices.Contains(files, "-"):
			return usageErrorf("--pipepart needs a file it can seek in, not stdin (use --pipe for a stream)")
		case p.Tee && len(files) > 1:
			return usageErrorf("--pipepart --tee gives one file to every job: give one -a FILE")
		}
	} else if len(files) > 1 {
		return usageErrorf("--pipe reads one input: give at most one -a FILE")
	}
	if p.Tee {
		if len(items) == 0 {
			return usageErrorf("--tee runs one job per ::: item, each given all of the input: give the items (e.g. ::: a b)")
		}
	} else if len(items) > 0 {
		if p.PipePart {
			return usageErrorf("--pipepart cuts the files of -a and ::::, and takes no ::: items (but with --tee)")
		}
		return usageErrorf("--pipe takes its input on stdin (or -a FILE), not from ::: or :::: (with --tee, each ::: item gets all of it)")
	}
	c.pipeFiles, c.teeItems = files, items
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func (c *Config) flagSet(name string) bool {
	return c.set != nil && c.set(name)
}

// stdinMode is how jobs get their block (--cat, --fifo, or stdin).
func (c *Config) stdinMode() runner.StdinMode {
	switch p := &c.Input.Pipe; {
	case p.Cat:
		return runner.InFile
	case p.Fifo:
		return runner.InFIFO
	}
	return runner.OnStdin
}

// openPipe builds pipe mode's input stage: stdin, or the -a file, cut
// into blocks (--pipe); or the -a file's byte ranges (--pipepart). The
// budget is -j as the limits let it be: --round-robin and --tee start a
// job per slot and feed them all at once, so they get as many as can run,
// not as many as -j asked.
func openPipe(c *Config, counted *output.Intake, b runner.Budget) (intake, func(), error) {
	p := &c.Input.Pipe
	slots, limit := c.jobs, ""
	if slots > b.Jobs || slots == 0 && p.Tee {
		slots, limit = b.Jobs, b.LimitedBy
	}
	if p.PipePart && !p.Tee {
		return partReader(c, counted, slots)
	}
	in, closeIn := c.Streams.In, func() {}
	if len(c.pipeFiles) == 1 && c.pipeFiles[0] != "-" {
		f, err := input.OpenFile(c.pipeFiles[0])
		if err != nil {
			return nil, nil, &inputError{err}
		}
		in, closeIn = f, func() { f.Close() }
	}
	gate := input.NewGate(in)
	if p.Tee {
		return newTeeIntake(c, gate, counted, slots, limit, closeIn)
	}
	counted.Pipe, counted.Blocks, counted.Size = true, true, sizeLeft(in)
	blocks, err := input.NewBlockSplitter(gate, p.Block, *c.records)
	if err != nil {
		closeIn()
		return nil, nil, usageErrorf("--block: %v", err)
	}
	blocks.OnGrow = c.warnGrown()
	if p.RoundRobin {
		if slots <= 0 {
			closeIn()
			return nil, nil, usageErrorf("--round-robin starts one job per slot: give a job count (-j N, not -j 0)")
		}
		counted.Blocks = false
		return &input.RoundRobin{Blocks: blocks, Gate: gate, Jobs: slots, Count: &counted.Read, Offset: &counted.Offset, DryRun: c.Runner.DryRun}, closeIn, nil
	}
	return &input.PipeReader{Blocks: blocks, Gate: gate, Count: &counted.Read, Bytes: &counted.Bytes, Offset: &counted.Offset}, closeIn, nil
}

// warnGrown returns the BlockSplitter's OnGrow: the first time a record
// is longer than the block, a line says so, as GNU parallel warns
// (which it does at every growth); it says nothing with -N, whose blocks
// are N records whatever --block is.
func (c *Config) warnGrown() func(from, to int64) {
	if c.records.N > 0 {
		return nil
	}
	var once sync.Once
	return func(from, _ int64) {
		once.Do(func() {
			if c.warn != nil {
				c.warn(fmt.Sprintf("fan: a record was longer than the block size (%s), so blocks grow to hold such records (give a larger --block)", input.SizeText(from)))
			}
		})
	}
}

// teeIntake is the input stage of --tee: the items of the ::: lists, each
// job given all of stdin (input.Tee).
type teeIntake struct {
	items  *input.Reader
	tee    *input.Tee
	slots  int
	limit  string // the system limit that lowered slots below -j, or ""
	dryRun bool
}

func newTeeIntake(c *Config, in io.Reader, counted *output.Intake, slots int, limit string, closeIn func()) (intake, func(), error) {
	srcs, gates, closeSrcs, err := input.OpenSources(c.teeItems, c.delim, strings.NewReader(""))
	if err != nil {
		closeIn()
		return nil, nil, &inputError{err}
	}
	linked := make([]bool, len(c.teeItems))
	for i, s := range c.teeItems {
		linked[i] = s.Linked
	}
	reader := &input.Reader{Sources: srcs, Gates: gates, Link: c.Input.Link, Linked: linked, Count: &counted.Read, Bytes: &counted.Bytes}
	t := &teeIntake{items: reader, tee: &input.Tee{In: in}, slots: slots, limit: limit, dryRun: c.Runner.DryRun}
	return t, func() { closeSrcs(); closeIn() }, nil
}

// Run reads every item first: the jobs must all run at once, so their
// number must fit the job slots before any starts.
func (t *teeIntake) Run(ctx context.Context, out chan<- input.Item) error {
	defer close(out)
	all := make(chan input.Item, 64)
	errc := make(chan error, 1)
	go func() { errc <- t.items.Run(ctx, all) }()
	var items []input.Item
	for it := range all {
		items = append(items, it)
	}
	if err := <-errc; err != nil {
		return err
	}
	if t.slots > 0 && len(items) > t.slots {
		// Too few slots: -j's own, or those a system limit left.
		fewer, fix := fmt.Sprintf("-j allows %d", t.slots), fmt.Sprintf("give -j %d or more, or -j 0", len(items))
		if t.limit != "" {
			fewer, fix = fmt.Sprintf("only %d can run within %s", t.slots, t.limit), "raise it"
		}
		return usageErrorf("--tee runs all %d jobs at once, and %s (%s)", len(items), fewer, fix)
	}
	t.tee.Jobs = len(items)
	for _, it := range items {
		it.Stdin = t.tee.Stdin()
		out <- it
	}
	if t.dryRun {
		return nil
	}
	return t.tee.Run(ctx)
}

// partReader cuts the files of --pipepart into their byte ranges;
// without --block, into 10 per job slot, as GNU parallel does (--block
// -N: N per slot, all the files' sizes added up); with --round-robin,
// into one per slot whatever --block says, as GNU parallel does too.
func partReader(c *Config, counted *output.Intake, slots int) (intake, func(), error) {
	var files []input.PartFile
	closeIn := func() {
		for _, pf := range files {
			pf.File.Close()
		}
	}
	total := int64(0)
	for _, name := range c.pipeFiles {
		if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
			// Before opening it: opening a FIFO waits for a writer.
			closeIn()
			return nil, nil, notSeekable(name)
		}
		f, err := input.OpenFile(name)
		if err != nil {
			closeIn()
			return nil, nil, &inputError{err}
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			f.Close()
			closeIn()
			return nil, nil, notSeekable(name)
		}
		files = append(files, input.PartFile{File: f, Size: st.Size()})
		total += st.Size()
	}
	block := c.Input.Pipe.Block
	switch {
	case c.Input.Pipe.RoundRobin:
		block = -1
	case block == 0:
		block = -10
	}
	if block < 0 {
		block = input.PartBlockSize(total, max(slots, 1), int(-block))
	}
	for i := range files {
		parts, err := input.FileParts(files[i].File, files[i].Size, block, *c.records)
		if err != nil {
			closeIn()
			return nil, nil, &inputError{fmt.Errorf("--pipepart: %v", err)}
		}
		files[i].Parts = parts
	}
	counted.Pipe, counted.Blocks, counted.Size = true, true, total
	return &input.PartReader{Files: files, Count: &counted.Read, Offset: &counted.Offset}, closeIn, nil
}

// notSeekable is the usage error of --pipepart -a NAME where NAME is not
// a regular file (a FIFO, a device).
func notSeekable(name string) error {
	return usageErrorf("--pipepart: %q is not a regular file it can seek in (use --pipe for a stream)", name)
}

// sizeLeft is how many bytes are left to read in, when it is a regular
// file (-a FILE, or stdin from one), for the progress bar; else 0.
func sizeLeft(in io.Reader) int64 {
	f, ok := in.(*os.File)
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	return max(st.Size()-at, 0)
}
