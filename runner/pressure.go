package runner

import (
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Pressure is the stall time the kernel has counted (PSI, "some" line) for
// CPU, memory and IO, in microseconds since boot, for fan's own cgroup
// where the kernel gives one (cgroup v2) and else for the machine.
type Pressure struct {
	CPU, Memory, IO int64
}

// PressureReader reads PSI totals. Read's ok is false where the kernel
// has no PSI.
type PressureReader struct {
	fs   fs.FS
	dirs [3]string // the files' directories, "" where there is none
}

// NewPressureReader finds the PSI files: those of fan's cgroup v2 where
// they exist, else /proc/pressure's.
func NewPressureReader() *PressureReader { return newPressureReader(hostFS{}) }

func newPressureReader(fsys fs.FS) *PressureReader {
	r := &PressureReader{fs: fsys}
	var own string
	for _, line := range readLines(fsys, "proc/self/cgroup") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			if m, ok := readCgroups(fsys).mounts("")["cgroup2"]; ok {
				if rel, ok := strings.CutPrefix(rest, m.root); ok {
					own = strings.TrimPrefix(path.Join(m.point, "/", rel), "/")
				}
			}
		}
	}
	for i, name := range []string{"cpu", "memory", "io"} {
		switch {
		case own != "" && exists(fsys, path.Join(own, name+".pressure")):
			r.dirs[i] = own
		case exists(fsys, "proc/pressure/"+name):
			r.dirs[i] = "proc/pressure"
		}
	}
	return r
}

func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// Read returns the stall totals now.
func (r *PressureReader) Read() (p Pressure, ok bool) {
	out := []*int64{&p.CPU, &p.Memory, &p.IO}
	for i, name := range []string{"cpu", "memory", "io"} {
		if r.dirs[i] == "" {
			return p, false
		}
		file := path.Join(r.dirs[i], name)
		if r.dirs[i] != "proc/pressure" {
			file += ".pressure"
		}
		n, found := someTotal(r.fs, file)
		if !found {
			return p, false
		}
		*out[i] = n
	}
	return p, true
}

// someTotal is the total= of the "some" line of a PSI file.
func someTotal(fsys fs.FS, name string) (int64, bool) {
	for _, line := range readLines(fsys, name) {
		if !strings.HasPrefix(line, "some ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}
