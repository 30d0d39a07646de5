package runner

import (
	"testing"
	"testing/fstest"
)

// The CPU count is the affinity mask's, lowered by the smallest quota of
// fan's cgroup and its ancestors, rounded up, in either cgroup version.
func TestCPUsFromCgroups(t *testing.T) {
	v1mounts := "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n" +
		"35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	v2mounts := "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
	for _, c := range []struct {
		name     string
		files    map[string]string
		affinity int
		want     int
	}{
		{"no cgroup files", nil, 8, 8},
		{"v2 quota of 1.5 CPUs rounds up", map[string]string{
			"proc/self/mountinfo":          v2mounts,
			"proc/self/cgroup":             "0::/ci/job\n",
			"sys/fs/cgroup/ci/job/cpu.max": "150000 100000\n",
			"sys/fs/cgroup/ci/cpu.max":     "max 100000\n",
			"sys/fs/cgroup/cpu.max":        "max 100000\n",
		}, 64, 2},
		{"v2 ancestor's quota is the smaller", map[string]string{
			"proc/self/mountinfo":          v2mounts,
			"proc/self/cgroup":             "0::/ci/job\n",
			"sys/fs/cgroup/ci/job/cpu.max": "400000 100000\n",
			"sys/fs/cgroup/ci/cpu.max":     "100000 100000\n",
		}, 64, 1},
		{"v2 quota above the affinity mask", map[string]string{
			"proc/self/mountinfo":     v2mounts,
			"proc/self/cgroup":        "0::/a\n",
			"sys/fs/cgroup/a/cpu.max": "800000 100000\n",
		}, 2, 2},
		{"v1 quota, controllers co-mounted", map[string]string{
			"proc/self/mountinfo": v1mounts,
			"proc/self/cgroup":    "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n0::/\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  "50000\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/cpu.cfs_quota_us":      "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/docker/cpu.cfs_period_us":     "100000\n",
		}, 16, 1},
		{"v1 mount rooted inside the cgroup path (a container)", map[string]string{
			"proc/self/mountinfo":                 "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n",
			"proc/self/cgroup":                    "3:cpu:/docker/abc\n",
			"sys/fs/cgroup/cpu/cpu.cfs_quota_us":  "300000\n",
			"sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
		}, 16, 3},
	} {
		fsys := fstest.MapFS{}
		for name, data := range c.files {
			fsys[name] = &fstest.MapFile{Data: []byte(data)}
		}
		if got := cpusIn(readCgroups(fsys), c.affinity); got != c.want {
			t.Errorf("%s: %d CPUs, want %d", c.name, got, c.want)
		}
	}
}

// On this machine, the count is at least 1 and at most the affinity mask's.
func TestCPUsHere(t *testing.T) {
	if n := CPUs(); n < 1 || n > affinityCPUs() {
		t.Fatalf("CPUs() = %d, affinity mask %d", n, affinityCPUs())
	}
}
