package runner

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// CPUs is how many CPUs fan may really use: the CPUs of its affinity mask,
// lowered by the CPU quota of its cgroup and every ancestor of it (cgroup
// v2 cpu.max, v1 cpu.cfs_quota_us over cpu.cfs_period_us; the smallest
// wins, rounded up), at least 1. A container limited to 1 CPU gets 1 on a
// 64-core host. Go's own cgroup-aware GOMAXPROCS is not used: it never
// goes below 2. It is counted once, the first time it is asked for (-j's
// default, --load, -j auto and remote runs all ask).
func CPUs() int { return hostCPUs() }

var hostCPUs = sync.OnceValue(func() int { return cpusIn(hostCgroups(), affinityCPUs()) })

// affinityCPUs is the number of CPUs in fan's affinity mask.
func affinityCPUs() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 1
	}
	return max(1, set.Count())
}

// cpusIn is CPUs under the cgroups g (a fake file system's in tests),
// given the affinity mask's count.
func cpusIn(g *cgroups, affinity int) int {
	n := affinity
	for _, dir := range g.dirs("cpu") {
		if q := quotaIn(g.fsys, dir); q > 0 && q < n {
			n = q
		}
	}
	return max(1, n)
}

// quotaIn is the CPU quota set in one cgroup directory, rounded up to
// whole CPUs; 0 when there is none.
func quotaIn(fsys fs.FS, dir string) int {
	if s, err := fs.ReadFile(fsys, path.Join(dir, "cpu.max")); err == nil {
		f := strings.Fields(string(s)) // "max 100000" or "150000 100000"
		if len(f) == 2 {
			return ceilRatio(f[0], f[1])
		}
		return 0
	}
	q, err1 := fs.ReadFile(fsys, path.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := fs.ReadFile(fsys, path.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0
	}
	return ceilRatio(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

// ceilRatio is quota/period rounded up, or 0 for no quota ("max", -1) or
// what does not parse.
func ceilRatio(quota, period string) int {
	q, err1 := strconv.ParseFloat(quota, 64)
	p, err2 := strconv.ParseFloat(period, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return int(math.Ceil(q / p))
}

// cgroups is what /proc/self/mountinfo and /proc/self/cgroup say of fan's
// cgroups, read once from fsys, a file system holding /proc and /sys,
// where the controllers' files are then read.
type cgroups struct {
	fsys      fs.FS
	mountinfo []string // the lines of /proc/self/mountinfo of cgroup file systems
	self      []string // the lines of /proc/self/cgroup

	mu    sync.Mutex
	found map[string][]string // dirs, by controller: the gates ask before every job start
}

func readCgroups(fsys fs.FS) *cgroups {
	g := &cgroups{fsys: fsys, self: readLines(fsys, "proc/self/cgroup")}
	for _, line := range readLines(fsys, "proc/self/mountinfo") {
		// "... - fstype ...": only the separator has blanks around it
		// (mountinfo writes a blank in a path as \040).
		if _, fstype, _ := strings.Cut(line, " - "); strings.HasPrefix(fstype, "cgroup") {
			g.mountinfo = append(g.mountinfo, line)
		}
	}
	return g
}

// hostCgroups are this machine's cgroups, read the first time they are
// needed: the CPU count and the task limit both look, and a run does not
// move fan to another cgroup.
var hostCgroups = sync.OnceValue(func() *cgroups { return readCgroups(hostFS{}) })

// dirs lists the directories of fan's cgroup and its ancestors, as paths
// in g.fsys, where the controller's files are: for cgroup v2, and for v1's
// hierarchy of the controller, from /proc/self/cgroup placed under the
// mount points /proc/self/mountinfo gives. Own cgroup first. Each
// controller's are worked out once.
func (g *cgroups) dirs(controller string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if dirs, ok := g.found[controller]; ok {
		return dirs
	}
	if g.found == nil {
		g.found = map[string][]string{}
	}
	dirs := g.find(controller)
	g.found[controller] = dirs
	return dirs
}

// find is dirs, worked out from the lines read.
func (g *cgroups) find(controller string) []string {
	mounts := g.mounts(controller)
	var dirs []string
	for _, line := range g.self {
		// "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1).
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		key := "cgroup2"
		if f[0] != "0" || f[1] != "" {
			if !hasWord(f[1], controller) {
				continue
			}
			key = controller
		}
		m, ok := mounts[key]
		if !ok {
			continue
		}
		rel, ok := strings.CutPrefix(f[2], m.root)
		if !ok {
			continue // a cgroup outside the mount: nothing of it is visible
		}
		for p := path.Join("/", rel); ; p = path.Dir(p) {
			dirs = append(dirs, strings.TrimPrefix(path.Join(m.point, p), "/"))
			if p == "/" {
				break
			}
		}
	}
	return dirs
}

// cgroupMount is where a cgroup hierarchy is mounted: point, and root, the
// cgroup path that appears there.
type cgroupMount struct{ point, root string }

// mounts finds the v2 mount ("cgroup2") and the v1 mount of the
// controller (under its name) in /proc/self/mountinfo.
func (g *cgroups) mounts(controller string) map[string]cgroupMount {
	mounts := map[string]cgroupMount{}
	for _, line := range g.mountinfo {
		// id parent dev root point options... - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		m := cgroupMount{point: unescapeMount(f[4]), root: unescapeMount(f[3])}
		switch {
		case g[0] == "cgroup2":
			if _, seen := mounts["cgroup2"]; !seen {
				mounts["cgroup2"] = m
			}
		case g[0] == "cgroup" && hasWord(g[2], controller):
			mounts[controller] = m
		}
	}
	return mounts
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasWord reports whether the comma-separated list holds w.
func hasWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}

// readLines is the lines of the file name of fsys, nil when it cannot be
// read. The file is read whole (fs.ReadFile: hostFS reads it with three
// system calls).
func readLines(fsys fs.FS, name string) []string {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
