package runner

import (
	"context"
	"fmt"
	"time"
)

// The defaults of -j auto, part of its documented contract: every
// interval the controller reads the pressure stall counters (PSI) and the
// completions; it raises the limit by one while every pressure stays
// below the low mark, jobs wait for a slot, and the last raise made more
// jobs finish; it cuts the limit by cut when memory or IO pressure passes
// the high mark or the failure rate jumps; after each change it holds for
// the cooldown. A raise that did not pay is taken back, and no raise is
// tried again for a few cooldowns. Without bounds, the limit stays between
// 1 and AutoMaxPerCPU jobs per CPU.
const (
	AutoMaxPerCPU = 4
	AutoInterval  = time.Second
	AutoCooldown  = 3 * time.Second
	AutoLowMark   = 0.10 // of the interval stalled ("some" PSI)
	AutoHighMark  = 0.40
	AutoCut       = 0.7
	// AutoGain is how much more throughput a raise must bring to stay.
	AutoGain = 1.05
	// AutoPlateau is how many cooldowns pass before a raise that did
	// not pay is tried again.
	AutoPlateau = 4
)

// Auto adapts the limit of Slots between Min and Max while the run goes on
// (-j auto). It never kills a job to shrink: a lower limit lets running
// jobs finish. Run it in a goroutine of its owner.
type Auto struct {
	Min, Max int
	Slots    *FixedSlots
	// Read gives the PSI totals; ok false means the kernel has none, and
	// the limit then stays where it started.
	Read func() (Pressure, bool)
	// Done gives how many jobs have finished, and how many of them failed.
	Done func() (finished, failed int64)
	// Memory, when set, is sampled every interval: the memory gate of a
	// memory-limited cgroup (HeadroomGate), which learns from it what a
	// job needs.
	Memory interface{ Sample() }
	// Log, when set, gets one line for each change, with its reason. It
	// must not block.
	Log func(string)
	// Missing, when set, is told once that the kernel gives no PSI, so
	// that the limit stays where it started. It must not block.
	Missing func(string)

	last       Pressure
	finished   int64
	failed     int64
	failRate   float64
	changedAt  time.Time
	doneAt     int64   // finished at the last change
	rateBefore float64 // completions per second before the last raise
	raised     bool    // the last change was a raise, not yet judged
	plateau    time.Time
}

// Run adapts the limit every AutoInterval until ctx ends.
func (a *Auto) Run(ctx context.Context) {
	p, ok := a.Read()
	if !ok {
		if a.Missing != nil {
			a.Missing(fmt.Sprintf("fan: -j auto: this kernel gives no pressure stall information (PSI, /proc/pressure): running %d jobs at once, as -j would", a.Slots.Limit()))
		}
		return
	}
	a.last = p
	a.finished, a.failed = a.Done()
	a.changedAt, a.doneAt = time.Now(), a.finished
	t := time.NewTicker(AutoInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			a.step(now)
		}
	}
}

// step reads the counters once and changes the limit if they say so.
func (a *Auto) step(now time.Time) {
	if a.Memory != nil {
		a.Memory.Sample()
	}
	p, ok := a.Read()
	if !ok {
		return
	}
	secs := AutoInterval.Seconds() * 1e6 // PSI totals are in µs
	cpu := float64(p.CPU-a.last.CPU) / secs
	mem := float64(p.Memory-a.last.Memory) / secs
	io := float64(p.IO-a.last.IO) / secs
	a.last = p
	finished, failed := a.Done()
	dFin, dFail := finished-a.finished, failed-a.failed
	a.finished, a.failed = finished, failed
	failRate := a.failRate
	if dFin > 0 {
		failRate = float64(dFail) / float64(dFin)
	}
	jumped := dFin >= 4 && failRate > a.failRate+0.5
	a.failRate = failRate
	limit := a.Slots.Limit()
	cooling := now.Sub(a.changedAt) < AutoCooldown
	rate := float64(finished-a.doneAt) / now.Sub(a.changedAt).Seconds()
	// A raise is judged once a round of jobs has ended since: before,
	// the completions say more about when the jobs started than about
	// the limit.
	judging := a.raised && finished-a.doneAt < int64(limit)
	switch {
	case cooling:
	case mem > AutoHighMark || io > AutoHighMark || jumped:
		why := fmt.Sprintf("memory pressure %.0f%%", 100*mem)
		switch {
		case jumped:
			why = fmt.Sprintf("%.0f%% of the jobs ending failed", 100*failRate)
		case io > mem:
			why = fmt.Sprintf("IO pressure %.0f%%", 100*io)
		}
		a.set(now, max(a.Min, int(float64(limit)*AutoCut)), why, false, rate)
	case judging:
	case a.raised && rate <= a.rateBefore*AutoGain:
		a.plateau = now.Add(AutoPlateau * AutoCooldown)
		a.set(now, max(a.Min, limit-1), fmt.Sprintf("the raise to %d did not make jobs finish faster (%.2f/s, before %.2f/s)", limit, rate, a.rateBefore), false, rate)
	case limit < a.Max && now.After(a.plateau) && a.Slots.Waiting() && cpu < AutoLowMark && mem < AutoLowMark && io < AutoLowMark:
		a.set(now, limit+1, fmt.Sprintf("jobs wait and pressure is low (cpu %.0f%%, memory %.0f%%, io %.0f%%)", 100*cpu, 100*mem, 100*io), true, rate)
	default:
		a.raised = false // a raise that paid stays
	}
}

// set changes the limit, starting a cooldown.
func (a *Auto) set(now time.Time, n int, why string, raise bool, rate float64) {
	old := a.Slots.Limit()
	a.changedAt, a.doneAt, a.raised = now, a.finished, raise
	if raise {
		a.rateBefore = rate
	}
	if n == old {
		return
	}
	a.Slots.SetLimit(n, fmt.Sprintf("-j auto:%d:%d, %s", a.Min, a.Max, why))
	a.log(fmt.Sprintf("fan: -j auto: %d jobs at once, was %d: %s", n, old, why))
}

func (a *Auto) log(msg string) {
	if a.Log != nil {
		a.Log(msg)
	}
}
