package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fan-run/fan/input"
	"golang.org/x/sys/unix"
)

// memSpool is a MemorySpool for tests: memory files within budgets it is
// given, spool files from testSpool (or from spill, when set). It counts
// what it lends, and the most memory held at once.
type memSpool struct {
	testSpool
	job, total int64
	noMemory   error                    // GetMemory's error, when set
	full       bool                     // GetMemory's files cannot grow
	spill      func() (*os.File, error) // Get's files, when set

	mu                  sync.Mutex
	held, most          int64
	memories, spoolings int
}

func (s *memSpool) Get() (*os.File, error) {
	s.mu.Lock()
	s.spoolings++
	s.mu.Unlock()
	if s.spill != nil {
		return s.spill()
	}
	return s.testSpool.Get()
}

func (s *memSpool) GetMemory() (*os.File, error) {
	if s.noMemory != nil {
		return nil, s.noMemory
	}
	fd, err := unix.MemfdCreate("mem", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, err
	}
	if s.full {
		unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_GROW)
	}
	s.mu.Lock()
	s.memories++
	s.mu.Unlock()
	return os.NewFile(uintptr(fd), "mem"), nil
}

func (s *memSpool) Put(f *os.File) {
	if f.Name() == "mem" {
		size, _ := f.Seek(0, io.SeekEnd)
		s.Release(size)
	}
	f.Close()
}

func (s *memSpool) Reserve(n int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := max(0, min(n, s.total-s.held))
	s.held += got
	s.most = max(s.most, s.held)
	return got
}

func (s *memSpool) Release(n int64) {
	s.mu.Lock()
	s.held -= n
	s.mu.Unlock()
}

func (s *memSpool) JobMemory() int64 { return s.job }

// heldNow is the memory the spool counts as held.
func (s *memSpool) heldNow() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// runLines runs each shell line as a job, Jobs at once, through a pool
// capturing with sp, and returns the results by job number.
func runLines(t *testing.T, sp MemorySpool, jobs int, lines ...string) map[int64]Result {
	t.Helper()
	items := make(chan input.Item, len(lines))
	for i, l := range lines {
		items <- input.Item{Seq: int64(i + 1), Args: []string{l}}
	}
	close(items)
	p := &Pool{Jobs: jobs, Spool: sp, Template: NewTemplate(TemplateOptions{Words: []string{"sh", "-c", "{}"}, Shell: "/bin/sh"})}
	rs := map[int64]Result{}
	for _, r := range runPool(t, p, items) {
		rs[r.Item.Seq] = r
	}
	return rs
}

// read returns what f holds from its position, and gives it back.
func read(t *testing.T, sp Spool, f *os.File) string {
	t.Helper()
	if f == nil {
		return ""
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	sp.Put(f)
	return string(b)
}

// Output within the budgets stays in a memory file; a stream the job
// wrote nothing into has no file at all, and no spool file is made.
func TestCaptureInMemory(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 64 << 20}
	r := runLines(t, sp, 1, "head -c 100000 /dev/zero | tr '\\0' x")[1]
	if r.Err != nil || r.Stderr != nil || r.Stdout == nil || r.Stdout.Name() != "mem" {
		t.Fatalf("result %+v: want stdout in a memory file, no stderr", r)
	}
	if got := read(t, sp, r.Stdout); got != strings.Repeat("x", 100000) {
		t.Fatalf("stdout: %d bytes, not 100000 x", len(got))
	}
	if sp.spoolings != 0 || sp.heldNow() != 0 {
		t.Fatalf("%d spool files made, %d bytes still held", sp.spoolings, sp.heldNow())
	}
	r = runLines(t, sp, 1, "true")[1]
	if r.Stdout != nil || r.Stderr != nil || sp.memories != 1 || sp.spoolings != 0 {
		t.Fatalf("a silent job: stdout %v, stderr %v, %d memory and %d spool files made; want none", r.Stdout, r.Stderr, sp.memories-1, sp.spoolings)
	}
}

// Past the job's budget, what the memory file held and the rest go into
// a spool file, whole and in order; the memory goes back to the budget.
func TestCaptureSpillsAtJobBudget(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 64 << 10, total: 64 << 20}
	r := runLines(t, sp, 1, "seq 100000; seq 3 >&2")[1]
	if r.Err != nil || r.Stdout == nil || r.Stdout.Name() == "mem" {
		t.Fatalf("result %+v: want stdout spilled to a spool file", r)
	}
	want := cmdOutput(t, "seq", "100000")
	if got := read(t, sp, r.Stdout); got != want {
		t.Fatalf("stdout: %d bytes, want %d, as seq wrote them", len(got), len(want))
	}
	if got := read(t, sp, r.Stderr); got != "1\n2\n3\n" {
		t.Fatalf("stderr %q", got)
	}
	if sp.most > 64<<10+captureChunk || sp.heldNow() != 0 {
		t.Fatalf("memory held: at most %d (job budget 64 KiB), %d at the end", sp.most, sp.heldNow())
	}
}

// The total budget is shared by all jobs: jobs that together write more
// than it spill, however much each may hold, and the bytes come back when
// the files are given back.
func TestCaptureTotalBudgetShared(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 256 << 10}
	lines := make([]string, 8)
	for i := range lines {
		lines[i] = "head -c 100000 /dev/zero; sleep 0.3"
	}
	rs := runLines(t, sp, 8, lines...)
	inMemory := 0
	for _, r := range rs {
		if r.Stdout != nil && r.Stdout.Name() == "mem" {
			inMemory++
		}
		if got := read(t, sp, r.Stdout); len(got) != 100000 || r.Err != nil {
			t.Fatalf("job %d: %d bytes, error %v", r.Item.Seq, len(got), r.Err)
		}
	}
	if sp.most > 256<<10 || inMemory == 0 || inMemory > 2 || sp.spoolings < 6 {
		t.Fatalf("%d jobs in memory, %d spilled, %d bytes held at most: want the 256 KiB budget to hold two at most", inMemory, sp.spoolings, sp.most)
	}
	if sp.heldNow() != 0 {
		t.Fatalf("%d bytes still counted as held after every file was given back", sp.heldNow())
	}
}

// Without memory files (memfd_create refused under a seccomp filter, or
// an old kernel), output goes to spool files from its first byte.
func TestCaptureWithoutMemoryFiles(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 64 << 20, noMemory: syscall.ENOSYS}
	r := runLines(t, sp, 1, "seq 20000")[1]
	want := cmdOutput(t, "seq", "20000")
	if r.Err != nil || r.Stdout == nil || r.Stdout.Name() == "mem" {
		t.Fatalf("result %+v: want stdout in a spool file", r)
	}
	if got := read(t, sp, r.Stdout); got != want {
		t.Fatalf("stdout: %d bytes, want %d", len(got), len(want))
	}
	if sp.heldNow() != 0 {
		t.Fatalf("%d bytes counted as held", sp.heldNow())
	}
}

// A failure to write the spill (the disk is full) is fan's own: the
// result carries a CaptureError, and the job is not blocked by the pipe
// nobody reads any more: it runs to its end.
func TestCaptureSpillFails(t *testing.T) {
	for _, job := range []int64{0, 64 << 10} {
		sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: job, total: 64 << 20,
			spill: func() (*os.File, error) { return os.OpenFile("/dev/full", os.O_RDWR, 0) }}
		start := time.Now()
		r := runLines(t, sp, 1, "seq 200000; echo done >&2")[1]
		var ce *CaptureError
		if !errors.As(r.Err, &ce) || !errors.Is(r.Err, syscall.ENOSPC) {
			t.Fatalf("job budget %d: result error %v, want a CaptureError for ENOSPC", job, r.Err)
		}
		if r.Status != 0 || time.Since(start) > 10*time.Second {
			t.Fatalf("job budget %d: the job ended with %d after %v", job, r.Status, time.Since(start))
		}
		// Without memory, stderr went to /dev/full too: nothing to read.
		if job > 0 {
			if got := read(t, sp, r.Stderr); got != "done\n" {
				t.Fatalf("stderr %q, want the job's", got)
			}
		}
		for _, f := range []*os.File{r.Stdout, r.Stderr} {
			if f != nil && f.Name() == "/dev/full" {
				sp.Put(f)
			}
		}
	}
}

// A process that left the job's group (setsid) and holds its stdout open
// delays the job's end by captureGrace only; what the job wrote is whole.
func TestCaptureEscapedHolder(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 64 << 20}
	start := time.Now()
	r := runLines(t, sp, 1, "setsid sh -c 'sleep 3; echo late' & seq 1000; sleep 0.2; echo end")[1]
	took := time.Since(start)
	want := cmdOutput(t, "seq", "1000")
	if got := read(t, sp, r.Stdout); got != want+"end\n" {
		t.Fatalf("stdout %d bytes, want seq 1000 and end", len(got))
	}
	if took > 2*time.Second {
		t.Fatalf("the job took %v to end: its escaped child held it", took)
	}
}

// killPidFile kills the process whose number the file at path holds, if
// any: an escaped process a test made.
func killPidFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var p int
	if _, err := fmt.Sscan(string(b), &p); err == nil {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// cmdOutput is what a command writes to its stdout.
func cmdOutput(t *testing.T, name string, args ...string) string {
	t.Helper()
	b, err := osexec.Command(name, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A process that escaped the job's group and writes without end does not
// keep the job from ending: it ends within captureGrace and a last
// pipeful (what comes later is read and dropped until the run ends).
func TestCaptureEscapedWriter(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 64 << 20}
	pid := t.TempDir() + "/pid"
	start := time.Now()
	r := runLines(t, sp, 1, "setsid sh -c 'echo $$ > "+pid+"; exec yes' & while [ ! -s "+pid+" ]; do sleep 0.01; done; sleep 0.1")[1]
	took := time.Since(start)
	killPidFile(pid)
	if r.Stdout != nil {
		sp.Put(r.Stdout) // yes, for a while
	}
	if took > 5*time.Second {
		t.Fatalf("the job took %v to end: its escaped writer held it", took)
	}
}

// A spilled stream whose pipe runs empty between writes (its mover then
// waits on Go's netpoller, see toNetpoller) is kept whole and in order.
func TestCaptureSpilledWithPauses(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 64 << 10, total: 64 << 20}
	r := runLines(t, sp, 1, "for n in 30000 1 20000 5 40000; do seq $n; sleep 0.05; done")[1]
	var want strings.Builder
	for _, n := range []string{"30000", "1", "20000", "5", "40000"} {
		want.WriteString(cmdOutput(t, "seq", n))
	}
	if r.Err != nil || r.Stdout == nil || r.Stdout.Name() == "mem" {
		t.Fatalf("result %+v: want stdout spilled to a spool file", r)
	}
	if got := read(t, sp, r.Stdout); got != want.String() {
		t.Fatalf("stdout: %d bytes, want %d, as seq wrote them", len(got), want.Len())
	}
}

// A process that escaped the job's group writes without end into a
// spilled stream whose pipe had run empty: the job still ends within
// captureGrace and a last pipeful, with what the job wrote first kept.
func TestCaptureEscapedWriterAfterSpill(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 64 << 10, total: 64 << 20}
	pid := t.TempDir() + "/pid"
	start := time.Now()
	r := runLines(t, sp, 1, "seq 100000; sleep 0.1; setsid sh -c 'echo $$ > "+pid+"; sleep 0.1; exec yes' & while [ ! -s "+pid+" ]; do sleep 0.01; done")[1]
	took := time.Since(start)
	killPidFile(pid)
	got := read(t, sp, r.Stdout)
	if want := cmdOutput(t, "seq", "100000"); !strings.HasPrefix(got, want) {
		t.Fatalf("stdout %d bytes does not start with what seq wrote", len(got))
	}
	if took > 5*time.Second {
		t.Fatalf("the job took %v to end: its escaped writer held it", took)
	}
}

// A memory file that cannot grow (as in a memory cgroup at its limit)
// does not lose the output: it goes to a spool file from the first byte.
func TestCaptureMemoryFull(t *testing.T) {
	sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 64 << 20, full: true}
	r := runLines(t, sp, 1, "seq 3")[1]
	if r.Err != nil || r.Stdout == nil || r.Stdout.Name() == "mem" {
		t.Fatalf("result %+v: want stdout in a spool file", r)
	}
	if got := read(t, sp, r.Stdout); got != "1\n2\n3\n" {
		t.Fatalf("stdout %q", got)
	}
	if sp.held != 0 {
		t.Fatalf("%d bytes of the memory budget still held", sp.held)
	}
}

// A process that escaped its job's group and goes on writing after the
// job ended is not refused while the run goes on (no SIGPIPE, no EPIPE):
// its pipe is left behind, read and dropped. Both ways a pipe is left: by
// the loop (small output, in memory) and by a spilled stream's mover.
func TestCaptureLeftBehindWriterLives(t *testing.T) {
	for _, c := range []struct {
		name  string
		first string // what the job writes before it leaves the writer
	}{{"in memory", "echo first"}, {"spilled", "seq 100000"}} {
		t.Run(c.name, func(t *testing.T) {
			sp := &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 64 << 10, total: 64 << 20}
			dir := t.TempDir()
			pid, failed := dir+"/pid", dir+"/failed"
			defer killPidFile(pid)
			writer := "setsid sh -c 'trap \"\" PIPE; echo $$ > " + pid + "; while :; do echo x || { touch " + failed + "; exit; }; sleep 0.01; done' &"
			rs := runLines(t, sp, 1,
				c.first+"; sleep 0.1; "+writer+" while [ ! -s "+pid+" ]; do sleep 0.01; done; sleep 0.05",
				"sleep 0.6") // the run goes on while the writer writes
			for _, r := range rs {
				if r.Stdout != nil {
					sp.Put(r.Stdout)
				}
			}
			if _, err := os.Stat(failed); err == nil {
				t.Fatal("a write of the escaped process failed while the run went on")
			}
		})
	}
}

// A small stream whose first bytes go to a spool file (the memory budget
// spent by other jobs, or no memory files on this system) is not big
// output: its pipe keeps its default size, which counts against the
// user's share of pipe memory (pipe-user-pages-soft) as little as any.
// A stream through which a pipeful has passed is big, and its pipe grows
// to spillPipeSize, so that it is moved in fewer, larger pieces.
func TestCaptureSpilledSmallStaysSmall(t *testing.T) {
	for _, c := range []struct {
		name string
		sp   *memSpool
	}{
		{"budget spent", &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 0}},
		{"no memory files", &memSpool{testSpool: testSpool{dir: t.TempDir()}, job: 1 << 20, total: 64 << 20, noMemory: syscall.ENOSYS}},
	} {
		t.Run(c.name, func(t *testing.T) {
			poll, err := startCapturePoll(0, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer poll.close()
			jc, err := newJobCapture(c.sp, poll, false)
			if err != nil {
				t.Fatal(err)
			}
			defer jc.release() // on failure: ends it before poll.close
			w := jc.stdout()
			write := func(n int) {
				t.Helper()
				if _, err := w.Write([]byte(strings.Repeat("x", n))); err != nil {
					t.Fatal(err)
				}
				// The capture takes it: the pipe runs empty.
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
					if n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ /* FIONREAD */); err == nil && n == 0 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("the capture took nothing from the pipe in 10s")
					}
				}
			}
			write(300)
			if size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || size != captureChunk {
				t.Fatalf("after 300 bytes into a spool file the pipe holds %d bytes (%v), want the default %d", size, err, captureChunk)
			}
			write(200 << 10)
			if size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || size != spillPipeSize {
				t.Fatalf("after 200 KiB the pipe holds %d bytes (%v), want it grown to %d", size, err, spillPipeSize)
			}
			jc.started()
			out, errf, n, err := jc.results()
			if err != nil || errf != nil || n != 300+200<<10 || out == nil || out.Name() == "mem" {
				t.Fatalf("results: stdout %v, stderr %v, %d bytes, error %v; want %d bytes in a spool file", out, errf, n, err, 300+200<<10)
			}
			c.sp.Put(out)
		})
	}
}
