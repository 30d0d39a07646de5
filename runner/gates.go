package runner

import (
	"fmt"
	"github.com/fan-run/fan/input"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
)

// LoadGate holds back new jobs while the machine is busier than Max
// (--load), measured as GNU parallel measures it: the processes runnable
// now (procs_running in /proc/stat), not the load average, which lags a
// minute behind.
type LoadGate struct {
	Max float64
	fs  fs.FS
}

// NewLoadGate returns the gate for --load max.
func NewLoadGate(max float64) *LoadGate { return &LoadGate{Max: max, fs: hostFS{}} }

// Open implements Gate.
func (g *LoadGate) Open() (bool, string) {
	n, ok := procsRunning(g.fs)
	if !ok || float64(n) <= g.Max {
		return true, ""
	}
	return false, fmt.Sprintf("%d processes are runnable, above --load %g", n, g.Max)
}

// procsRunning is procs_running of /proc/stat. fan itself, asking, is one
// of them.
func procsRunning(fsys fs.FS) (int, bool) {
	for _, line := range readLines(fsys, "proc/stat") {
		if v, ok := strings.CutPrefix(line, "procs_running "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil
		}
	}
	return 0, false
}

// MemGate holds back new jobs while less memory than Min bytes is
// available (--memfree): MemAvailable of /proc/meminfo, or the headroom of
// fan's memory cgroup (its limit less its usage) when that is smaller.
type MemGate struct {
	Min int64
	fs  fs.FS
	cg  func() *cgroups // fan's cgroups, read once (hostCgroups); nil for none
}

// NewMemGate returns the gate for --memfree min.
func NewMemGate(min int64) *MemGate { return &MemGate{Min: min, fs: hostFS{}, cg: hostCgroups} }

// Open implements Gate.
func (g *MemGate) Open() (bool, string) {
	avail, ok := available(g.fs, g.cg)
	if !ok || avail >= g.Min {
		return true, ""
	}
	return false, fmt.Sprintf("%s of memory is available, below --memfree %s", input.SizeText(avail), input.SizeText(g.Min))
}

// Short reports whether less than half of Min is available: then
// --memfree puts the youngest running job back in the queue (Pool.Evict).
func (g *MemGate) Short() bool {
	avail, ok := available(g.fs, g.cg)
	return ok && avail < g.Min/2
}

// Available is the memory available to fan's jobs on this machine:
// MemAvailable, or the headroom of its memory cgroup when that is
// smaller. ok is false when neither can be read. The output stage asks
// it to size the memory its capture may hold (output.Spool).
func Available() (int64, bool) { return available(hostFS{}, hostCgroups) }

// available is Available with /proc/meminfo read in fsys and the memory
// cgroups among cg (nil for none).
func available(fsys fs.FS, cg func() *cgroups) (int64, bool) {
	avail, ok := memAvailable(fsys)
	if limit, usage, limited := memLimit(cg); limited && (!ok || limit-usage < avail) {
		return max(0, limit-usage), true
	}
	return avail, ok
}

// memAvailable is MemAvailable of /proc/meminfo, in bytes.
func memAvailable(fsys fs.FS) (int64, bool) {
	for _, line := range readLines(fsys, "proc/meminfo") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(v) // "24212280 kB"
			if len(f) == 0 {
				return 0, false
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			return n * 1024, err == nil
		}
	}
	return 0, false
}

// memLimit reads the limit and the usage of the memory cgroup, among
// fan's and its ancestors' (in cg's, none when cg is nil), that has the
// least room left; limited is false when none has a limit. The gates ask
// it before every job start: cg is read once (hostCgroups), fan does not
// move while it runs.
func memLimit(cg func() *cgroups) (limit, usage int64, limited bool) {
	if cg == nil {
		return 0, 0, false
	}
	g := cg()
	for _, dir := range g.dirs("memory") {
		l, ok := readNumber(g.fsys, path.Join(dir, "memory.max"))
		u, ok2 := readNumber(g.fsys, path.Join(dir, "memory.current"))
		if !ok || !ok2 {
			l, ok = readNumber(g.fsys, path.Join(dir, "memory.limit_in_bytes"))
			u, ok2 = readNumber(g.fsys, path.Join(dir, "memory.usage_in_bytes"))
		}
		if !ok || !ok2 || l >= 1<<60 { // v1's "no limit" is a huge number
			continue
		}
		if !limited || l-u < limit-usage {
			limit, usage, limited = l, u, true
		}
	}
	return limit, usage, limited
}

// HeadroomGate holds back new jobs under -j auto while fan's memory
// cgroup has less room left than a job needs: without swap, the kernel
// gives no pressure warning before it kills a job for memory. What a job
// needs is learnt as the run goes: the most memory per running job the
// cgroup has been seen to use (Sample). Every running job is counted as
// needing that much, even one that has not grown to it yet. Where fan's
// cgroup has no memory limit the gate is always open.
type HeadroomGate struct {
	// Running is how many jobs run now.
	Running func() int
	cg      func() *cgroups // fan's cgroups, read once (hostCgroups)

	mu     sync.Mutex
	perJob int64
}

// NewHeadroomGate returns the memory gate of -j auto.
func NewHeadroomGate(running func() int) *HeadroomGate {
	return &HeadroomGate{Running: running, cg: hostCgroups}
}

// Sample looks at the cgroup's usage now, to learn what a job needs. The
// gate samples as it is asked; -j auto samples every interval as well.
func (g *HeadroomGate) Sample() {
	g.sample()
}

func (g *HeadroomGate) sample() (limit, usage, perJob int64, limited bool) {
	limit, usage, limited = memLimit(g.cg)
	n := int64(g.Running())
	g.mu.Lock()
	defer g.mu.Unlock()
	if limited && n > 0 {
		g.perJob = max(g.perJob, usage/n)
	}
	return limit, usage, g.perJob, limited
}

// Open implements Gate.
func (g *HeadroomGate) Open() (bool, string) {
	limit, usage, perJob, limited := g.sample()
	if !limited {
		return true, ""
	}
	used := max(usage, int64(g.Running())*perJob)
	if room := limit - used; room < max(perJob, 1) {
		return false, fmt.Sprintf("the memory cgroup has %s left of %s, and jobs have used up to %s each",
			input.SizeText(max(room, 0)), input.SizeText(limit), input.SizeText(perJob))
	}
	return true, ""
}

// noLimit is what readNumber reads for "max".
const noLimit = 1 << 62

// readNumber reads the number of a cgroup file (bytes, tasks); "max", no
// limit, reads as noLimit.
func readNumber(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return noLimit, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
