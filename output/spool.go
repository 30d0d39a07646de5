// Package output is fan's output stage: the only place that writes to
// stdout and stderr. It orders and groups job output, and lends the
// memory and spool files job output is captured in, within the memory
// budget the design asks for (spool_memory.go).
package output

import (
	"errors"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Spool lends the files that jobs' output is kept in: memory files
// (memfd) within a budget of bytes (spool_memory.go), and beyond it spool
// files, anonymous files in a temporary directory, unlinked from the
// moment they exist, so nothing is left behind whatever happens to fan.
// Job output never passes through fan's own buffers; the kernel moves it
// from a job's pipe into the file and from the file to stdout. Files are
// reused once written out. Spool is safe for concurrent use.
type Spool struct {
	dir  string
	keep int // how many empty files to keep for reuse
	// creating admits spoolCreators file creations at a time (see create).
	creating chan struct{}

	mu   sync.Mutex
	free []*os.File

	warm    chan struct{} // closed when Warm's files are made
	warmErr error         // what stopped Warm, read after warm is closed

	mem *memory // the memory files (spool_memory.go)
}

// NewSpool returns a Spool creating its files in dir ("" means $TMPDIR or
// /tmp) and keeping up to keep empty files, spool and memory files
// together, for reuse.
func NewSpool(dir string, keep int) *Spool {
	if dir == "" {
		dir = os.TempDir()
	}
	return &Spool{dir: dir, keep: keep, creating: make(chan struct{}, spoolCreators), mem: newMemory(TotalMemory)}
}

// spoolCreators is how many spool files are made at once, at most. Making
// one can block for long: on ext4 without a journal, allocating an inode
// passes over every inode deleted in the last seconds (minutes while their
// blocks are unwritten), 0.5-1 ms a file on a machine that runs many tests.
// Each job blocked there holds an OS thread, so -j 1000 reached 63 to 100
// threads; eight at a time keep it under 40, at the same wall time. It is
// not free there: fan's own CPU per job rose from a median of 1160 to
// 1420 us at -j 1000 (BENCHMARKS.md), with two at a time as with eight.
const spoolCreators = 8

// Warm makes n files in the background, for the first Gets: making a file
// can take a millisecond where the directory's file system is busy, and a
// run has other things to set up meanwhile. Ready waits for them. It is
// called at most once, before any Get. With n 0 it makes none, and only
// checks at once that files can be made in the directory (it is one, and
// fan may write there): grouped output makes spool files only for output
// that outgrows its memory budget, which most runs never do.
func (s *Spool) Warm(n int) {
	s.warm = make(chan struct{})
	if n == 0 {
		if err := unix.Access(s.dir, unix.W_OK|unix.X_OK); err != nil {
			s.warmErr = &os.PathError{Op: "create temporary file in", Path: s.dir, Err: err}
		}
		close(s.warm)
		return
	}
	go func() {
		defer close(s.warm)
		for range n {
			f, err := s.create()
			if err != nil {
				s.warmErr = err
				return
			}
			s.mu.Lock()
			s.free = append(s.free, f) // whatever keep says: the first job takes them
			s.mu.Unlock()
		}
	}()
}

// Ready waits for Warm's files and returns the error that stopped it
// making them, if any: a run that cannot make them fails before any job
// starts rather than failing every job.
func (s *Spool) Ready() error {
	if s.warm == nil {
		return nil
	}
	<-s.warm
	return s.warmErr
}

// Get implements runner.Spool.
func (s *Spool) Get() (*os.File, error) {
	s.Ready() // the warm files first; a failure to make them is Ready's to report
	s.mu.Lock()
	f := pop(&s.free)
	s.mu.Unlock()
	if f != nil {
		return f, nil
	}
	return s.create()
}

// pop takes the last of the files kept in list, or returns nil; s.mu is
// held.
func pop(list *[]*os.File) *os.File {
	n := len(*list)
	if n == 0 {
		return nil
	}
	f := (*list)[n-1]
	*list = (*list)[:n-1]
	return f
}

// Put implements runner.Spool: the file is emptied and kept for reuse, or
// closed when enough are kept already. A memory file's bytes go back to
// the memory budget.
func (s *Spool) Put(f *os.File) {
	if f.Name() == memoryName && !s.mem.released(f) {
		f.Close() // what it held is unknown: the count stays as it is
		return
	}
	// Files come back here with output in them (empty ones go through
	// PutEmpty), so truncate without asking the size first.
	if f.Truncate(0) != nil {
		f.Close()
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return
	}
	s.PutEmpty(f)
}

// PutEmpty implements runner.EmptyPutter: Put for a file that is empty and
// positioned at its start, which it takes as it is.
func (s *Spool) PutEmpty(f *os.File) {
	list := &s.free
	if f.Name() == memoryName {
		list = &s.mem.free
	}
	s.mu.Lock()
	if len(s.free)+len(s.mem.free) < s.keep { // both kinds hold descriptors
		*list = append(*list, f)
		f = nil
	}
	s.mu.Unlock()
	if f != nil {
		f.Close()
	}
}

// Full implements runner.FullSpool: the filesystem of the spool's directory
// has no room left for a job's writes (for root, none of the blocks kept for
// it either).
func (s *Spool) Full() bool {
	var st unix.Statfs_t
	if unix.Statfs(s.dir, &st) != nil {
		return false
	}
	if os.Geteuid() == 0 {
		return st.Bfree == 0
	}
	return st.Bavail == 0
}

// Dir is the directory the spool makes its files in.
func (s *Spool) Dir() string { return s.dir }

// Close closes every file kept for reuse, spool and memory files.
func (s *Spool) Close() {
	s.Ready()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem.close()
	for _, f := range s.free {
		f.Close()
	}
	s.free = nil
}

// create makes a new anonymous file: O_TMPFILE where the file system has
// it, otherwise a named file that is removed at once.
func (s *Spool) create() (*os.File, error) {
	s.creating <- struct{}{}
	defer func() { <-s.creating }()
	fd, err := unix.Open(s.dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), "fan-spool"), nil
	}
	if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
		return nil, &os.PathError{Op: "create temporary file in", Path: s.dir, Err: err}
	}
	f, err := os.CreateTemp(s.dir, "fan-spool-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}
