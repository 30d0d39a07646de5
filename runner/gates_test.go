package runner

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

// --load counts the processes runnable now, as GNU parallel does.
func TestLoadGate(t *testing.T) {
	stat := "cpu  1 2 3\nprocs_running 5\nprocs_blocked 0\n"
	for _, c := range []struct {
		max  float64
		open bool
	}{{4, false}, {5, true}, {8, true}} {
		g := &LoadGate{Max: c.max, fs: mapFS(map[string]string{"proc/stat": stat})}
		if open, why := g.Open(); open != c.open || !open && !strings.Contains(why, "5 processes") {
			t.Errorf("--load %g with 5 runnable: open %v (%s), want %v", c.max, open, why, c.open)
		}
	}
}

// --memfree takes MemAvailable, or the memory cgroup's headroom when that
// is smaller (v2 memory.max, v1 limit_in_bytes; an ancestor's counts).
func TestMemGate(t *testing.T) {
	meminfo := "MemTotal:       32000000 kB\nMemAvailable:    4000000 kB\n"
	v2 := "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
	v1 := "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"no cgroup", map[string]string{"proc/meminfo": meminfo}, 4000000 * 1024},
		{"v2 limit tighter", map[string]string{
			"proc/meminfo": meminfo, "proc/self/mountinfo": v2, "proc/self/cgroup": "0::/job\n",
			"sys/fs/cgroup/job/memory.max": "1073741824\n", "sys/fs/cgroup/job/memory.current": "536870912\n",
			"sys/fs/cgroup/memory.max": "max\n", "sys/fs/cgroup/memory.current": "9999999999\n",
		}, 536870912},
		{"v1 ancestor's limit", map[string]string{
			"proc/meminfo": meminfo, "proc/self/mountinfo": v1, "proc/self/cgroup": "4:memory:/a/b\n",
			"sys/fs/cgroup/memory/a/b/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/a/b/memory.usage_in_bytes": "100\n",
			"sys/fs/cgroup/memory/a/memory.limit_in_bytes":   "2000000000\n",
			"sys/fs/cgroup/memory/a/memory.usage_in_bytes":   "1000000000\n",
		}, 1000000000},
		{"a cgroup limit looser than the machine", map[string]string{
			"proc/meminfo": meminfo, "proc/self/mountinfo": v2, "proc/self/cgroup": "0::/job\n",
			"sys/fs/cgroup/job/memory.max": "100000000000\n", "sys/fs/cgroup/job/memory.current": "0\n",
		}, 4000000 * 1024},
	} {
		fsys := mapFS(c.files)
		got, ok := available(fsys, func() *cgroups { return readCgroups(fsys) })
		if !ok || got != c.want {
			t.Errorf("%s: available %d (%v), want %d", c.name, got, ok, c.want)
		}
	}
	g := &MemGate{Min: 5 << 30, fs: mapFS(map[string]string{"proc/meminfo": meminfo})}
	if open, why := g.Open(); open || !strings.Contains(why, "3.8G of memory is available, below --memfree 5G") {
		t.Errorf("--memfree 5G with 3.8G available: open %v (%s)", open, why)
	}
}

// PSI comes from fan's cgroup v2 where it has the files, else from the
// machine's /proc/pressure; the "some" totals are read.
func TestPressureReader(t *testing.T) {
	psi := func(total string) string {
		return "some avg10=1.00 avg60=0.50 avg300=0.10 total=" + total + "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=7\n"
	}
	machine := map[string]string{
		"proc/pressure/cpu": psi("100"), "proc/pressure/memory": psi("200"), "proc/pressure/io": psi("300"),
	}
	r := newPressureReader(mapFS(machine))
	if p, ok := r.Read(); !ok || p != (Pressure{100, 200, 300}) {
		t.Errorf("machine PSI: %+v %v", p, ok)
	}
	own := map[string]string{
		"proc/self/mountinfo":            "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"proc/self/cgroup":               "0::/job\n",
		"sys/fs/cgroup/job/cpu.pressure": psi("1"), "sys/fs/cgroup/job/memory.pressure": psi("2"),
		"sys/fs/cgroup/job/io.pressure": psi("3"),
	}
	for k, v := range machine {
		own[k] = v
	}
	if p, ok := newPressureReader(mapFS(own)).Read(); !ok || p != (Pressure{1, 2, 3}) {
		t.Errorf("cgroup PSI: %+v %v", p, ok)
	}
	if _, ok := newPressureReader(mapFS(nil)).Read(); ok {
		t.Error("PSI read where there is none")
	}
}

// --memfree below half its size puts the youngest job back.
func TestMemGateShort(t *testing.T) {
	meminfo := mapFS(map[string]string{"proc/meminfo": "MemAvailable:    4000000 kB\n"})
	for _, c := range []struct {
		min   int64
		short bool
	}{{4000000 * 1024, false}, {8000000 * 1024, false}, {8000001 * 1024, true}} {
		if got := (&MemGate{Min: c.min, fs: meminfo}).Short(); got != c.short {
			t.Errorf("--memfree %d with 4000000K available: short %v, want %v", c.min, got, c.short)
		}
	}
}

// -j auto's memory gate counts every running job as needing the most a
// job was seen to use, and opens only when one more fits.
func TestHeadroomGate(t *testing.T) {
	files := map[string]string{
		"proc/self/mountinfo":          "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"proc/self/cgroup":             "0::/job\n",
		"sys/fs/cgroup/job/memory.max": "1000\n",
	}
	running := 0
	g := &HeadroomGate{Running: func() int { return running }}
	use := func(n, usage int) (bool, string) {
		running = n
		files["sys/fs/cgroup/job/memory.current"] = strconv.Itoa(usage) + "\n"
		fsys := mapFS(files)
		g.cg = func() *cgroups { return readCgroups(fsys) }
		return g.Open()
	}
	for _, c := range []struct {
		running, usage int
		open           bool
	}{
		{0, 10, true},   // nothing known yet, room left
		{2, 600, true},  // 300 a job: 400 left fits one more
		{3, 650, false}, // the third has not grown yet: it is counted as 300
		{2, 400, true},
		{3, 900, false},
		{0, 50, true},
	} {
		if open, why := use(c.running, c.usage); open != c.open || !open && !strings.Contains(why, "used up to 300 bytes each") {
			t.Errorf("%d running using %d of 1000: open %v (%s), want %v", c.running, c.usage, open, why, c.open)
		}
	}
	files = map[string]string{"proc/self/cgroup": "0::/\n"}
	g.cg = func() *cgroups { return readCgroups(mapFS(files)) }
	if open, _ := g.Open(); !open {
		t.Error("no memory limit: the gate is closed")
	}
}
