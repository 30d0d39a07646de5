package cmd

import (
	"os/exec"
	"regexp"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// Config is a checked command line: the options as parsed, and what check
// derived from them for the stages, with the streams and the environment
// the run uses.
type Config struct {
	*Options
	Streams Streams
	Env     Env

	jobs       int                // -j for this machine (under --xargs, 1 unless given)
	delim      []byte             // what ends an item
	trim       input.Trim         // --trim, or --colsep's default
	sources    []input.SourceSpec // the -a files, then the positional sources; stdin when none
	maxArgs    int                // -n, or -N's count
	noArgs     bool               // -n 0 or -N 0: one job per item, with no argument from it
	replace    string             // -I, unless under --xargs a later -n or -L cancels it
	lineBuffer bool               // --line-buffer, unless job output goes to --results rows
	template   *runner.Template
	pack       *packSpec          // nil unless items are packed (--xargs, -X, -m, -L, -s)
	records    *input.Records     // pipe mode's records; nil in argument mode
	pipeFiles  []string           // the files pipe mode reads instead of stdin: -a's (and ::::'s with --pipepart)
	teeItems   []input.SourceSpec // --tee's sources of items (::: and, without --pipepart, ::::)
	remote     *remoteSpec        // the hosts of -S; nil without
	sem        *semSpec           // --semaphore; nil without
	shard      input.Shard        // --shard, resolved
	procfile   *runner.ProcFile   // -j FILE; nil without
	auto       *autoSpec          // -j auto; nil without
	counts     *runner.Counts     // the numbers of --plus's {##}, {0#} and {0%}
	colsep     *regexp.Regexp     // --colsep, or a tab with --header in argument mode
	names      map[string]int     // the columns --header named, and their numbers
	columns    []string           // the names --header read, column n's at n-1
	shellPath  string             // the shell of jobs that need one
	texts      texts              // the other texts rendered per job, parsed
	functions  map[string]bool
	// signals are the run's, caught since the command line was read
	// (catchSignals): set by RunE whenever run is reached; nil for
	// --semaphore, which catches none.
	signals *signalCatch
	// warn says a problem found while jobs run (the procfile's) through
	// the sink, once the run has one.
	warn func(string)
	// set reports whether a flag was given on the command line.
	set func(name string) bool
}

// check validates the options before anything runs and derives what the
// stages are built from. It reads the environment from env alone (and
// PATH, through exec.LookPath), and leaves o as it is.
func check(o *Options, streams Streams, env Env, set func(name string) bool) (*Config, error) {
	c := &Config{Options: o, Streams: streams, Env: env, set: set}
	var err error
	if err := c.checkPipe(); err != nil {
		return nil, err
	}
	if err := c.checkJobs(); err != nil {
		return nil, err
	}
	if err := c.checkRemote(); err != nil {
		return nil, err
	}
	if err := c.checkLimits(); err != nil {
		return nil, err
	}
	if c.shard, err = c.checkShard(); err != nil {
		return nil, err
	}
	if o.Input.Pipe.Tee && !c.flagSet("jobs") && !c.flagSet("max-procs") {
		c.jobs = 0 // every job runs at once, as GNU parallel's --tee does
	}
	if c.delim, err = o.Input.delimiter(o.Xargs && o.changed("delimiter")); err != nil {
		return nil, err
	}
	// The input sources in order: the -a files, then the positional ones;
	// stdin when there are none.
	for _, f := range o.Input.ArgFiles {
		c.sources = append(c.sources, input.SourceSpec{File: f})
	}
	c.sources = append(c.sources, o.Input.Sources...)
	if len(c.sources) == 0 {
		c.sources = []input.SourceSpec{{Stdin: true}}
	}
	c.colsep = o.Input.Colsep
	if err := c.checkHeader(); err != nil {
		return nil, err
	}
	if c.colsep != nil {
		c.trim = input.Trim{Left: true, Right: true} // as GNU parallel
	}
	if o.Input.Trim != nil {
		c.trim = *o.Input.Trim
	}
	if c.records == nil { // in pipe mode, -n and -N count records
		c.maxArgs, c.noArgs = o.Input.MaxArgs, o.Input.MaxArgs == 0 && o.changed("max-args")
	}
	if o.changed("max-replace-args") && c.records == nil {
		// -N N is -n N; the template then repeats a word holding {} for
		// each item.
		if o.changed("max-args") {
			return nil, usageErrorf("-n and -N cannot be used together (pick one)")
		}
		c.maxArgs, c.noArgs = o.Input.MaxReplace, o.Input.MaxReplace == 0
	}
	if err := o.Output.check(); err != nil {
		return nil, err
	}
	// Job output goes to the rows of a --results table, whole, and none to
	// stdout: there are no lines to pass on as they come.
	c.lineBuffer = o.Output.LineBuffer && !output.IsResultsTable(o.Output.Results)
	if c.sources[0].Linked {
		return nil, usageErrorf(":::+ and ::::+ link their items to the input source before them, and there is none (use ::: or :::: for the first)")
	}
	if o.Runner.Quote && len(o.Runner.Command) == 0 && !o.Xargs {
		return nil, usageErrorf("-q quotes the words of the command, and none is given (the items are then command lines, which -q would turn into one word each)")
	}
	if dir := o.Output.TmpDir; dir != "" {
		if err := output.UsableDir(dir); err != nil {
			return nil, usageErrorf("--tmpdir: cannot use directory %q: %v (give a directory fan can write in)", dir, err)
		}
	}
	if o.Runner.WorkDir == "..." && c.remote == nil {
		return nil, usageErrorf("--workdir ...: a temporary directory per job is made on remote hosts (-S) only (give a directory, which may hold {})")
	}
	c.counts = &runner.Counts{Jobs: c.jobs}
	functions := runner.ExportedFunctions(env)
	shell, err := c.shell(functions)
	if err != nil {
		return nil, err
	}
	if c.records == nil {
		if err := c.checkPacking(); err != nil {
			return nil, err
		}
	} else {
		c.replace = o.Runner.Replace // -I names {} in pipe mode too
	}
	c.shellPath, c.functions = shell, functions
	if err := c.checkSemaphore(); err != nil {
		return nil, err
	}
	if c.sem != nil {
		return c, nil // one command, run by the shell: no template
	}
	if err := c.buildTemplate(); err != nil {
		return nil, err
	}
	if c.records != nil && c.counts.NeedsTotal() {
		// GNU parallel refuses it too: the blocks are counted only once
		// the input has ended, and it is not read ahead whole.
		return nil, usageErrorf("{##} and {0#} need the number of jobs, which pipe mode knows only once its input has ended (use {#}, the job's number)")
	}
	if d := o.Output.Display; d.Bar && d.NoBar {
		return nil, usageErrorf("--bar and --no-bar cannot be used together (pick one)")
	}
	return c, nil
}

// buildTemplate builds the command template of c's options, with the
// replacement strings of c.syntax(): again once --header has named the
// columns.
func (c *Config) buildTemplate() error {
	o := c.Options
	words := o.Runner.Command
	if o.Xargs && len(words) == 0 {
		words = []string{"echo"} // as in xargs
	}
	sx := c.syntax()
	textErr := c.parseTexts() // reported after the command's own
	c.template = runner.NewTemplate(runner.TemplateOptions{
		Syntax: sx, Words: words, Shell: c.shellPath,
		Argv: o.Xargs, Context: c.contextReplace(),
		NoAppend:  c.records != nil && !o.Input.Pipe.Cat && !o.Input.Pipe.Fifo,
		Block:     c.records != nil && (o.Input.Pipe.Cat || o.Input.Pipe.Fifo),
		Functions: c.functions, Quote: o.Runner.Quote, InDir: c.texts.workDir != nil,
	})
	if err := c.template.Err(); err != nil {
		return usageErrorf("the command: %v", err)
	}
	return textErr
}

// checkJobs sets c.jobs from -j: under --xargs 1 unless given, and only
// a count, as xargs's -P. A procfile is read now, so that one that cannot
// be is an error before any job runs; -j auto starts at the CPU count,
// within its bounds.
func (c *Config) checkJobs() error {
	j := c.Runner.Jobs
	switch {
	case c.Xargs && !j.Given:
		c.jobs = 1 // xargs runs one command at a time
		return nil
	case c.Xargs && j.xargsForm():
		// xargs's -P is a count: no share of the CPUs, nothing to subtract.
		return usageErrorf("--max-procs: %q is not a count (xargs wants -P N, or -P 0 for as many as possible)", j.text)
	case c.Xargs && (j.File != "" || j.Auto):
		_, err := parseCount(j.text)
		return err
	case j.err != nil:
		return j.err
	case j.File != "":
		return c.openProcFile(j.File)
	case j.Auto:
		c.auto = autoBounds(j, runner.CPUs())
		c.jobs = c.auto.start
		return nil
	}
	c.jobs = j.Of(runner.CPUs()) // the affinity mask, lowered by cgroup CPU quotas
	return nil
}

// delimiter is what ends an item: -0, -d (read as xargs reads it with
// xargsD: -d given under --xargs, even empty), or a newline.
func (in *InputOptions) delimiter(xargsD bool) ([]byte, error) {
	switch {
	case in.Null && in.Delimiter != "":
		return nil, usageErrorf("-0 and -d cannot be used together (pick one delimiter)")
	case in.Null:
		return []byte{0}, nil
	case xargsD:
		d, err := input.ParseXargsDelimiter(in.Delimiter)
		if err != nil {
			return nil, usageErrorf("--delimiter: %v", err)
		}
		return []byte{d}, nil
	case in.Delimiter != "":
		d, err := input.ParseDelimiter(in.Delimiter)
		if err != nil {
			return nil, usageErrorf("--delimiter: %v", err)
		}
		return d, nil
	}
	return []byte{'\n'}, nil
}

// check refuses the output flags that contradict each other.
func (out *OutputOptions) check() error {
	switch {
	case (out.Resume || out.ResumeFailed) && (out.Joblog.Path == "" || out.Joblog.Path == "-"):
		return usageErrorf("--resume and --resume-failed need --joblog FILE (the log of the earlier run)")
	case !out.Group:
		return usageErrorf("--group=false is not an output mode (use -u to let jobs write straight through, or --line-buffer)")
	case out.Files && out.LineBuffer:
		return usageErrorf("--files and --line-buffer cannot be used together (a job's file is whole when it ends; pick one)")
	case out.Ungroup && out.KeepOrder:
		return usageErrorf("-u and -k cannot be used together (ungrouped output has no order to keep)")
	}
	return out.checkUngroup()
}

// checkUngroup refuses the output flags that need captured output when
// jobs write straight to fan's stdout (-u). GNU parallel accepts them and
// silently does without: no tags, empty --results files.
func (out *OutputOptions) checkUngroup() error {
	if !out.Ungroup {
		return nil
	}
	switch {
	case out.LineBuffer:
		return usageErrorf("-u and --line-buffer cannot be used together (pick one)")
	case out.Tag || out.TagString != "" || out.CTag || out.CTagString != "":
		flag := "--tag"
		switch {
		case out.TagString != "":
			flag = "--tagstring"
		case out.CTagString != "":
			flag = "--ctagstring"
		case out.CTag:
			flag = "--ctag"
		}
		return usageErrorf("-u and %s cannot be used together (ungrouped output passes fan by; use --line-buffer %s for tagged lines as they come)", flag, flag)
	case out.Results != "":
		return usageErrorf("-u and --results cannot be used together (ungrouped output is not captured, so there is nothing to save)")
	case out.Files:
		return usageErrorf("-u and --files cannot be used together (ungrouped output is not captured, so there is nothing to keep)")
	}
	return nil
}

// shell finds the shell for jobs that need one: --shell, else GNU
// parallel's PARALLEL_SHELL (not for --xargs, which runs none), else bash
// when bash functions are exported (export -f works in bash alone, so the
// jobs run in it as under GNU parallel started from bash), else /bin/sh.
func (c *Config) shell(functions map[string]bool) (string, error) {
	flag, name := "--shell", c.Runner.Shell
	if env := c.Env.Get("PARALLEL_SHELL"); env != "" && !c.changed("shell") && !c.Xargs {
		flag, name = "PARALLEL_SHELL", env
	} else if len(functions) > 0 && !c.changed("shell") {
		if bash, err := exec.LookPath("bash"); err == nil {
			return bash, nil
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", usageErrorf("%s: %q is not a program fan can run (give a shell, e.g. --shell /bin/bash)", flag, name)
	}
	return path, nil
}

// syntax is the replacement strings of the command, --tagstring and the
// other texts rendered per job.
func (c *Config) syntax() runner.Syntax {
	return runner.Syntax{Replace: c.replace, Plus: c.Runner.Plus, Counts: c.counts, Names: c.names, DryRun: c.Runner.DryRun}
}

// linked tells, for each input source, whether it is linked to the one
// before it (:::+, ::::+).
func (c *Config) linked() []bool {
	l := make([]bool, len(c.sources))
	for i, s := range c.sources {
		l[i] = s.Linked
	}
	return l
}
