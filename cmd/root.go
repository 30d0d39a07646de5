// Package cmd is fan's command line: the cobra command, the checking of
// options, the wiring of the input, runner and output stages, the signal
// controller, and the only mapping from outcomes to exit statuses.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Version is fan's version, printed by --version.
const Version = "0.1.0"

// Main runs fan with the given arguments and streams, and returns its exit
// status.
func Main(args []string, stdin io.Reader, stdout, stderr *os.File) int {
	var status int
	c := NewCommand(stdin, stdout, stderr, &status)
	c.SetArgs(xargsOptionalForms(c.Flags(), args))
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		plainUsages(c) // a completion script is asking: see plainUsages
	}
	if err := c.Execute(); err != nil {
		fmt.Fprintf(stderr, "fan: %v\n", err)
		return exitStatus(outcome{err: err})
	}
	return status
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

// NewCommand builds fan's cobra command. Running it stores fan's exit status
// in *status.
func NewCommand(stdin io.Reader, stdout, stderr *os.File, status *int) *cobra.Command {
	o := &Options{}
	c := &cobra.Command{
		Use:     "fan [flags] [command [args...]] [::: items...] [:::: files...]",
		Short:   "run jobs in parallel: a fast, safe xargs -P and GNU parallel",
		Long:    longHelp,
		Example: exampleHelp(),
		Version: Version,
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmpty(c.Flags(), o.Xargs); err != nil {
				return err
			}
			if o.Completion != "" {
				return writeCompletion(c, o.Completion, stdout)
			}
			if o.Xargs {
				o.Command = args // xargs knows no ::: or ::::
			} else {
				if o.ArgSep == o.ArgFileSep {
					return usageErrorf("--arg-sep and --arg-file-sep are both %q: lists of items and of files could not be told apart (give two different separators)", o.ArgSep)
				}
				o.Command, o.Sources = splitArgs(args, separators{items: o.ArgSep, files: o.ArgFileSep})
			}
			o.NoArgs = o.MaxArgs == 0 && c.Flags().Changed("max-args")
			res := run(o, stdin, stdout, stderr)
			*status = exitStatus(res)
			if errors.Is(res.err, syscall.EPIPE) {
				return nil // the reader went away: leave quietly
			}
			if res.err != nil {
				fmt.Fprintf(stderr, "fan: %v\n", res.err)
			}
			if res.xargsAbort != nil {
				fmt.Fprintln(stderr, res.xargsAbort.Msg)
			}
			s := res.stats
			if o.Xargs && !res.interrupted && o.Failures == "" {
				return nil // xargs prints no summary
			}
			if s.Failed > 0 || s.NotStarted > 0 || res.interrupted {
				term, _ := o.terminal(stderr, os.Getenv) // checked by run
				fmt.Fprintln(stderr, term.palette.Summary(s, o.Failures))
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
		return &usageError{msg: flagErrorText(err) + " (see fan --help)", xargs: o.Xargs}
	})
	f := c.Flags()
	f.SetInterspersed(false) // everything after the command is the command's
	f.SortFlags = false
	addFlags(f, o)
	decimalInts(f)
	registerCompletions(c)
	return c
}
