package runner

import (
	"fmt"
	"github.com/fan-run/fan/input"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
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
func NewLoadGate(max float64) *LoadGate { return &LoadGate{Max: max, fs: os.DirFS("/")} }

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
}

// NewMemGate returns the gate for --memfree min.
func NewMemGate(min int64) *MemGate { return &MemGate{Min: min, fs: os.DirFS("/")} }

// Open implements Gate.
func (g *MemGate) Open() (bool, string) {
	avail, ok := Available(g.fs)
	if !ok || avail >= g.Min {
		return true, ""
	}
	return false, fmt.Sprintf("%s of memory is available, below --memfree %s", input.SizeText(avail), input.SizeText(g.Min))
}

// Available is the memory available to fan's jobs: MemAvailable, or the
// headroom of its memory cgroup when that is smaller. ok is false when
// neither can be read.
func Available(fsys fs.FS) (int64, bool) {
	avail, ok := memAvailable(fsys)
	if room, limited := cgroupHeadroom(fsys); limited && (!ok || room < avail) {
		return room, true
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

// cgroupHeadroom is the limit less the usage of the tightest memory
// cgroup among fan's and its ancestors'; limited is false when none has a
// limit.
func cgroupHeadroom(fsys fs.FS) (room int64, limited bool) {
	for _, dir := range cgroupDirs(fsys, "memory") {
		limit, ok := readBytes(fsys, path.Join(dir, "memory.max"))
		usage, ok2 := readBytes(fsys, path.Join(dir, "memory.current"))
		if !ok || !ok2 {
			limit, ok = readBytes(fsys, path.Join(dir, "memory.limit_in_bytes"))
			usage, ok2 = readBytes(fsys, path.Join(dir, "memory.usage_in_bytes"))
		}
		if !ok || !ok2 || limit >= 1<<60 { // v1's "no limit" is a huge number
			continue
		}
		if r := max(0, limit-usage); !limited || r < room {
			room, limited = r, true
		}
	}
	return room, limited
}

// readBytes reads a number of bytes from a cgroup file; "max" is no limit.
func readBytes(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 1 << 62, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
