// Package cmd is fan's command line: the cobra command, the checking of
// options, the wiring of the input, runner and output stages, the signal
// controller, and the only mapping from outcomes to exit statuses.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"fan/output"
	"fan/runner"
)

// Version is fan's version, printed by --version.
const Version = "0.1.0"

// Main runs fan with the given arguments and streams, and returns its exit
// status.
func Main(args []string, stdin io.Reader, stdout, stderr *os.File) int {
	var status int
	c := NewCommand(stdin, stdout, stderr, &status)
	c.SetArgs(args)
	if err := c.Execute(); err != nil {
		fmt.Fprintf(stderr, "fan: %v\n", err)
		return exitStatus(outcome{err: err})
	}
	return status
}

// NewCommand builds fan's cobra command. Running it stores fan's exit status
// in *status.
func NewCommand(stdin io.Reader, stdout, stderr *os.File, status *int) *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:     "fan [flags] [command [args...]] [::: items...] [:::: files...]",
		Short:   "run jobs in parallel: a fast, safe xargs -P and GNU parallel",
		Long:    longHelp,
		Example: examples,
		Version: Version,
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Command, o.Sources = splitArgs(args)
			res := run(o, stdin, stdout, stderr)
			*status = exitStatus(res)
			if errors.Is(res.err, syscall.EPIPE) {
				return nil // the reader went away: leave quietly
			}
			if res.err != nil {
				fmt.Fprintf(stderr, "fan: %v\n", res.err)
			}
			s := res.stats
			if s.Failed > 0 || s.NotStarted > 0 || res.interrupted {
				fmt.Fprintln(stderr, output.Summary(s, o.Failures))
			}
			return nil
		},
		SilenceErrors:         true,
		SilenceUsage:          true,
		DisableFlagsInUseLine: true,
	}
	c.CompletionOptions.DisableDefaultCmd = true
	c.SetVersionTemplate("fan {{.Version}}\n")
	c.SetOut(stdout)
	c.SetErr(stderr)
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErrorf("%v (see fan --help)", err)
	})
	f := c.Flags()
	f.SetInterspersed(false) // everything after the command is the command's
	f.SortFlags = false
	f.StringVarP(&o.Jobs, "jobs", "j", "", "run `N` jobs at once: N, N% or +N/-N of the CPUs, 0 = no limit (default: CPU count)")
	f.StringVarP(&o.Jobs, "max-procs", "P", "", "same as --jobs")
	f.BoolVarP(&o.KeepOrder, "keep-order", "k", false, "write results in input order (jobs still run in parallel)")
	f.BoolVar(&o.Group, "group", true, "write each job's output whole when it ends (the default)")
	f.BoolVarP(&o.Ungroup, "ungroup", "u", false, "let jobs write straight to stdout and stderr (fastest; lines may mix)")
	f.StringArrayVarP(&o.ArgFiles, "arg-file", "a", nil, "read items from `FILE` (- is stdin); repeatable")
	f.BoolVarP(&o.Null, "null", "0", false, "items end with a NUL byte, not a newline")
	f.StringVarP(&o.Delimiter, "delimiter", "d", "", "items end with `DELIM` (\\n \\t \\0 \\\\ \\xHH understood)")
	f.StringVar(&o.Colsep, "colsep", "", "split each item into columns {1} {2} ... at `REGEX`")
	f.BoolVarP(&o.NoRunIfEmpty, "no-run-if-empty", "r", false, "skip items that are empty or only blanks")
	f.IntVarP(&o.MaxArgs, "max-args", "n", 0, "put up to `N` items in each job ({} is all, {1}..{N} each)")
	f.StringVarP(&o.Replace, "replace", "I", "", "use `STR` instead of {} for the whole item")
	f.BoolVar(&o.Link, "link", false, "zip several input sources instead of combining every item of each")
	f.StringVar(&o.Shell, "shell", "/bin/sh", "run commands that need a shell with `PATH`")
	f.StringVar(&o.TermSeq, "termseq", runner.DefaultTermSeq, "how to stop a job: `SEQ` of signals and milliseconds to wait")
	f.StringVar(&o.Timeout, "timeout", "", "kill a job running longer than `D` (30, 1.5s, 2m, or N% of the median runtime)")
	f.IntVar(&o.Retries, "retries", 0, "run a failing job up to `N` times in all")
	f.StringVar(&o.RetryDelay, "retry-delay", "", "wait `D` before the first retry, doubling each time (the job holds no slot meanwhile)")
	f.StringVar(&o.Delay, "delay", "", "start jobs at least `D` apart")
	f.StringVar(&o.Halt, "halt", "never", "stop early: `WHEN,WHY=N` with now|soon, fail|success|done, N or N%")
	f.StringVar(&o.Failures, "failures", "", "write every item that did not succeed to `FILE` (and FILE.jsonl), ready for fan -a FILE")
	f.StringVar(&o.Joblog, "joblog", "", "log each job to `FILE` in GNU parallel's format")
	f.BoolVar(&o.Resume, "resume", false, "with --joblog: skip the jobs the log shows as run")
	f.BoolVar(&o.ResumeFailed, "resume-failed", false, "with --joblog: skip the jobs the log shows as succeeded, re-run the failed ones")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the commands instead of running them")
	f.BoolVarP(&o.Verbose, "verbose", "t", false, "print each command on stderr before it runs")
	f.BoolP("help", "h", false, "show this help")
	f.Bool("version", false, "print fan's version")
	f.Lookup("max-procs").Hidden = true
	return c
}
