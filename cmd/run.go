package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"fan/input"
	"fan/output"
	"fan/runner"
)

// window is how many results may be started but not yet written: the
// distance -k lets fast jobs run ahead of a slow one.
const window = 4096

// run wires the three stages together and runs them to the end.
func run(o *Options, stdin io.Reader, stdout, stderr *os.File) outcome {
	c, err := o.check()
	if err != nil {
		return outcome{err: err}
	}
	srcs, closeSrcs, err := openSources(c.sources, c.delim, stdin)
	if err != nil {
		return outcome{err: err}
	}
	defer closeSrcs()
	books, err := openBooks(o, c)
	if err != nil {
		return outcome{err: err}
	}

	intake, stopIntake := context.WithCancel(context.Background())
	defer stopIntake()
	jobCtx, stopJobs := context.WithCancel(context.Background())
	defer stopJobs()

	queue := 4 * c.jobs
	if c.jobs == 0 {
		queue = 1024
	}
	items := make(chan input.Item, queue)
	results := make(chan runner.Result, max(c.jobs, 16))
	reader := &input.Reader{Sources: srcs, Link: o.Link, Colsep: c.colsep, MaxArgs: o.MaxArgs, NoArgs: o.NoArgs, SkipBlank: o.NoRunIfEmpty}
	var halted atomic.Bool
	pool := &runner.Pool{
		Jobs:       c.jobs,
		Template:   c.template,
		Env:        jobEnv(os.Environ()),
		DryRun:     o.DryRun,
		TermSeq:    c.termSeq,
		Window:     window + c.jobs,
		Timeout:    c.timeout,
		Retries:    o.Retries,
		RetryDelay: c.retryGap,
		Delay:      c.delay,
		Halt:       c.halt,
		Skip:       books.skip,
		OnHalt: func(now bool) {
			halted.Store(true)
			stopIntake()
			if now {
				stopJobs()
			}
		},
	}
	var spool *output.Spool
	if !o.Ungroup {
		spool = output.NewSpool("", 2*c.jobs+8)
		defer spool.Close()
		pool.Spool = spool
	}
	var announce chan runner.Command
	if o.Verbose && !o.DryRun {
		announce = make(chan runner.Command)
		pool.Announce = announce
	}
	var writeErr sync.Once
	sink := &output.Sink{
		Stdout: stdout, Stderr: stderr, KeepOrder: o.KeepOrder,
		Release:  pool.Release,
		Announce: announce,
		Joblog:   books.joblog,
		Failures: books.failures,
		OnError: func(error) {
			writeErr.Do(func() { stopIntake(); stopJobs() })
		},
	}
	if spool != nil {
		sink.Spool = spool
	}

	sig := watchSignals(stderr, stopIntake, stopJobs)
	defer sig.stop()

	readErr := make(chan error, 1)
	go func() { readErr <- reader.Run(intake, items) }()
	go pool.Run(intake, jobCtx, items, results)
	stats, err := sink.Run(results)
	if rerr := <-readErr; err == nil && rerr != nil && !errors.Is(rerr, context.Canceled) {
		err = &inputError{fmt.Errorf("reading input: %w", rerr)}
	}
	if cerr := books.close(); err == nil && cerr != nil {
		err = cerr
	}
	return outcome{stats: stats, err: err, interrupted: sig.interrupted(), halted: halted.Load(), halt: c.halt}
}

// jobEnv is fan's environment without a FAN_SEQ or FAN_SLOT of an outer fan.
func jobEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "FAN_SEQ=") && !strings.HasPrefix(kv, "FAN_SLOT=") {
			out = append(out, kv)
		}
	}
	return out
}
