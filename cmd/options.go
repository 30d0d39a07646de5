package cmd

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"fan/input"
	"fan/output"
	"fan/runner"
)

// Options is everything fan was asked to do, as plain values: the flags
// after parsing, and the positional arguments split into the command and
// its input sources.
type Options struct {
	Jobs         string
	KeepOrder    bool
	ArgFiles     []string
	Null         bool
	Delimiter    string
	Colsep       string
	Trim         string
	NoRunIfEmpty bool
	MaxArgs      int
	// NoArgs is -n 0: one job per item, with no argument from it.
	NoArgs bool
	// MaxReplace is -N: -n whose words holding {} beside other text are
	// repeated for each item, as with -X (GNU parallel's -N).
	MaxReplace int
	Replace    string
	Link       bool
	// ArgSep and ArgFileSep start lists of items and of input files
	// (::: and :::: unless --arg-sep and --arg-file-sep say otherwise).
	ArgSep, ArgFileSep string
	Shell              string
	DryRun             bool
	Verbose            bool
	Ungroup            bool
	Group              bool
	LineBuffer         bool
	Tag                bool
	TagString          string
	Results            string
	TmpDir             string
	Quote              bool
	WorkDir            string
	TermSeq            string
	Timeout            string
	Retries            int
	RetryDelay         string
	Delay              string
	Halt               string
	DrainTimeout       string
	Failures           string
	Joblog             string
	Resume             bool
	ResumeFailed       bool
	Bar                bool
	NoBar              bool
	ETA                bool
	Progress           bool
	Color              string
	Completion         string

	// The xargs drop-in and packing flags (see addXargsFlags).
	Xargs          bool
	PackContext    bool // -X
	PackMulti      bool // -m
	MaxLines       int
	MaxChars       int
	Exact          bool // -x
	EOFString      string
	ProcessSlotVar string
	ShowLimits     bool
	// last records the order in which -n, -L and -I were given: under
	// --xargs the last of them wins, as in xargs.
	last map[string]int
	// joblogAppend: --joblog +FILE appends to FILE, as in GNU parallel.
	joblogAppend bool

	// Command is the command template's words.
	Command []string
	// Sources are the ::: lists and :::: files, after the -a files.
	Sources []input.SourceSpec
}

// separators are the arguments that start a group of input sources:
// items (:::, --arg-sep) and files (::::, --arg-file-sep).
type separators struct{ items, files string }

// of tells what an argument starts: a group of items or of files, linked
// to the source before it (:::+, ::::+), or nothing (ok false).
func (s separators) of(arg string) (files, linked, ok bool) {
	base, linked := strings.CutSuffix(arg, "+")
	switch arg {
	case s.items, s.files:
		return arg == s.files, false, true
	case s.items + "+", s.files + "+":
		return base == s.files, linked, true
	}
	return false, false, false
}

// splitArgs separates the command words from the ::: and :::: groups (and
// their linked forms :::+ and ::::+), or the separators --arg-sep and
// --arg-file-sep give.
func splitArgs(args []string, seps separators) (command []string, sources []input.SourceSpec) {
	isSeparator := func(arg string) bool {
		_, _, ok := seps.of(arg)
		return ok
	}
	i := 0
	for i < len(args) && !isSeparator(args[i]) {
		i++
	}
	command = args[:i]
	for i < len(args) {
		files, linked, _ := seps.of(args[i])
		i++
		start := i
		for i < len(args) && !isSeparator(args[i]) {
			i++
		}
		if !files {
			sources = append(sources, input.SourceSpec{List: args[start:i], Linked: linked})
			continue
		}
		for _, f := range args[start:i] {
			sources = append(sources, input.SourceSpec{File: f, Linked: linked})
		}
	}
	return command, sources
}

// config is Options checked and turned into what the stages need.
type config struct {
	jobs     int
	delim    []byte
	colsep   *regexp.Regexp
	trim     input.Trim
	termSeq  runner.TermSeq
	template *runner.Template
	sources  []input.SourceSpec
	timeout  runner.Timeout
	retryGap time.Duration
	delay    time.Duration
	halt     runner.Halt
	// drainTimeout is how long a drain may last before running jobs are
	// terminated; 0 is forever.
	drainTimeout time.Duration
	pack         *packSpec // nil unless items are packed (--xargs, -X, -m, -L, -s)
	argv         bool      // --xargs: commands are argv, never shell lines
}

// linked tells, for each input source, whether it is linked to the one
// before it (:::+, ::::+).
func (c *config) linked() []bool {
	l := make([]bool, len(c.sources))
	for i, s := range c.sources {
		l[i] = s.Linked
	}
	return l
}

// readsStdin reports whether stdin is one of the run's input sources.
func (c *config) readsStdin() bool {
	return slices.ContainsFunc(c.sources, input.SourceSpec.ReadsStdin)
}

// check validates the options before anything runs.
func (o *Options) check() (*config, error) {
	c := &config{}
	var err error
	if o.Xargs && o.Jobs == "" {
		o.Jobs = "1" // xargs runs one command at a time
	}
	if o.Xargs && (strings.HasPrefix(o.Jobs, "-") || strings.HasSuffix(o.Jobs, "%")) {
		// xargs's -P is a count: no share of the CPUs, nothing to subtract.
		return nil, usageErrorf("--max-procs: %q is not a count (xargs wants -P N, or -P 0 for as many as possible)", o.Jobs)
	}
	if c.jobs, err = parseJobs(o.Jobs, runtime.NumCPU()); err != nil {
		return nil, err
	}
	switch {
	case o.Null && o.Delimiter != "":
		return nil, usageErrorf("-0 and -d cannot be used together (pick one delimiter)")
	case o.Null:
		c.delim = []byte{0}
	case o.Xargs && o.changed("delimiter"):
		d, err := input.ParseXargsDelimiter(o.Delimiter)
		if err != nil {
			return nil, usageErrorf("--delimiter: %v", err)
		}
		c.delim = []byte{d}
	case o.Delimiter != "":
		if c.delim, err = input.ParseDelimiter(o.Delimiter); err != nil {
			return nil, usageErrorf("--delimiter: %v", err)
		}
	default:
		c.delim = []byte{'\n'}
	}
	if o.Colsep != "" {
		if c.colsep, err = regexp.Compile(o.Colsep); err != nil {
			return nil, usageErrorf("--colsep: %q is not a regular expression: %v", o.Colsep, err)
		}
		c.trim = input.Trim{Left: true, Right: true} // as GNU parallel
	}
	if o.Trim != "" {
		if c.trim, err = input.ParseTrim(o.Trim); err != nil {
			return nil, usageErrorf("--trim: %v", err)
		}
	}
	if o.MaxArgs < 0 {
		return nil, usageErrorf("--max-args: %d is negative (try -n 2)", o.MaxArgs)
	}
	if err := o.takeMaxReplace(); err != nil {
		return nil, err
	}
	if c.termSeq, err = runner.ParseTermSeq(o.TermSeq); err != nil {
		return nil, usageErrorf("--termseq: %v", err)
	}
	if o.Timeout != "" {
		if c.timeout, err = runner.ParseTimeout(o.Timeout); err != nil {
			return nil, usageErrorf("--timeout: %v", err)
		}
	}
	if o.RetryDelay != "" {
		if c.retryGap, err = runner.ParseDuration(o.RetryDelay); err != nil {
			return nil, usageErrorf("--retry-delay: %v", err)
		}
	}
	if o.Delay != "" {
		if c.delay, err = runner.ParseDuration(o.Delay); err != nil {
			return nil, usageErrorf("--delay: %v", err)
		}
	}
	if o.DrainTimeout != "" {
		if c.drainTimeout, err = runner.ParseDuration(o.DrainTimeout); err != nil {
			return nil, usageErrorf("--drain-timeout: %v", err)
		}
	}
	if o.Retries < 0 {
		return nil, usageErrorf("--retries: %d is negative (try --retries 3)", o.Retries)
	}
	if c.halt, err = runner.ParseHalt(o.Halt); err != nil {
		return nil, usageErrorf("--halt: %v", err)
	}
	if o.TagString != "" {
		// \t, \n, octal: the escapes GNU parallel reads in --tagstring.
		tag, err := input.Unescape(o.TagString)
		if err != nil {
			return nil, usageErrorf("--tagstring: %v", err)
		}
		o.TagString = string(tag)
	}
	if rest, ok := strings.CutPrefix(o.Joblog, "+"); ok && rest != "" {
		o.Joblog, o.joblogAppend = rest, true
	}
	if (o.Resume || o.ResumeFailed) && (o.Joblog == "" || o.Joblog == "-") {
		return nil, usageErrorf("--resume and --resume-failed need --joblog FILE (the log of the earlier run)")
	}
	if !o.Group {
		return nil, usageErrorf("--group=false is not an output mode (use -u to let jobs write straight through, or --line-buffer)")
	}
	if o.Ungroup && o.KeepOrder {
		return nil, usageErrorf("-u and -k cannot be used together (ungrouped output has no order to keep)")
	}
	if err := o.checkUngroup(); err != nil {
		return nil, err
	}
	if output.IsResultsTable(o.Results) {
		// Job output goes to the rows of the --results file, whole, and
		// none to stdout: there are no lines to pass on as they come.
		o.LineBuffer = false
	}
	for _, f := range o.ArgFiles {
		c.sources = append(c.sources, input.SourceSpec{File: f})
	}
	c.sources = append(c.sources, o.Sources...)
	if len(c.sources) == 0 {
		c.sources = []input.SourceSpec{{Stdin: true}}
	}
	if c.sources[0].Linked {
		return nil, usageErrorf(":::+ and ::::+ link their items to the input source before them, and there is none (use ::: or :::: for the first)")
	}
	if o.Quote && len(o.Command) == 0 && !o.Xargs {
		return nil, usageErrorf("-q quotes the words of the command, and none is given (the items are then command lines, which -q would turn into one word each)")
	}
	if o.TmpDir != "" {
		if err := output.UsableDir(o.TmpDir); err != nil {
			return nil, usageErrorf("--tmpdir: cannot use directory %q: %v (give a directory fan can write in)", o.TmpDir, err)
		}
	}
	if o.WorkDir == "..." {
		return nil, usageErrorf("--workdir ...: GNU parallel's temporary directory per job is not supported (give a directory, which may hold {})")
	}
	functions := exportedFunctions(os.Environ())
	shell, err := o.shell(functions)
	if err != nil {
		return nil, err
	}
	if err := o.checkPacking(c); err != nil {
		return nil, err
	}
	words := o.Command
	c.argv = o.Xargs
	if o.Xargs && len(words) == 0 {
		words = []string{"echo"} // as in xargs
	}
	c.template = runner.NewTemplate(runner.TemplateOptions{
		Words: words, Replace: o.Replace, Shell: shell,
		Argv: o.Xargs, Context: o.PackContext || o.changed("max-replace-args"),
		Functions: functions, Quote: o.Quote, InDir: workDir(o) != nil,
	})
	if err := c.template.Err(); err != nil {
		return nil, usageErrorf("the command: %v", err)
	}
	return c, nil
}

// shell finds the shell for jobs that need one: --shell, else GNU
// parallel's PARALLEL_SHELL (not for --xargs, which runs none), else bash when bash functions are exported
// (export -f works in bash alone, so the jobs run in it as under GNU
// parallel started from bash), else /bin/sh.
func (o *Options) shell(functions map[string]bool) (string, error) {
	flag, name := "--shell", o.Shell
	if env := os.Getenv("PARALLEL_SHELL"); env != "" && !o.changed("shell") && !o.Xargs {
		flag, name = "PARALLEL_SHELL", env
	} else if len(functions) > 0 && !o.changed("shell") {
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

// exportedFunctions are the names of the shell functions bash exported
// into env (export -f puts each in BASH_FUNC_name%%).
func exportedFunctions(env []string) map[string]bool {
	var names map[string]bool
	for _, kv := range env {
		rest, ok := strings.CutPrefix(kv, "BASH_FUNC_")
		name, _, isFunc := strings.Cut(rest, "%%=")
		if ok && isFunc && name != "" {
			if names == nil {
				names = map[string]bool{}
			}
			names[name] = true
		}
	}
	return names
}

// takeMaxReplace turns -N N into -n N; the template then repeats a word
// holding {} for each item (see check).
func (o *Options) takeMaxReplace() error {
	if !o.changed("max-replace-args") {
		return nil
	}
	switch {
	case o.changed("max-args"):
		return usageErrorf("-n and -N cannot be used together (pick one)")
	case o.MaxReplace < 0:
		return usageErrorf("--max-replace-args: %d is negative (try -N 2)", o.MaxReplace)
	}
	o.MaxArgs, o.NoArgs = o.MaxReplace, o.MaxReplace == 0
	return nil
}

// checkUngroup refuses the output flags that need captured output when
// jobs write straight to fan's stdout (-u). GNU parallel accepts them and
// silently does without: no tags, empty --results files.
func (o *Options) checkUngroup() error {
	if !o.Ungroup {
		return nil
	}
	switch {
	case o.LineBuffer:
		return usageErrorf("-u and --line-buffer cannot be used together (pick one)")
	case o.Tag || o.TagString != "":
		flag := "--tag"
		if o.TagString != "" {
			flag = "--tagstring"
		}
		return usageErrorf("-u and %s cannot be used together (ungrouped output passes fan by; use --line-buffer %s for tagged lines as they come)", flag, flag)
	case o.Results != "":
		return usageErrorf("-u and --results cannot be used together (ungrouped output is not captured, so there is nothing to save)")
	}
	return nil
}

// tagger returns what starts each output line of a job (--tag,
// --tagstring), or nil.
func (o *Options) tagger() func(*runner.Result) string {
	switch {
	case o.TagString != "":
		t := runner.NewText(o.TagString, o.Replace)
		return func(r *runner.Result) string { return t.Render(&r.Item, r.Slot) }
	case o.Tag:
		return func(r *runner.Result) string { return strings.Join(r.Item.Args, " ") }
	}
	return nil
}
