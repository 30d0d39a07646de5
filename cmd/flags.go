package cmd

import (
	"github.com/spf13/pflag"

	"github.com/fan-run/fan/runner"
)

// addFlags registers every flag of fan on f, group by group, in the order
// --help and the man page list them.
func addFlags(f *pflag.FlagSet, o *Options) {
	addInputFlags(f, o)
	addPipeFlags(f, o)
	addCommandFlags(f, o)
	addExecFlags(f, o)
	addOutputFlags(f, o)
	addBookkeepingFlags(f, o)
	addRemoteFlags(f, o)
	addTerminalFlags(f, o)
	addXargsFlags(f, o)
	addConfigFlags(f, o)
	addSemaphoreFlags(f, o)
	f.BoolP("help", "h", false, "show this help")
	f.Bool("version", false, "print fan's version")
	f.SetNormalizeFunc(spellingOver(f)) // last: it looks at every flag's name
}

// addInputFlags: where items come from and how they are split and batched.
func addInputFlags(f *pflag.FlagSet, o *Options) {
	stringArrayVar(f, &o.Input.ArgFiles, "arg-file", "a", "read items from `FILE` (- is stdin); repeatable")
	f.BoolVarP(&o.Input.Null, "null", "0", false, "items end with a NUL byte, not a newline")
	f.StringVarP(&o.Input.Delimiter, "delimiter", "d", "", "items end with `DELIM` (\\n \\t \\0 \\\\ \\xHH understood)")
	regexpVarP(f, &o.Input.Colsep, "colsep", "C", "split each item into columns {1} {2} ... at `REGEX` (and trim them: see --trim)")
	trimVar(f, &o.Input.Trim, "trim", "trim white space off each argument: `HOW` is n (none), l (left), r (right) or lr (both; the default with --colsep)")
	f.BoolVarP(&o.Input.NoRunIfEmpty, "no-run-if-empty", "r", false, "skip items that are empty or only blanks")
	countVarP(f, &o.Input.MaxArgs, "max-args", "n", 0, "--max-args: %d is negative (try -n 2)", "put up to `N` items in each job ({} is all, {1}..{N} each; 0: one item per job, not passed)")
	countVarP(f, &o.Input.MaxReplace, "max-replace-args", "N", 0, "--max-replace-args: %d is negative (try -N 2)", "as -n `N`, and a word holding {} beside other text is repeated for each item, as with -X")
	f.StringVar(&o.Input.ArgSep, "arg-sep", ":::", "start a list of items with `SEP` instead of :::")
	f.StringVar(&o.Input.ArgFileSep, "arg-file-sep", "::::", "start a list of input files with `SEP` instead of ::::")
	f.BoolVar(&o.Input.Link, "link", false, "zip several input sources instead of combining every item of each")
	f.BoolVar(&o.Input.Shuf, "shuf", false, "run the jobs in a random order (all of the input is read first; {#} counts in that order)")
	shardVar(f, &o.Input.Shard, "shard", "take only every Nth item: `I/N` takes items I, I+N, I+2N ... (counted from 0); auto or auto/N reads I (and N) from a Slurm job array or a Kubernetes Indexed Job")
}

// addPipeFlags: pipe mode, where jobs read blocks of the input on stdin.
func addPipeFlags(f *pflag.FlagSet, o *Options) {
	p := &o.Input.Pipe
	f.BoolVar(&p.Pipe, "pipe", false, "cut stdin into blocks and give each to a job on its stdin (-N or -n, and -L, then count records)")
	f.BoolVar(&p.PipePart, "pipepart", false, "as --pipe, for the files of -a (or ::::), which jobs read a part of each without passing through fan")
	sizeVar(f, &p.Block, "block", "blocks of about `SIZE` bytes (k, M, G: 1000s; K, M, G: 1024s; default 1M; --pipepart -N: N per job slot)")
	optionalStringVar(f, &p.RecStart, "recstart", "records start with `STR` (blocks are cut before it)")
	optionalStringVar(f, &p.RecEnd, "recend", "records end with `STR` (default \\n; blocks are cut after it)")
	f.BoolVar(&p.Regexp, "regexp", false, "--recstart and --recend are regular expressions")
	f.StringVar(&p.Header, "header", "", "the input starts with a header matching `REGEX` (: is one line), repeated at the start of every block; without --pipe, the first record of each source names its columns, {name} (0: name file sources by their file names)")
	f.BoolVar(&p.Cat, "cat", false, "{} names a temporary file holding the block, removed when the job ends (appended if the command has no {}; implies --pipe)")
	f.BoolVar(&p.Fifo, "fifo", false, "{} names a temporary FIFO the block is written into, removed when the job ends (appended if the command has no {}; implies --pipe)")
	f.BoolVar(&p.RoundRobin, "round-robin", false, "long-running jobs, at most one per slot: each of the first blocks starts one, the rest are dealt to them in turn")
	f.BoolVar(&p.Tee, "tee", false, "give all of the input to every job (one job per ::: item, all at once)")
}

// addCommandFlags: how each job's command is built.
func addCommandFlags(f *pflag.FlagSet, o *Options) {
	f.StringVarP(&o.Runner.Replace, "replace", "I", "", "use `STR` instead of {} for the whole item")
	f.BoolVar(&o.Runner.Plus, "plus", false, "add GNU parallel's further replacement strings: {..} {+.} {+/} {##} {0#} {:-STR} {#RE} {%RE} {/RE/STR} {^RE} {host} {sshlogin} and the rest (see docs/reference.md)")
	f.BoolVarP(&o.Runner.Quote, "quote", "q", false, "keep each word of the command one word as given, shell characters and all ({} still works)")
	f.StringVar(&o.Runner.WorkDir, "workdir", "", "run each job in `DIR`, made if missing (it may hold {} and the like; also --wd)")
	f.StringVar(&o.Runner.Shell, "shell", "/bin/sh", "run commands that need a shell with `PATH`")
	f.BoolVar(&o.Runner.DryRun, "dry-run", false, "print the commands instead of running them")
	f.BoolVarP(&o.Output.Verbose, "verbose", "t", false, "print each command on stderr before it runs")
}

// addExecFlags: how many jobs run, and how they are timed, retried and
// stopped.
func addExecFlags(f *pflag.FlagSet, o *Options) {
	jobsVarP(f, &o.Runner.Jobs, "jobs", "j", "run `N` jobs at once: N, N% or +N/-N of the CPUs, 0 = no limit, auto[:MIN:MAX] to adapt, or a FILE holding one, read again as jobs end (default: CPU count)")
	jobsVarP(f, &o.Runner.Jobs, "max-procs", "P", "same as --jobs")
	f.Lookup("max-procs").Hidden = true
	termSeqVar(f, &o.Runner.TermSeq, "termseq", runner.DefaultTermSeq, "how to stop a job: `SEQ` of signals and milliseconds to wait")
	timeoutVar(f, &o.Runner.Timeout, "timeout", "kill a job running longer than `D` (30, 1.5s, 2m, 1m30, 1d2h, 250ms, or N% of the median runtime)")
	intVarP(f, &o.Runner.Retries, "retries", "", 0, "--retries: %d is negative (try --retries 3)", "run a failing job up to `N` times in all (each retry is said on stderr, unless --quiet)")
	durationVar(f, &o.Runner.RetryDelay, "retry-delay", "wait `D` before the first retry, doubling each time (the job holds no slot meanwhile)")
	f.IntVar(&o.Runner.Nice, "nice", 0, "run the jobs at nice value `N` (higher is kinder to the rest of the machine; below fan's own needs root)")
	durationVar(f, &o.Runner.Delay, "delay", "start jobs at least `D` apart")
	durationVar(f, &o.DrainTimeout, "drain-timeout", "after a signal, let running jobs finish for at most `D`, then stop them (default: 10s after SIGTERM, for ever after Ctrl-C or SIGHUP)")
	haltVar(f, &o.Runner.Halt, "halt", "never", "stop early: `WHEN,WHY=N` with now|soon, fail|success|done, N or N%")
	addLimitFlags(f, o)
}

// addOutputFlags: how job output reaches fan's stdout and stderr.
func addOutputFlags(f *pflag.FlagSet, o *Options) {
	f.BoolVarP(&o.Output.KeepOrder, "keep-order", "k", false, "write results in input order (jobs still run in parallel; the job whose turn it is writes as it runs)")
	f.BoolVar(&o.Output.Group, "group", true, "write each job's output whole when it ends")
	f.BoolVarP(&o.Output.Ungroup, "ungroup", "u", false, "let jobs write straight to stdout and stderr (fastest; lines may mix)")
	f.BoolVar(&o.Output.LineBuffer, "line-buffer", false, "write whole lines as jobs produce them (lines never mix)")
	f.BoolVar(&o.Output.LineBuffer, "lb", false, "same as --line-buffer")
	f.BoolVar(&o.Output.Tag, "tag", false, "start each output line with the job's input and a tab")
	escapedVar(f, &o.Output.TagString, "tagstring", "start each output line with `STR` (replacement strings allowed) and a tab")
	f.BoolVar(&o.Output.CTag, "ctag", false, "as --tag, each job's tag on a color of its own when stdout is a terminal (see --color)")
	escapedVar(f, &o.Output.CTagString, "ctagstring", "as --tagstring `STR`, in color as --ctag")
	f.StringVar(&o.Output.Results, "results", "", "also save each job's stdout, stderr and exit status under `DIR` (or in files named by DIR, when it holds {}; or as rows of DIR alone, when it ends in .csv, .tsv or .json)")
	f.BoolVar(&o.Output.Files, "files", false, "keep each job's stdout in a file of its own in --tmpdir (kept until you remove it) and print the file's name instead")
	f.StringVar(&o.Output.TmpDir, "tmpdir", "", "keep captured job output past what fits in memory in `DIR`, and give jobs TMPDIR=DIR (default: $TMPDIR, else /tmp)")
}

// addBookkeepingFlags: the records fan keeps of a run.
func addBookkeepingFlags(f *pflag.FlagSet, o *Options) {
	f.StringVar(&o.Output.Failures, "failures", "", "write every item that did not succeed to `FILE` (and FILE.jsonl), ready for fan -a FILE")
	joblogVar(f, &o.Output.Joblog, "joblog", "log each job to `FILE` in GNU parallel's format (+FILE appends)")
	f.BoolVar(&o.Output.Resume, "resume", false, "with --joblog: skip the jobs the log shows as run")
	f.BoolVar(&o.Output.ResumeFailed, "resume-failed", false, "with --joblog: skip the jobs the log shows as succeeded, re-run the failed ones")
}

// addTerminalFlags: what fan shows on the terminal besides the jobs' output
// (progress, colors), and its shell completions.
func addTerminalFlags(f *pflag.FlagSet, o *Options) {
	f.BoolVar(&o.Output.Display.Bar, "bar", false, "show a progress bar on stderr, even when stderr is not a terminal (default: on a terminal only); in pipe mode it counts bytes read and blocks done")
	f.BoolVar(&o.Output.Display.NoBar, "no-bar", false, "never show the progress bar")
	f.BoolVar(&o.Output.Display.ETA, "eta", false, "show the estimated time left on stderr, as GNU parallel's --eta (off a terminal, a line at most each second)")
	f.BoolVar(&o.Output.Display.Progress, "progress", false, "show jobs running and done on stderr, as GNU parallel's --progress (off a terminal, a line at most each second)")
	f.BoolVar(&o.Output.Quiet, "quiet", false, "say nothing of retries, nor that items are read from the terminal (errors and the summary of a failed run are still said)")
	colorVar(f, &o.Output.Display.Color, "color", "auto", "when to color fan's messages: `WHEN` is auto (on a terminal, unless NO_COLOR is set), always or never")
	f.StringVar(&o.Completion, "completion", "", "print the completion script for `SHELL` (bash, zsh or fish) and exit")
	// GNU parallel's ways to silence its citation notice, which fan does
	// not print: taken and ignored, so that scripts written for parallel
	// run unchanged.
	for _, name := range []string{"will-cite", "no-notice"} {
		f.Bool(name, false, "ignored, as fan prints no citation notice")
		f.Lookup(name).Hidden = true
	}
}

// addXargsFlags: packing several items into one command, and the xargs
// drop-in. It wraps -n, -N, -L, -I, -s, -d and --shell to record whether
// and in which order they were given (all but -L and -s are registered
// earlier).
func addXargsFlags(f *pflag.FlagSet, o *Options) {
	f.BoolVar(&o.Xargs, "xargs", false, "be GNU xargs: split input on blanks with its quoting, pack items, exec without a shell, its exit codes (default -P 1)")
	f.BoolVarP(&o.Input.PackContext, "context-replace", "X", false, "put as many items in each job as fit (the last spread over the job slots); a word holding {} is repeated for each")
	f.BoolVarP(&o.Input.PackMulti, "multi-args", "m", false, "put as many items in each job as fit (the last spread over the job slots); {} is all of them")
	countVarP(f, &o.Input.MaxLines, "max-lines", "L", 0, "--max-lines: %d is negative (try -L 1)", "put `N` input lines in each job (a line ending with a blank goes on with the next)")
	countVarP(f, &o.Input.MaxChars, "max-chars", "s", 1, "--max-chars: %d is not a size (try -s 4096)", "limit each command line to `N` characters")
	f.BoolVarP(&o.Input.Exact, "exit", "x", false, "fail when the items -n or -L put in a job do not fit in -s")
	f.StringVarP(&o.Input.EOF, "eof", "E", "", "input ends at an item equal to `STR` (it and the rest do not run)")
	f.StringVar(&o.Runner.ProcessSlotVar, "process-slot-var", "", "set the environment variable `NAME` to the job's slot, counted from 0")
	f.BoolVar(&o.ShowLimits, "show-limits", false, "print the command-line size limits on stderr before running")
	o.given = map[string]int{}
	for _, name := range []string{"max-args", "max-replace-args", "max-lines", "replace", "max-chars", "delimiter", "shell"} {
		fl := f.Lookup(name)
		fl.Value = &ordered{Value: fl.Value, name: name, last: o.given}
	}
}

// mayBeEmpty are the string flags whose empty value means something: a tag
// of no text, no end-of-input string, the default delimiter (as in GNU
// parallel; xargs's -d refuses it on its own).
var mayBeEmpty = map[string]bool{"tagstring": true, "ctagstring": true, "eof": true, "delimiter": true, "recstart": true, "recend": true}

// refuseEmpty fails on a plain string flag (--results, --shell...) given
// an empty value, which would otherwise quietly mean the default, as if it
// had not been given. The typed flags (values.go) refuse one as they are
// read.
func refuseEmpty(f *pflag.FlagSet, xargs bool) error {
	var err error
	f.Visit(func(fl *pflag.Flag) {
		if err == nil && fl.Value.Type() == "string" && fl.Value.String() == "" && !mayBeEmpty[fl.Name] {
			e := emptyError(fl.Name)
			e.xargs = xargs
			err = e
		}
	})
	return err
}

// ordered is a flag value that records when it was last set.
type ordered struct {
	pflag.Value
	name string
	last map[string]int
}

func (v *ordered) Set(s string) error {
	v.last[v.name] = maxOrder(v.last) + 1
	return v.Value.Set(s)
}

func maxOrder(m map[string]int) int {
	n := 0
	for _, v := range m {
		n = max(n, v)
	}
	return n
}
