package cmd

import (
	"io"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/runner"
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

// contextReplace reports whether a word holding {} beside other text is
// repeated for each item of a job: with -X, -N, and -L (which implies -X
// in GNU parallel, unless -m or --xargs is given), not in pipe mode.
func (c *Config) contextReplace() bool {
	in := &c.Input
	if c.records != nil || c.Xargs {
		return false
	}
	return in.PackContext || c.changed("max-replace-args") || in.MaxLines > 0 && !in.PackMulti
}

// checkPacking validates the packing flags and, when items are packed,
// sets c.pack. Under --xargs the last of -n, -L and -I wins, as in xargs
// (-n 1 beside -I is ignored), and sets c.replace; otherwise -I stands.
func (c *Config) checkPacking() error {
	in := &c.Input
	c.replace = c.Runner.Replace
	if in.PackContext && in.PackMulti {
		return usageErrorf("-X and -m cannot be used together (pick one way of packing)")
	}
	if !c.Xargs {
		if !in.PackContext && !in.PackMulti && in.MaxLines == 0 && in.MaxChars == 0 {
			if in.Exact {
				return usageErrorf("-x needs -X, -m, -L or -s (it limits packed jobs)")
			}
			return nil
		}
		if len(c.sources) > 1 {
			return usageErrorf("-X, -m, -L and -s take a single input source (not a combination of ::: and :::: sources)")
		}
		p := &packSpec{maxArgs: c.maxArgs, maxLines: in.MaxLines, maxChars: in.MaxChars, exact: in.Exact}
		if !in.PackContext && !in.PackMulti && in.MaxLines == 0 {
			p.maxArgs = max(c.maxArgs, 1) // -s alone limits, it does not pack
		}
		if in.PackContext || in.PackMulti {
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
	}{{"--colsep", in.Colsep != nil}, {"--trim", in.Trim != nil}, {"-q", c.Runner.Quote}, {"--link", in.Link}, {"-X", in.PackContext}, {"-m", in.PackMulti}, {"-N", c.changed("max-replace-args")},
		{"--arg-sep", in.ArgSep != ":::"}, {"--arg-file-sep", in.ArgFileSep != "::::"}} {
		if f.given {
			return usageErrorf("%s has no meaning under --xargs, which splits and packs its input as xargs does (drop one of the two)", f.flag)
		}
	}
	switch {
	case c.changed("max-args") && in.MaxArgs < 1:
		return usageErrorf("--max-args: %d is not a count (xargs wants -n 1 or more)", in.MaxArgs)
	case c.changed("max-lines") && in.MaxLines < 1:
		return usageErrorf("--max-lines: %d is not a count (xargs wants -L 1 or more)", in.MaxLines)
	}
	n, lines, replace := in.MaxArgs, in.MaxLines, c.Runner.Replace
	switch c.lastOf("max-args", "max-lines", "replace") {
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
	c.replace = replace
	c.pack = &packSpec{
		maxArgs: n, maxLines: lines, maxChars: in.MaxChars,
		exact:    in.Exact || replace != "" || lines > 0, // -I and -L imply -x, as in xargs
		whole:    replace != "",
		runEmpty: !in.NoRunIfEmpty && replace == "", eof: in.EOF,
	}
	return nil
}

// lastOf returns which of the named flags was given last, or "".
func (o *Options) lastOf(names ...string) string {
	best, at := "", 0
	for _, n := range names {
		if o.given[n] > at {
			best, at = n, o.given[n]
		}
	}
	return best
}

// changed reports whether a flag wrapped by addXargsFlags was given.
func (o *Options) changed(name string) bool { return o.given[name] > 0 }

// packer builds the Packer for a run; lines is where xargs reads its
// arguments (nil outside --xargs: the reader's own records).
func (c *Config) packer(lim runner.ArgLimits, lines input.LineReader) *input.Packer {
	base, cost := c.template.Size()
	limit := lim.Buffer
	if c.pack.maxChars > 0 {
		limit = min(c.pack.maxChars, lim.Usable)
	}
	if !c.Xargs {
		// The command line may go to a shell as one argument: it must fit
		// in one (GNU parallel caps its line length the same way).
		limit = min(limit, runner.MaxArgStrlen)
	}
	return &input.Packer{
		Lines: lines, MaxArgs: c.pack.maxArgs, MaxLines: c.pack.maxLines,
		Limit: limit, Base: base, Cost: cost, Hard: lim.Usable, PerArg: runner.PointerSize,
		MaxItem: runner.MaxArgStrlen - 1,
		Exact:   c.pack.exact, Whole: c.pack.whole, RunEmpty: c.pack.runEmpty,
		Spread: c.pack.spread, CountRecords: !c.Xargs,
	}
}

// xargsLines is the input of --xargs: xargs's quoting, or with -0 and -d
// plain delimited items.
func xargsLines(src io.Reader, c *Config) input.LineReader {
	if c.Input.Null || c.Input.Delimiter != "" {
		return &input.DelimitedLines{Src: input.NewSplitter(src, c.delim)}
	}
	s := input.NewXargsSplitter(src)
	s.EOF, s.Lines = c.pack.eof, c.pack.whole
	return s
}

// xargsInput opens the one input of --xargs: stdin, or the -a file.
func xargsInput(c *Config, stdin io.Reader) (io.Reader, func(), error) {
	s := c.sources[0]
	if s.ReadsStdin() {
		return stdin, func() {}, nil
	}
	f, err := input.OpenFile(s.File)
	if err != nil {
		return nil, nil, &inputError{err}
	}
	return f, func() { f.Close() }, nil
}
