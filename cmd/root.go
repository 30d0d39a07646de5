// Package cmd is fan's command line: the cobra command, the checking of
// options, the wiring of the input, runner and output stages, the signal
// controller, and the only mapping from outcomes to exit statuses.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Main runs fan with the given arguments and streams, and returns its exit
// status. It is the one place that reads the process's environment.
func Main(args []string, stdin io.Reader, stdout, stderr *os.File) int {
	if filepath.Base(os.Args[0]) == SemName {
		args = append([]string{"--semaphore"}, args...) // GNU parallel's sem
	}
	status := 0
	env := Env(os.Environ())
	c := NewCommand(Streams{In: stdin, Out: stdout, Err: stderr, catch: true}, env, func(cfg *Config) error {
		status = report(cfg, run(cfg))
		return nil
	})
	if err := execute(c, env, args); err != nil {
		fmt.Fprintf(stderr, "fan: %v\n", err)
		return exitStatus(outcome{err: err})
	}
	return status
}

// execute runs the command c, built by NewCommand over env, on args. It
// first rewrites xargs's optional-argument forms, which pflag cannot
// parse, and puts in front the default options of the config file, the
// environment and -J (configured). A
// flag's value refused as it was read counts as refused under --xargs
// (xargs's exit status) when --xargs is among the flags, even after it,
// as it did when values were checked after parsing.
func execute(c *cobra.Command, env Env, args []string) error {
	f := c.Flags()
	rewritten, xargs := xargsOptionalForms(f, args)
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		plainUsages(c) // a completion script is asking: see plainUsages
	} else {
		var err error
		rewritten, err = configured(env, rewritten, func() *pflag.FlagSet { return NewCommand(Streams{}, env, nil).Flags() })
		if err != nil {
			return err
		}
	}
	c.SetArgs(rewritten)
	err := c.Execute()
	var ue *usageError
	if errors.As(err, &ue) && ue.parsed {
		ue.xargs = ue.xargs || xargs
	}
	return err
}

// flagErrorText is the message for a flag the parser refused: for a
// number that is not one, the flag and the value, without the parser's
// internals ("strconv.ParseInt: parsing ...").
func flagErrorText(err error) string {
	var bad *pflag.InvalidValueError
	var num *strconv.NumError
	if errors.As(err, &bad) && errors.As(err, &num) {
		return fmt.Sprintf("--%s: %q is not a whole number", bad.GetFlag().Name, bad.GetValue())
	}
	return err.Error()
}

// RunFunc runs fan on a checked command line. Main passes the real run; a
// test passes one that keeps the Config, to see what argv turned into
// without running anything.
type RunFunc func(*Config) error

// NewCommand builds fan's cobra command over the streams and the
// environment env (os.Environ() in production). Running it parses the
// flags into Options, each into a typed value as it is read, checks them
// (check), and hands the checked Config to runF. A refused flag or
// command line is the error it returns.
func NewCommand(streams Streams, env Env, runF RunFunc) *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:     "fan [flags] [command [args...]] [::: items...] [:::: files...]",
		Short:   "run jobs in parallel: a fast, safe xargs -P and GNU parallel",
		Long:    longHelp,
		Example: exampleHelp(),
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if v, _ := c.Flags().GetBool("version"); v {
				return printVersion(c)
			}
			if err := refuseEmpty(c.Flags(), o.Xargs); err != nil {
				return err
			}
			if o.Completion != "" {
				return writeCompletion(c, o.Completion, streams.Out)
			}
			if err := o.takeArgs(args); err != nil {
				return err
			}
			var sigs *signalCatch
			if streams.catch && !o.Sem.On {
				// Caught while the options are checked and the run set
				// up, off the way to the first job (signalCatch).
				sigs = catchSignals(o.Xargs)
				defer sigs.release()
			}
			cfg, err := check(o, streams, env, c.Flags().Changed)
			if err != nil {
				var ue *usageError
				if errors.As(err, &ue) {
					ue.xargs = o.Xargs
				}
				return err
			}
			cfg.signals = sigs
			return runF(cfg)
		},
		SilenceErrors:         true,
		SilenceUsage:          true,
		DisableFlagsInUseLine: true,
	}
	c.CompletionOptions.DisableDefaultCmd = true
	c.SetOut(streams.Out)
	c.SetErr(streams.Err)
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		var ue *usageError
		if errors.As(err, &ue) { // a typed value's own message
			return &usageError{msg: ue.msg, xargs: o.Xargs, parsed: true}
		}
		if text := lackingFlagText(err, o.Xargs, c.Flags()); text != "" {
			return &usageError{msg: text, xargs: o.Xargs}
		}
		return &usageError{msg: flagErrorText(err) + " (see fan --help)", xargs: o.Xargs}
	})
	f := c.Flags()
	f.SetInterspersed(false) // everything after the command is the command's
	f.SortFlags = false
	addFlags(f, o)
	registerCompletions(c, env.Get("PATH"))
	return c
}

// takeArgs parses the positional arguments: the command's words, then
// the ::: and :::: sources (xargs knows none: all are the command's).
func (o *Options) takeArgs(args []string) error {
	if o.Xargs {
		o.Runner.Command = args
		return nil
	}
	in := &o.Input
	if in.ArgSep == in.ArgFileSep {
		return usageErrorf("--arg-sep and --arg-file-sep are both %q: lists of items and of files could not be told apart (give two different separators)", in.ArgSep)
	}
	o.Runner.Command, in.Sources = splitArgs(args, separators{items: in.ArgSep, files: in.ArgFileSep})
	return nil
}
