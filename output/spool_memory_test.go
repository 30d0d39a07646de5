package output

import (
	"errors"
	"syscall"
	"testing"
)

// The memory budget: Reserve gives no more than is left, a memory file
// given back returns what it holds, and a budget found larger than an
// eighth of the memory available is lowered to that.
func TestSpoolMemoryBudget(t *testing.T) {
	s := NewSpool(t.TempDir(), 4)
	defer s.Close()
	s.mem = newMemory(100)
	s.mem.avail = func() (int64, bool) { return 400, true }
	if got := s.Reserve(60); got != 60 {
		t.Fatalf("Reserve(60) = %d of 100", got)
	}
	if got := s.Reserve(60); got != 40 {
		t.Fatalf("Reserve(60) = %d with 40 left", got)
	}
	if got := s.Reserve(1); got != 0 {
		t.Fatalf("Reserve(1) = %d with none left", got)
	}
	s.Release(100)
	f, err := s.GetMemory()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Reserve(30); got != 30 {
		t.Fatalf("Reserve(30) = %d", got)
	}
	f.Write(make([]byte, 30))
	s.Put(f)
	if held := s.mem.held.Load(); held != 0 {
		t.Fatalf("%d bytes held after the memory file came back", held)
	}
	// The file is reused, empty.
	if g, _ := s.GetMemory(); g != f {
		t.Fatal("the memory file given back was not reused")
	} else if n, _ := g.Seek(0, 2); n != 0 {
		t.Fatalf("a reused memory file holds %d bytes", n)
	}
	// Past memoryCheckAt the budget is checked against the memory
	// available: 400 bytes allow 50.
	s.mem.limit.Store(memoryCheckAt * 2)
	s.Reserve(memoryCheckAt)
	if got := s.mem.limit.Load(); got != 50 {
		t.Fatalf("budget %d with 400 bytes available, want 50", got)
	}
}

// Where memfd_create is refused (old kernels, seccomp filters), GetMemory
// says so, and does not ask again.
func TestSpoolNoMemoryFiles(t *testing.T) {
	calls := 0
	defer func(f func(string, int) (int, error)) { memfdCreate = f }(memfdCreate)
	memfdCreate = func(string, int) (int, error) { calls++; return -1, syscall.ENOSYS }
	s := NewSpool(t.TempDir(), 4)
	defer s.Close()
	for range 3 {
		if _, err := s.GetMemory(); !errors.Is(err, syscall.ENOSYS) {
			t.Fatalf("GetMemory: %v, want ENOSYS", err)
		}
	}
	if calls != 1 {
		t.Fatalf("memfd_create asked %d times", calls)
	}
}

// A memory file given back empty is kept with the memory files: were it
// lent as a spool file, output past the memory budget would stay in
// memory.
func TestSpoolPutEmptyMemory(t *testing.T) {
	s := NewSpool(t.TempDir(), 4)
	defer s.Close()
	m, err := s.GetMemory()
	if err != nil {
		t.Skipf("this system makes no memory files: %v", err)
	}
	s.PutEmpty(m)
	f, err := s.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f == m || f.Name() == memoryName {
		t.Fatal("Get lent a memory file as a spool file")
	}
	if g, _ := s.GetMemory(); g != m {
		t.Fatal("the memory file given back was not kept for reuse")
	}
}
