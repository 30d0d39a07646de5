package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/internal/pathmsg"
	"github.com/fan-run/fan/runner"
)

// The limit of jobs that may change while fan runs: a procfile (-j FILE),
// -j auto, and the --load and --memfree gates. They hold for the jobs of
// this machine; the hosts of -S have slots of their own.

// addLimitFlags: the gates that hold new jobs back while the machine is
// busy.
func addLimitFlags(f *pflag.FlagSet, o *Options) {
	f.Var(newValue("load", "", &o.Runner.Load, parseLoad), "load",
		"start no job while more than `N` processes are runnable (N, N% or +N/-N of the CPUs, as -j)")
	f.Var(newValue("memfree", "", &o.Runner.MemFree, parseMemFree), "memfree",
		"start no job while less than `SIZE` of memory is available; below half of it, put the youngest job back in the queue")
}

// parseLoad reads --load: a job count's forms, which GNU parallel takes
// there too.
func parseLoad(s string) (Jobs, error) {
	j, err := parseCount(s)
	if err != nil {
		return Jobs{}, fmt.Errorf("%q is not a number of processes (try --load 4, --load 100%% for one per CPU, or --load +2)", s)
	}
	if !j.Relative && j.Percent == 0 && j.Count == 0 {
		return Jobs{}, errors.New(`"0" would start no job (try --load 1, or --load 100% for one runnable process per CPU)`)
	}
	return j, nil
}

// parseMemFree reads --memfree: a size, 0 for none.
func parseMemFree(s string) (int64, error) {
	n, err := input.ParseSize(s)
	if err == nil && n < 0 {
		err = fmt.Errorf("%q is negative (give a size such as 2G)", s)
	}
	return n, err
}

// openProcFile reads -j FILE for the first time: a file that cannot be
// read, or that holds no job count, is a usage error before any job runs.
func (c *Config) openProcFile(name string) error {
	ncpu := runner.CPUs()
	parse := func(s string) (int, error) {
		j, err := parseCount(s)
		if err != nil {
			return 0, fmt.Errorf("%q is not a job count: write 4, 50%%, +1, -1 or 0 for no limit", s)
		}
		return j.Of(ncpu), nil
	}
	p, err := runner.NewProcFile(name, parse, func(msg string) {
		if c.warn != nil {
			c.warn(msg)
		}
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErrorf("--jobs: %q is not a job count nor a file holding one (try -j 4, -j 50%%, -j +1, -j -1, -j 0 for no limit, or -j auto)", name)
	case errors.As(err, new(*fs.PathError)): // the file, not its count
		return usageErrorf("--jobs: cannot read %q: %v (give a file fan can read, or a count)", name, pathmsg.Bare(err))
	case err != nil:
		return usageErrorf("--jobs: %s: %v", name, err)
	}
	c.procfile = p
	c.jobs, _ = p.Read()
	return nil
}

// budgetJobs is how many jobs the open-file and process limits must make
// room for: -j, or as many as -j auto may reach, or as many as fit for a
// procfile, which may ask for any number.
func (c *Config) budgetJobs() int {
	switch {
	case c.procfile != nil:
		return 0
	case c.auto != nil:
		return c.auto.max
	}
	return c.jobs
}

// autoSpec is -j auto's range, and where it starts.
type autoSpec struct{ min, max, start int }

// autoBounds is -j auto[:MIN:MAX] with ncpu CPUs: MIN defaults to 1, MAX
// to 4 CPUs' worth; it starts at the CPU count, within them.
func autoBounds(j Jobs, ncpu int) *autoSpec {
	a := &autoSpec{min: 1, max: min(runner.AutoMaxPerCPU*ncpu, maxJobs)}
	if j.AutoMax > 0 {
		a.min, a.max = j.AutoMin, j.AutoMax
	}
	a.start = min(max(ncpu, a.min), a.max)
	return a
}

// checkLimits refuses the changing limits where they cannot apply.
func (c *Config) checkLimits() error {
	if c.remote == nil {
		return nil
	}
	for _, f := range []struct {
		on   bool
		name string
	}{
		{c.procfile != nil, "-j FILE"}, {c.auto != nil, "-j auto"},
		{c.Runner.Load.Given, "--load"}, {c.Runner.MemFree > 0, "--memfree"},
	} {
		if f.on {
			return usageErrorf("%s measures this machine, and jobs run on the hosts of -S: give each host its slots as N/LOGIN instead", f.name)
		}
	}
	return nil
}

// limits are the parts of a local run whose limit changes while it runs.
type limits struct {
	slots *runner.FixedSlots
	auto  *runner.Auto
}

// newLimits builds the slots of a run on this machine: up to jobs at once
// (-j, fitted to the system's limits), or what the procfile or -j auto
// says within that, behind the --load and --memfree gates. notify says
// things to the user through the sink.
func newLimits(c *Config, jobs int, exec runner.Executor, pool *runner.Pool, notify func(string)) *limits {
	l := &limits{slots: runner.NewFixedSlots(jobs, jobsWhy(c, jobs), exec)}
	fit := func(n int) int {
		if n == 0 || n > jobs && jobs > 0 {
			return jobs // the most the open-file and process limits allow
		}
		return n
	}
	if p := c.procfile; p != nil {
		l.slots.Refresh = func() (int, string) {
			n, why := p.Read()
			return fit(n), why
		}
	}
	ncpu := runner.CPUs()
	if c.Runner.Load.Given {
		load := c.Runner.Load.Of(ncpu)
		l.slots.Gates = append(l.slots.Gates, runner.NewLoadGate(float64(load)))
	}
	if n := c.Runner.MemFree; n > 0 {
		mem := runner.NewMemGate(n)
		l.slots.Gates = append(l.slots.Gates, mem)
		pool.Evict = mem.Short
	}
	if a := c.auto; a != nil {
		head := runner.NewHeadroomGate(pool.Running)
		l.slots.Gates = append(l.slots.Gates, head)
		l.slots.SetLimit(fit(a.start), fmt.Sprintf("-j auto:%d:%d, as it started (no change yet)", a.min, a.max))
		var log func(string)
		if c.Output.Verbose {
			log = notify
		}
		l.auto = &runner.Auto{Min: a.min, Max: fit(a.max), Slots: l.slots, Read: runner.NewPressureReader().Read,
			Done: pool.Done, Memory: head, Log: log, Missing: notify}
	}
	l.slots.Held = func(why string) {
		notify("fan: waiting to start jobs: " + why)
	}
	return l
}

// jobsWhy says where a fixed limit of jobs comes from, for the status
// report.
func jobsWhy(c *Config, jobs int) string {
	j := c.Runner.Jobs
	switch {
	case c.Xargs && !j.Given:
		return "xargs runs one at a time without -P"
	case !j.Given:
		return fmt.Sprintf("the default: the CPUs fan may use (%d)", runner.CPUs())
	case jobs < c.jobs || c.jobs == 0 && jobs > 0:
		return fmt.Sprintf("-j %s, lowered to fit the open-file and process limits", j.text)
	}
	return "-j " + j.text
}

// run starts -j auto's controller, if any, until the returned function is
// called.
func (l *limits) run() (stop func()) {
	if l.auto == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.auto.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// serial reports whether jobs run one at a time with a limit that nothing
// raises while fan runs: -j1 on this machine, without a procfile, -j auto,
// --xargs's SIGUSR1 or hosts. A job then cannot be overtaken by another.
func (c *Config) serial() bool {
	return c.jobs == 1 && c.procfile == nil && c.auto == nil && !c.Xargs && c.remote == nil
}
