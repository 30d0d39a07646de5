package output

import (
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/fan-run/fan/runner"
	"golang.org/x/sys/unix"
)

// Memory budgets of grouped output (see runner.MemorySpool): a job's
// output is held in memory files up to JobMemory bytes, and all jobs'
// together up to TotalMemory; what is beyond spills to spool files.
//
// 1 MiB a job: nearly every job's output fits (a job that writes more
// spends longer starting and writing it than fan spends copying 1 MiB
// from memory into a file: 0.4 ms measured, sendfile from a memfd into
// ext4), and 64 jobs that hold as much fill the total. 64 MiB in all: what
// GNU parallel's and xargs' users expect a job runner to take at most
// for itself; it is lowered to an eighth of the memory available (the
// memory cgroup's room, or MemAvailable) when that is less, asked once
// the output held first passes memoryCheckAt, so that runs with little
// output never read /proc.
const (
	JobMemory     = 1 << 20
	TotalMemory   = 64 << 20
	memoryCheckAt = 8 << 20
)

// memoryName names the memory files, by which Put tells them from spool
// files.
const memoryName = "fan-memory"

// memfdCreate is unix.MemfdCreate, replaced in tests that need the system
// to refuse it.
var memfdCreate = unix.MemfdCreate

// memory lends a Spool's memory files and keeps the count of the bytes
// they hold.
type memory struct {
	job   int64 // JobMemory, or less in tests
	limit atomic.Int64
	held  atomic.Int64
	check sync.Once
	avail func() (int64, bool)

	// Under the Spool's mu: the spool and memory files kept for reuse
	// are kept within one count (Spool.keep), as both hold descriptors.
	free []*os.File
	none error // why memfd_create failed: no memory files are made again
}

// newMemory returns the memory files' side of a spool, with a total
// budget of total bytes.
func newMemory(total int64) *memory {
	m := &memory{job: JobMemory, avail: runner.Available}
	m.limit.Store(total)
	return m
}

// GetMemory implements runner.MemorySpool.
func (s *Spool) GetMemory() (*os.File, error) {
	m := s.mem
	s.mu.Lock()
	f, none := pop(&m.free), m.none
	s.mu.Unlock()
	if f != nil {
		return f, nil
	}
	if none != nil {
		return nil, none
	}
	fd, err := memfdCreate(memoryName, unix.MFD_CLOEXEC)
	if err != nil {
		// ENOSYS on old kernels, EPERM under some seccomp filters: the
		// answer will not change.
		s.mu.Lock()
		m.none = err
		s.mu.Unlock()
		return nil, err
	}
	return os.NewFile(uintptr(fd), memoryName), nil
}

// JobMemory implements runner.MemorySpool.
func (s *Spool) JobMemory() int64 { return s.mem.job }

// Reserve implements runner.MemorySpool.
func (s *Spool) Reserve(n int64) int64 {
	m := s.mem
	for {
		held := m.held.Load()
		got := min(n, m.limit.Load()-held)
		if got <= 0 {
			return 0
		}
		if m.held.CompareAndSwap(held, held+got) {
			if held+got >= memoryCheckAt {
				m.check.Do(m.lower)
			}
			return got
		}
	}
}

// Release implements runner.MemorySpool.
func (s *Spool) Release(n int64) { s.mem.held.Add(-n) }

// lower lowers the total budget to an eighth of the memory available,
// when that is less.
func (m *memory) lower() {
	if avail, ok := m.avail(); ok && avail/8 < m.limit.Load() {
		m.limit.Store(avail / 8)
	}
}

// released gives the bytes a memory file holds back to the budget, and
// reports whether their count is known.
func (m *memory) released(f *os.File) bool {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return false
	}
	m.held.Add(-size)
	return true
}

// close closes the memory files kept for reuse; the Spool's mu is held.
func (m *memory) close() {
	for _, f := range m.free {
		f.Close()
	}
	m.free = nil
}
