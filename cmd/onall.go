package cmd

import (
	"context"
	"fmt"
	"sync"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/remote"
	"github.com/fan-run/fan/runner"
)

// --onall and --nonall, as GNU parallel's: every host runs every item (or,
// with --nonall, the command once with no argument). As GNU parallel does
// with a run of parallel per host, the pool runs one job per host (up to
// -j hosts at once; all of them without -j), which runs the items there
// one at a time, in input order (runner.Each). So a host's output comes
// whole, -k orders it by the logins' order, --tag tags it with the login,
// the joblog has a row per host, and fan's exit status counts the hosts
// where a job failed. The input is read whole before the first job, as
// every host needs all of it.

// checkOnAll refuses what --onall and --nonall cannot do, and sets c.jobs
// to the hosts that run at once. It runs once the logins are known.
func (c *Config) checkOnAll(logins []remote.Login) error {
	r := &c.Remote
	if !r.OnAll && !r.NonAll {
		return nil
	}
	flag := "--onall"
	if r.NonAll {
		flag = "--nonall"
		if r.OnAll {
			return usageErrorf("--onall and --nonall cannot be used together (--nonall runs the command once per host with no argument; pick one)")
		}
		if len(c.Input.Sources) > 0 || len(c.Input.ArgFiles) > 0 {
			return usageErrorf("--nonall runs the command once on each host with no argument, and takes no input (drop the ::: or :::: sources, or use --onall)")
		}
	}
	for _, name := range []string{"pipe", "pipepart", "failures", "resume", "resume-failed", "dry-run", "memfree", "xargs", "filter-hosts"} {
		if c.flagSet(name) {
			return usageErrorf("%s cannot be used with --%s (run without it)", flag, name)
		}
	}
	if c.Runner.Timeout.Percent > 0 {
		return usageErrorf("%s: --timeout must be a duration, not a percentage of the median runtime", flag)
	}
	if c.Runner.Jobs.Given {
		c.jobs = c.Runner.Jobs.Of(runner.CPUs())
	} else {
		c.jobs = len(logins)
	}
	return nil
}

// onAll is a run of --onall or --nonall: one runner.Each per login.
type onAll struct {
	places []onAllPlace
	nonAll bool
	closes []func()
}

// onAllPlace is one login: its name and the jobs it runs.
type onAllPlace struct {
	name string
	each *runner.Each
}

// attachAll makes the pool run one job per login, each running every item
// there in turn (see runner.Each). The returned function closes the
// hosts' connections (and removes --basefile's files with --cleanup); call
// it once the pool has ended.
func (r *remoteSpec) attachAll(c *Config, pool *runner.Pool) (func(), error) {
	a := &onAll{nonAll: c.Remote.NonAll}
	base := remote.NewBase(r.base, r.baseDir)
	closeAll := func() {
		for _, f := range a.closes {
			f()
		}
	}
	transfer, ret := c.texts.transfer, c.texts.ret
	for _, l := range remote.Dedupe(r.logins()) {
		e := &runner.Each{Template: c.template, WorkDir: pool.WorkDir, Transfer: transfer, Return: ret, Cleanup: r.cleanup,
			Env: pool.Env, SlotVar: pool.SlotVar, Timeout: c.Runner.Timeout.Fixed, Retries: c.Runner.Retries, Where: "host " + l.String()}
		name := l.String()
		if l.Local {
			e.On.Exec, e.Where, name = pool.Exec, "this machine", ":"
		} else {
			h, err := remote.NewHost(l, remote.Config{SSH: r.ssh})
			if err != nil {
				closeAll()
				return nil, err
			}
			e.On = runner.Slot{Exec: remote.NewExecutor(h, c.envNames()), Host: name, Addr: l.Addr()}
			if base != nil {
				e.Prepare = func(ctx context.Context) error { return base.Send(ctx, h) }
			}
			a.closes = append(a.closes, func() {
				if base != nil && r.cleanup {
					if msg := base.Remove(h); msg != "" {
						fmt.Fprintln(c.Streams.Err, msg)
					}
				}
				h.Close()
			})
		}
		a.places = append(a.places, onAllPlace{name: name, each: e})
	}
	// The pool's own jobs are the hosts: rendered, for -t and the joblog,
	// as the command given, with nothing replaced or appended.
	words := c.Runner.Command
	if len(words) == 0 {
		words = []string{"/bin/sh"}
	}
	pool.Template = runner.NewTemplate(runner.TemplateOptions{Words: words, Argv: true, Syntax: runner.Syntax{Replace: "\x00"}})
	pool.Slots = &onAllSlots{FixedSlots: runner.NewFixedSlots(c.jobs, "-j: hosts run at once by --onall", a), all: a}
	pool.WorkDir, pool.Transfer, pool.Return = nil, nil, nil
	pool.Timeout, pool.Retries = runner.Timeout{}, 0
	r.all = a
	return closeAll, nil
}

// onAllSlots are -j's slots for the hosts' jobs, each naming its host
// (the joblog's Host column, --tagstring's {host} and {sshlogin}). The
// pool takes a slot for each of its jobs in input order, and never again
// (Each neither fails to start nor is lost, and --memfree is refused), so
// the k'th slot is the k'th login's.
type onAllSlots struct {
	*runner.FixedSlots
	all *onAll

	mu   sync.Mutex
	next int
}

// Take implements runner.Slots.
func (s *onAllSlots) Take(ctx context.Context) (runner.Slot, bool) {
	slot, ok := s.FixedSlots.Take(ctx)
	if ok {
		s.mu.Lock()
		if s.next < len(s.all.places) {
			on := s.all.places[s.next].each.On // this machine's: no host
			slot.Host, slot.Addr = on.Host, on.Addr
		}
		s.next++
		s.mu.Unlock()
	}
	return slot, ok
}

// intake is the run's input: with --onall, in read whole, then one item per
// login; with --nonall, one item per login, in not read at all.
func (r *remoteSpec) intake(in intake) intake {
	if r.all == nil {
		return in
	}
	return &onAllIntake{in: in, all: r.all}
}

type onAllIntake struct {
	in  intake
	all *onAll
}

// Run implements intake.
func (i *onAllIntake) Run(ctx context.Context, out chan<- input.Item) error {
	defer close(out)
	items := []input.Item{{Seq: 1}}
	if !i.all.nonAll {
		items = items[:0]
		got := make(chan input.Item, 64)
		errc := make(chan error, 1)
		go func() { errc <- i.in.Run(ctx, got) }()
		for it := range got {
			items = append(items, it)
		}
		if err := <-errc; err != nil {
			return err
		}
	}
	for k, p := range i.all.places {
		p.each.Items = items
		select {
		case out <- input.Item{Seq: int64(k + 1), Args: []string{p.name}, Records: []string{p.name}}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Start implements runner.Executor: the pool's k'th job is the k'th
// login's.
func (a *onAll) Start(at *runner.Attempt) (runner.Process, error) {
	return a.places[at.Seq-1].each.Start(at)
}

// Suspend implements runner.Executor.
func (a *onAll) Suspend() {
	for _, p := range a.places {
		p.each.Suspend()
	}
}

// Resume implements runner.Executor.
func (a *onAll) Resume() {
	for _, p := range a.places {
		p.each.Resume()
	}
}

// RunsElsewhere implements runner.Elsewhere: a program missing here may be
// on the hosts (a local ":" login finds it missing when its job runs).
func (a *onAll) RunsElsewhere() bool { return true }
