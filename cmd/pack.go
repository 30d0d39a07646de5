package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"fan/input"
	"fan/runner"
)

// packSpec is how items are packed into jobs (--xargs, -X, -m, -L, -s).
type packSpec struct {
	maxArgs, maxLines, maxChars int
	exact                       bool   // -x
	whole                       bool   // --xargs -I: a whole line per job
	runEmpty                    bool   // --xargs without -r: run once on empty input
	eof                         string // -E
	spread                      int    // -X, -m: job slots to spread the input's end over
}

// checkPacking validates the packing flags and, when items are packed,
// sets c.pack. Under --xargs the last of -n, -L and -I wins, as in xargs
// (-n 1 beside -I is ignored).
func (o *Options) checkPacking(c *config) error {
	switch {
	case o.MaxLines < 0:
		return usageErrorf("--max-lines: %d is negative (try -L 1)", o.MaxLines)
	case o.MaxChars < 0 || (o.MaxChars == 0 && o.changed("max-chars")):
		return usageErrorf("--max-chars: %d is not a size (try -s 4096)", o.MaxChars)
	case o.PackContext && o.PackMulti:
		return usageErrorf("-X and -m cannot be used together (pick one way of packing)")
	}
	if !o.Xargs {
		if !o.PackContext && !o.PackMulti && o.MaxLines == 0 && o.MaxChars == 0 {
			if o.Exact {
				return usageErrorf("-x needs -X, -m, -L or -s (it limits packed jobs)")
			}
			return nil
		}
		if len(c.sources) > 1 {
			return usageErrorf("-X, -m, -L and -s take a single input source (not a combination of ::: and :::: sources)")
		}
		p := &packSpec{maxArgs: o.MaxArgs, maxLines: o.MaxLines, maxChars: o.MaxChars, exact: o.Exact}
		if !o.PackContext && !o.PackMulti && o.MaxLines == 0 {
			p.maxArgs = max(o.MaxArgs, 1) // -s alone limits, it does not pack
		}
		if o.PackContext || o.PackMulti {
			// As GNU parallel: the end of the input is spread over the
			// job slots; with no limit on them (-j 0), one item a job.
			p.spread = c.jobs
			if p.spread == 0 {
				p.spread = maxJobs
			}
		}
		c.pack = p
		return nil
	}
	if len(c.sources) > 1 {
		return usageErrorf("--xargs reads one input: stdin or a single -a FILE")
	}
	// GNU parallel's ways of cutting and combining items mean nothing to
	// xargs, which splits its one input itself and packs by default.
	for _, f := range []struct {
		flag  string
		given bool
	}{{"--colsep", o.Colsep != ""}, {"--trim", o.Trim != ""}, {"-q", o.Quote}, {"--link", o.Link}, {"-X", o.PackContext}, {"-m", o.PackMulti}, {"-N", o.changed("max-replace-args")},
		{"--arg-sep", o.ArgSep != ":::"}, {"--arg-file-sep", o.ArgFileSep != "::::"}} {
		if f.given {
			return usageErrorf("%s has no meaning under --xargs, which splits and packs its input as xargs does (drop one of the two)", f.flag)
		}
	}
	switch {
	case o.changed("max-args") && o.MaxArgs < 1:
		return usageErrorf("--max-args: %d is not a count (xargs wants -n 1 or more)", o.MaxArgs)
	case o.changed("max-lines") && o.MaxLines < 1:
		return usageErrorf("--max-lines: %d is not a count (xargs wants -L 1 or more)", o.MaxLines)
	}
	n, lines, replace := o.MaxArgs, o.MaxLines, o.Replace
	switch o.lastOf("max-args", "max-lines", "replace") {
	case "replace":
		n, lines = 0, 0
	case "max-args":
		lines = 0
		if replace != "" && n == 1 {
			n = 0
		} else {
			replace = ""
		}
	case "max-lines":
		n, replace = 0, ""
	}
	o.Replace = replace
	c.pack = &packSpec{
		maxArgs: n, maxLines: lines, maxChars: o.MaxChars,
		exact:    o.Exact || replace != "" || lines > 0, // -I and -L imply -x, as in xargs
		whole:    replace != "",
		runEmpty: !o.NoRunIfEmpty && replace == "", eof: o.EOFString,
	}
	return nil
}

// lastOf returns which of the named flags was given last, or "".
func (o *Options) lastOf(names ...string) string {
	best, at := "", 0
	for _, n := range names {
		if o.last[n] > at {
			best, at = n, o.last[n]
		}
	}
	return best
}

// changed reports whether a flag wrapped by addXargsFlags was given.
func (o *Options) changed(name string) bool { return o.last[name] > 0 }

// packer builds the Packer for a run; lines is where xargs reads its
// arguments (nil outside --xargs: the reader's own records).
func (c *config) packer(lim runner.ArgLimits, lines input.LineReader) *input.Packer {
	base, cost := c.template.Size()
	limit := lim.Buffer
	if c.pack.maxChars > 0 {
		limit = min(c.pack.maxChars, lim.Usable)
	}
	if !c.argv {
		// The command line may go to a shell as one argument: it must fit
		// in one (GNU parallel caps its line length the same way).
		limit = min(limit, runner.MaxArgStrlen)
	}
	return &input.Packer{
		Lines: lines, MaxArgs: c.pack.maxArgs, MaxLines: c.pack.maxLines,
		Limit: limit, Base: base, Cost: cost, Hard: lim.Usable, PerArg: runner.PointerSize,
		MaxItem: runner.MaxArgStrlen - 1,
		Exact:   c.pack.exact, Whole: c.pack.whole, RunEmpty: c.pack.runEmpty,
		Spread: c.pack.spread, CountRecords: !c.argv,
	}
}

// xargsLines is the input of --xargs: xargs's quoting, or with -0 and -d
// plain delimited items.
func xargsLines(src io.Reader, o *Options, c *config) input.LineReader {
	if o.Null || o.Delimiter != "" {
		return &input.DelimitedLines{Src: input.NewSplitter(src, c.delim)}
	}
	s := input.NewXargsSplitter(src)
	s.EOF, s.Lines = c.pack.eof, c.pack.whole
	return s
}

// xargsInput opens the one input of --xargs: stdin, or the -a file.
func xargsInput(c *config, stdin io.Reader) (io.Reader, func(), error) {
	s := c.sources[0]
	if s.stdin || s.file == "-" {
		return stdin, func() {}, nil
	}
	f, err := openFile(s.file)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// xargsWatch sees every finished job under --xargs and stops the run the
// way xargs does: at a command that exits 255, is killed by a signal, or
// cannot be run. It is safe for concurrent use.
type xargsWatch struct {
	stop   func()
	mu     sync.Mutex
	failed bool        // a command exited 1–125
	abort  *xargsAbort // the first reason the run stopped early
}

// xargsAbort is why an --xargs run stopped early.
type xargsAbort struct {
	why abortWhy
	msg string // what happened, for stderr
	seq int64  // the job that stopped the run
	// last: that job was the last of the input, so xargs met its end in
	// the wait at exit, and the abort's status stands (see xargsStatus).
	last bool
}

// abortWhy is what kind of job end stops an --xargs run.
type abortWhy int

const (
	abortExit255  abortWhy = iota // the command exited 255
	abortSignal                   // the command was killed by a signal
	abortNoExec                   // the command could not be run
	abortNotFound                 // the command was not found
)

// finished records a job's result; Pool.Finished calls it.
func (w *xargsWatch) finished(r *runner.Result) {
	if r.NotStarted || r.DryRun || r.Skipped || r.OK() {
		return
	}
	name := ""
	if len(r.Command.Args) > 0 {
		name = r.Command.Args[0]
	}
	a := &xargsAbort{seq: r.Item.Seq}
	var se *runner.StartError
	switch {
	case r.Err != nil:
		a.why = abortNoExec
		if errors.As(r.Err, &se) && se.Status == 127 || errors.Is(r.Err, os.ErrNotExist) {
			a.why = abortNotFound
		}
		a.msg = fmt.Sprintf("fan: %s: could not be run; stopped, as xargs does", name)
	case r.Signal != 0 && r.Status == 0:
		// A signal ended the command on its own. One fan sent (--timeout,
		// a drain, a write error; Status -1) is not a crash: it counts as
		// a failure like exit 1-125, below, and the other items still run.
		a.why = abortSignal
		a.msg = fmt.Sprintf("fan: %s: terminated by a signal; stopped, as xargs does", name)
	case r.Status == 255:
		a.why = abortExit255
		a.msg = fmt.Sprintf("fan: %s: exited with status 255; stopped, as xargs does", name)
	default:
		w.mu.Lock()
		// A failure; xargs has exited by the time a job that outlived the
		// stop ends, so only failures before a stop count.
		w.failed = w.failed || w.abort == nil
		w.mu.Unlock()
		return
	}
	w.mu.Lock()
	first := w.abort == nil
	if first {
		w.abort = a
	}
	w.mu.Unlock()
	if first {
		w.stop()
	}
}

// result returns the first abort, if any, and whether a command failed.
func (w *xargsWatch) result() (*xargsAbort, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.abort, w.failed
}
