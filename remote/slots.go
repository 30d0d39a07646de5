package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fan-run/fan/runner"
)

// Slots is the runner.Slots of a run over hosts (-S, --sshloginfile): each
// login has its own number of job slots (its N/, else the run's -j of the
// host's CPU count, which is asked for once over the shared connection),
// and every job takes the lowest slot number free in the whole run ({%}).
// A job goes to the host with the most room, as a share of its slots; a
// retry of a job that failed on a host waits for another host while one
// takes jobs (TakeAvoiding).
//
// A host is not given jobs until it has answered once. A host that cannot
// be reached, at the start or when an attempt meets a transport failure,
// is quarantined: it takes no new jobs and is probed again with backoff
// (1 s, doubling up to 30 s) until it answers; the user is told once. When
// no host can take jobs for HostTimeout, Take gives up: OnGiveUp is called
// once (it must stop the intake) and Take returns false from then on.
//
// The logins may change while jobs run (SetLogins: a re-read
// --sshloginfile): new hosts are added, missing ones take no more jobs
// (their running jobs finish). Slots is safe for concurrent use; Close
// ends the probes and closes every host's connections.
type Slots struct {
	// Notify passes a line for the user on; it must not block.
	Notify func(string)
	// HostTimeout is how long Take waits while no host can take jobs
	// before it gives up; 0 is forever.
	HostTimeout time.Duration
	// OnGiveUp is called once, when Take gives up; it must stop the
	// intake.
	OnGiveUp func()

	cfg       Config
	local     runner.Executor
	jobs      func(cpus int) int // slots of a host without N/
	cpus      bool               // jobs needs the host's CPU count
	env       []string           // names of the variables jobs get (--env)
	localCPUs int                // this machine's, for ":"
	base      *Base              // --basefile; nil: none
	cleanBase bool
	filtering bool // until Filter has run: the first probes are quiet (s.mu)

	ctx    context.Context // the probes'
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	places    []*place
	numbers   runner.SlotNumbers
	changed   chan struct{}
	downSince time.Time // since when no place could take jobs; zero when one can
	gaveUp    bool
	closed    bool
}

// SlotsConfig is what NewSlots needs besides the logins.
type SlotsConfig struct {
	// Config is what the hosts share (--ssh).
	Config Config
	// Local runs the jobs of the login ":" (this machine).
	Local runner.Executor
	// Jobs gives the number of slots of a login without N/ from its
	// host's CPU count (-j); a result of 0 means no limit. CPUs tells
	// whether it needs the count (without, Jobs is given 0 and the host
	// is not asked). LocalCPUs is this machine's count, for ":".
	Jobs      func(cpus int) int
	CPUs      bool
	LocalCPUs int
	// Env names the variables that jobs get besides runner.JobVars.
	Env []string
	// Base are files copied to each host once, before its first job
	// (--basefile), into BaseDir there ("" is the login's home; a
	// relative name is relative to it). CleanBase removes them from the
	// host when the run ends (--cleanup).
	Base      []string
	BaseDir   string
	CleanBase bool
	// FilterHosts keeps the first probe of each host quiet: Filter
	// tells which hosts it dropped instead (--filter-hosts).
	FilterHosts bool
}

// place is one login: where its jobs run and how many may.
type place struct {
	login Login
	name  string          // Slot.Host: the login, "" for this machine
	host  *Host           // nil for this machine
	exec  runner.Executor // starts its jobs
	limit int             // its slots; 0 while unknown
	busy  int             // slots taken
	state placeState
	told  bool // the user has been told that it cannot be reached
	based bool // the base files are on the host
	// baseBegun: a copy of the base files to the host began, so that they
	// may be there even if it did not end (--cleanup removes them).
	baseBegun bool
	why       error // why its last probe failed
	// filtered: --filter-hosts dropped it; it stays removed whatever
	// the login file says later.
	filtered bool
}

type placeState int

const (
	probing     placeState = iota // not yet answered
	ready                         // takes jobs
	quarantined                   // failed: probed again with backoff
	removed                       // no longer among the logins
)

// unlimited stands for "no limit" (-j 0) in a place's slots.
const unlimited = 1 << 20

// Backoff of the probes of a host that cannot be reached.
const (
	firstBackoff = time.Second
	maxBackoff   = 30 * time.Second
	// probeTimeout bounds what a probe asks of a host once connected
	// (the base files, its CPU count): a host that does not answer in
	// that time counts as unreachable. Connecting has its own bound
	// (Config.DialTimeout).
	probeTimeout = 20 * time.Second
)

// NewSlots returns slots over logins, without duplicates (the first of
// two logins that name the same host the same way counts). The remote
// hosts are probed at once, in the background.
func NewSlots(logins []Login, c SlotsConfig) (*Slots, error) {
	s := &Slots{cfg: c.Config, local: c.Local, jobs: c.Jobs, cpus: c.CPUs, env: c.Env, changed: make(chan struct{})}
	if s.jobs == nil {
		s.jobs = func(cpus int) int { return cpus }
		s.cpus = true
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.localCPUs = c.LocalCPUs
	s.filtering = c.FilterHosts
	s.base, s.cleanBase = NewBase(c.Base, c.BaseDir), c.CleanBase
	if err := s.SetLogins(logins); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Dedupe returns logins without the repeats of a login already there:
// same host, user, port and ssh command (the N/ of the first counts).
func Dedupe(logins []Login) []Login {
	seen := map[string]bool{}
	var out []Login
	for _, l := range logins {
		if k := l.String(); !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// SetLogins makes logins the hosts that take jobs from now on: new ones
// are added (and probed), missing ones take no more jobs, and a changed
// N/ applies to the next job.
func (s *Slots) SetLogins(logins []Login) error {
	logins = Dedupe(logins)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	keep := map[*place]bool{}
	for _, l := range logins {
		if l.File != "" {
			return fmt.Errorf("remote: the login %q stands for a file of logins, which the caller reads", l.File)
		}
		p := s.find(l.String())
		if p == nil {
			var err error
			if p, err = s.add(l); err != nil {
				return err
			}
		} else if p.state == removed && !p.filtered {
			p.state = probing
			if p.host == nil {
				p.state = ready
			} else {
				s.startProbe(p, 0)
			}
		}
		if l.Slots > 0 && p.limit != l.Slots {
			p.limit = l.Slots
		}
		p.login = l
		keep[p] = true
	}
	for _, p := range s.places {
		if !keep[p] && p.state != removed {
			p.state = removed
		}
	}
	s.wake()
	return nil
}

// find returns the place of the login named name; s.mu is held.
func (s *Slots) find(name string) *place {
	for _, p := range s.places {
		if p.login.String() == name {
			return p
		}
	}
	return nil
}

// add adds the place of l; s.mu is held.
func (s *Slots) add(l Login) (*place, error) {
	p := &place{login: l, limit: l.Slots}
	if l.Local {
		p.exec, p.state = s.local, ready
		if p.limit == 0 {
			p.limit = s.slotsFor(s.localCPUs)
		}
		s.places = append(s.places, p)
		return p, nil
	}
	h, err := NewHost(l, s.cfg)
	if err != nil {
		return nil, err
	}
	p.name, p.host = l.String(), h
	p.exec = &watched{Executor: NewExecutor(h, s.env), s: s, p: p}
	if p.limit == 0 && !s.cpus {
		p.limit = s.slotsFor(0)
	}
	s.places = append(s.places, p)
	s.startProbe(p, 0)
	return p, nil
}

// slotsFor is the number of slots of a login without N/ on a host with
// cpus CPUs.
func (s *Slots) slotsFor(cpus int) int {
	n := s.jobs(cpus)
	if n <= 0 {
		return unlimited
	}
	return n
}

// startProbe probes p's host in the background after wait, and again
// with backoff until it answers; s.mu is held.
func (s *Slots) startProbe(p *place, wait time.Duration) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.probe(p, wait)
	}()
}

func (s *Slots) probe(p *place, wait time.Duration) {
	for {
		if !runner.Sleep(s.ctx, wait) {
			return
		}
		s.mu.Lock()
		gone := p.state == removed
		s.mu.Unlock()
		if gone {
			return
		}
		err := s.probeOnce(p)
		s.mu.Lock()
		if s.ctx.Err() != nil || p.state == removed {
			s.mu.Unlock()
			return
		}
		if err == nil {
			back := p.told
			p.state, p.told = ready, false
			s.wake()
			s.mu.Unlock()
			if back {
				s.say(fmt.Sprintf("fan: host %s answers again: it takes jobs again", p.name))
			}
			return
		}
		p.state, p.why = quarantined, err
		tell := !p.told && !s.filtering
		p.told = true
		s.wake()
		s.mu.Unlock()
		if tell {
			s.say(quarantineMessage(p.name, err))
		}
		wait = min(max(2*wait, firstBackoff), maxBackoff)
	}
}

// probeOnce connects to p's host, copies the base files there the first
// time, and asks its CPU count when its slots are not known yet.
func (s *Slots) probeOnce(p *place) error {
	if err := p.host.Connect(s.ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(s.ctx, probeTimeout, fmt.Errorf("no answer within %v", probeTimeout))
	defer cancel()
	s.mu.Lock()
	known, based := p.limit > 0, p.based || s.base == nil
	s.mu.Unlock()
	if !based {
		s.mu.Lock()
		p.baseBegun = true
		s.mu.Unlock()
		if err := s.base.Send(ctx, p.host); err != nil {
			return err
		}
		s.mu.Lock()
		p.based = true
		s.mu.Unlock()
	}
	if known {
		return nil
	}
	n, err := p.host.CPUs(ctx)
	if err != nil {
		if runner.IsTransport(err) {
			return err
		}
		s.say(fmt.Sprintf("fan: %v: giving it one job slot (give N/%s in -S to choose)", err, p.name))
		n = 1
	}
	s.mu.Lock()
	if p.limit == 0 {
		p.limit = s.slotsFor(n)
	}
	s.mu.Unlock()
	return nil
}

// Filter waits for the first probe of every remote host (or for ctx to
// end) and drops the hosts that did not answer: they take no jobs and are
// not probed again (--filter-hosts). It returns one line for the user per
// host dropped, and how many logins are left.
func (s *Slots) Filter(ctx context.Context) (dropped []string, left int) {
	for {
		s.mu.Lock()
		waiting := slices.ContainsFunc(s.places, func(p *place) bool { return p.state == probing })
		if !waiting || ctx.Err() != nil {
			break
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
	}
	defer s.mu.Unlock()
	s.filtering = false
	for _, p := range s.places {
		switch p.state {
		case probing, quarantined:
			why := "it did not answer in time"
			if p.why != nil {
				why = transportCause(p.why).Error()
			}
			p.state, p.filtered = removed, true
			dropped = append(dropped, fmt.Sprintf("fan: --filter-hosts: dropping host %s, which cannot be reached (%s)", p.name, why))
		case ready:
			left++
		}
	}
	s.wake()
	return dropped, left
}

// quarantineMessage is the line that tells the user that a host takes no
// jobs for now.
func quarantineMessage(name string, err error) string {
	return fmt.Sprintf("fan: host %s cannot be reached (%s): it takes no jobs until it answers again; its items run elsewhere", name, transportCause(err))
}

// lost is told of an attempt on p that met a transport failure: p is
// quarantined and probed again, unless the attempt was given up because
// the run is stopping.
func (s *Slots) lost(p *place, a *runner.Attempt, err error) {
	if !runner.IsTransport(err) || a.Cancel != nil && a.Cancel.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	s.mu.Lock()
	if p.state != ready || s.closed {
		s.mu.Unlock()
		return
	}
	p.state = quarantined
	tell := !p.told
	p.told = true
	s.startProbe(p, firstBackoff)
	s.wake()
	s.mu.Unlock()
	if tell {
		s.say(quarantineMessage(p.name, err))
	}
}

func (s *Slots) say(msg string) {
	if s.Notify != nil {
		s.Notify(msg)
	}
}

// Take implements runner.Slots.
func (s *Slots) Take(ctx context.Context) (runner.Slot, bool) { return s.take(ctx, nil) }

// TakeAvoiding implements runner.Avoider: a job that failed on a host
// waits for a slot on another host that takes jobs, and runs on its host
// again only when no other one does.
func (s *Slots) TakeAvoiding(ctx context.Context, failed runner.Slot) (runner.Slot, bool) {
	return s.take(ctx, failed.Exec)
}

// take is Take, keeping off the place whose executor is avoid while
// another place takes jobs.
func (s *Slots) take(ctx context.Context, avoid runner.Executor) (runner.Slot, bool) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		s.mu.Lock()
		if s.gaveUp || s.closed {
			s.mu.Unlock()
			return runner.Slot{}, false
		}
		if p := s.pick(avoid); p != nil {
			p.busy++
			slot := runner.Slot{N: s.numbers.Take(), Host: p.name, Addr: p.login.Addr(), Exec: p.exec}
			s.mu.Unlock()
			return slot, true
		}
		var tick <-chan time.Time
		if s.HostTimeout > 0 && s.allDown() {
			now := time.Now()
			if s.downSince.IsZero() {
				s.downSince = now
			}
			left := s.HostTimeout - now.Sub(s.downSince)
			if left <= 0 {
				s.gaveUp = true
				s.mu.Unlock()
				s.say(fmt.Sprintf("fan: no host could be reached for %v (%s): not starting the remaining jobs", s.HostTimeout, s.names()))
				if s.OnGiveUp != nil {
					s.OnGiveUp()
				}
				return runner.Slot{}, false
			}
			if timer == nil {
				timer = time.NewTimer(left)
			} else {
				timer.Reset(left)
			}
			tick = timer.C
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-tick:
		case <-ctx.Done():
			return runner.Slot{}, false
		}
	}
}

// pick returns the ready place with the most room as a share of its
// slots (the first of equals), or nil; s.mu is held. The place of avoid
// is left out while another place takes jobs, even with no room now, or
// may soon: one still being probed (at the start, a retry must not go
// back to the host that connected first because the other has not yet).
func (s *Slots) pick(avoid runner.Executor) *place {
	if avoid != nil && !slices.ContainsFunc(s.places, func(p *place) bool {
		return p.exec != avoid && (p.state == ready && p.limit > 0 || p.state == probing)
	}) {
		avoid = nil // nowhere else to go
	}
	var best *place
	for _, p := range s.places {
		if p.state != ready || p.limit <= 0 || p.busy >= p.limit || p.exec == avoid && avoid != nil {
			continue
		}
		if best == nil || p.busy*best.limit < best.busy*p.limit {
			best = p
		}
	}
	return best
}

// allDown reports whether no place can take jobs now or soon: every one
// is quarantined or removed (one being probed for the first time, or with
// its slots all taken, may yet); s.mu is held. It clears downSince
// otherwise.
func (s *Slots) allDown() bool {
	for _, p := range s.places {
		if p.state == ready || p.state == probing {
			s.downSince = time.Time{}
			return false
		}
	}
	return true
}

// names lists the logins, for a message; s.mu is not held.
func (s *Slots) names() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n []string
	for _, p := range s.places {
		if p.state != removed {
			n = append(n, p.login.String())
		}
	}
	if len(n) == 0 {
		return "none left in the login files"
	}
	return strings.Join(n, ", ")
}

// Put implements runner.Slots.
func (s *Slots) Put(slot runner.Slot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.numbers.Put(slot.N)
	for _, p := range s.places {
		if p.exec == slot.Exec {
			p.busy--
			break
		}
	}
	s.wake()
}

// wake lets every waiting Take look again; s.mu is held.
func (s *Slots) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Suspend stops the jobs of every host (Ctrl-Z); Resume continues them.
func (s *Slots) Suspend() { s.each(runner.Executor.Suspend) }

// Resume implements runner.Executor.
func (s *Slots) Resume() { s.each(runner.Executor.Resume) }

func (s *Slots) each(f func(runner.Executor)) {
	s.mu.Lock()
	execs := make([]runner.Executor, 0, len(s.places))
	for _, p := range s.places {
		execs = append(execs, p.exec)
	}
	s.mu.Unlock()
	for _, e := range execs {
		f(e)
	}
}

// Start implements runner.Executor, so that Slots can stand for every
// host's executor in the pool (Pool.Exec: Ctrl-Z reaches them all). Jobs
// are started through the executor of their slot; Start runs one on this
// machine.
func (s *Slots) Start(a *runner.Attempt) (runner.Process, error) { return s.local.Start(a) }

// Close stops the probes and closes every host's connections (whatever
// runs there through them is ended by its lifeline). No job may be
// running.
func (s *Slots) Close() error {
	s.mu.Lock()
	s.closed = true
	s.wake()
	places := s.places
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.removeBase(places)
	var errs []error
	for _, p := range places {
		if p.host != nil {
			errs = append(errs, p.host.Close())
		}
	}
	return errors.Join(errs...)
}

// removeBase removes the base files from every host that got them, or
// may have (a copy that the end of the run cut short), when --cleanup
// asks for it, all hosts at once. The probes, which copy them, have ended.
func (s *Slots) removeBase(places []*place) {
	if s.base == nil || !s.cleanBase {
		return
	}
	var wg sync.WaitGroup
	for _, p := range places {
		if p.host == nil || !p.baseBegun {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if msg := s.base.Remove(p.host); msg != "" {
				s.say(msg)
			}
		}()
	}
	wg.Wait()
}

// watched is a host's executor as the slots use it: its transport
// failures quarantine the host.
type watched struct {
	*Executor
	s *Slots
	p *place
}

// Start implements runner.Executor.
func (w *watched) Start(a *runner.Attempt) (runner.Process, error) {
	pr, err := w.Executor.Start(a)
	if err != nil {
		w.s.lost(w.p, a, err)
		return nil, err
	}
	return &watchedProc{Process: pr, w: w, a: a}, nil
}

type watchedProc struct {
	runner.Process
	w *watched
	a *runner.Attempt
}

// Wait implements runner.Process.
func (wp *watchedProc) Wait(stop, kill context.Context, seq runner.TermSeq) (runner.Exit, error) {
	x, err := wp.Process.Wait(stop, kill, seq)
	if err != nil {
		wp.w.s.lost(wp.w.p, wp.a, err)
	}
	return x, err
}
