package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// runRoundRobin runs a RoundRobin of jobs over in, cut into blocks of
// N=1 records with the header rec.Header, each job's stdin written to a
// buffer by write (which may fail); it returns what each job was given
// and Run's error.
func runRoundRobin(t *testing.T, in string, jobs int, rec Records, write func(job int, w *bytes.Buffer) io.Writer) ([]string, error) {
	t.Helper()
	out, errc := startRoundRobin(t, strings.NewReader(in), 1<<10, rec, jobs)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		bufs []*bytes.Buffer
	)
	for it := range out {
		b := &bytes.Buffer{}
		mu.Lock()
		bufs = append(bufs, b)
		job := len(bufs)
		mu.Unlock()
		if int(it.Seq) != job {
			t.Errorf("job %d has Seq %d", job, it.Seq)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			it.Stdin.WriteTo(write(job, b))
		}()
	}
	err := <-errc
	wg.Wait()
	got := make([]string, len(bufs))
	for i, b := range bufs {
		got[i] = b.String()
	}
	return got, err
}

type nopCloser struct{}

func (nopCloser) Close() {}

func plain(_ int, w *bytes.Buffer) io.Writer { return w }

// TestRoundRobinOneJobPerBlock: no job starts without a block of its own.
func TestRoundRobinOneJobPerBlock(t *testing.T) {
	for _, tc := range []struct {
		in   string
		jobs int
		want []string
	}{
		{"", 4, nil},
		{"1\n", 4, []string{"1\n"}},
		{"1\n2\n3\n", 4, []string{"1\n", "2\n", "3\n"}},
	} {
		got, err := runRoundRobin(t, tc.in, tc.jobs, Records{N: 1}, plain)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q, %d jobs: got %q, %v; want %q", tc.in, tc.jobs, got, err, tc.want)
		}
	}
}

// TestRoundRobinDealsEveryBlockOnce: every record reaches exactly one
// job, each job gets its blocks in input order, after the header once.
func TestRoundRobinDealsEveryBlockOnce(t *testing.T) {
	var in strings.Builder
	in.WriteString("head\n")
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&in, "%d\n", i)
	}
	got, err := runRoundRobin(t, in.String(), 3, Records{N: 7, Header: ":"}, plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d jobs, want 3", len(got))
	}
	var all []int
	for j, s := range got {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		if lines[0] != "head" {
			t.Errorf("job %d starts with %q, not the header", j+1, lines[0])
		}
		prev := 0
		for _, l := range lines[1:] {
			n, err := strconv.Atoi(l)
			if err != nil || n <= prev {
				t.Fatalf("job %d: %q after %d (blocks out of order, or a header again)", j+1, l, prev)
			}
			prev = n
			all = append(all, n)
		}
	}
	slices.Sort(all)
	for i, n := range all {
		if n != i+1 {
			t.Fatalf("record %d is missing or doubled (found %d at %d)", i+1, n, i)
		}
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct {
	w    io.Writer
	left int
}

var errGone = errors.New("job gone")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		return 0, errGone
	}
	f.left -= len(p)
	return f.w.Write(p)
}

// TestRoundRobinJobsGone: once every job has stopped taking its input,
// Run says so rather than wait.
func TestRoundRobinJobsGone(t *testing.T) {
	var in strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&in, "%d\n", i)
	}
	fail := func(_ int, w *bytes.Buffer) io.Writer { return &failingWriter{w: w, left: 4} }
	_, err := runRoundRobin(t, in.String(), 2, Records{N: 1}, fail)
	if !errors.Is(err, ErrJobsGone) {
		t.Fatalf("Run: %v, want ErrJobsGone", err)
	}
}

// TestRoundRobinBlockNotTakenGoesToAnother: a block that a job could not
// take (its stdin failed before any of the block was written: the job
// had ended) goes to a job that still reads, not nowhere.
func TestRoundRobinBlockNotTakenGoesToAnother(t *testing.T) {
	var in strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&in, "%d\n", i)
	}
	write := func(job int, w *bytes.Buffer) io.Writer {
		if job == 1 {
			return &failingWriter{w: w, left: len("1\n")} // ends after its own block
		}
		return w
	}
	got, err := runRoundRobin(t, in.String(), 2, Records{N: 1}, write)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "1\n" {
		t.Fatalf("jobs got %q, want job 1 to have its own block alone", got)
	}
	var all []int
	for _, l := range strings.Fields(got[0] + got[1]) {
		n, _ := strconv.Atoi(l)
		all = append(all, n)
	}
	slices.Sort(all)
	for i, n := range all {
		if n != i+1 {
			t.Fatalf("record %d is missing or doubled (found %d at %d)", i+1, n, i)
		}
	}
	if len(all) != 200 {
		t.Fatalf("%d records reached the jobs, want 200", len(all))
	}
}

// endableWriter is the stdin of a job that can end: from then on every
// write fails, nothing of it written, as a pipe without its reader.
type endableWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ended bool
}

func (e *endableWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ended {
		return 0, errGone
	}
	return e.buf.Write(p)
}

func (e *endableWriter) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buf.String()
}

// TestRoundRobinEndedJobWaitsForNoBlock: once a job has ended (the pool
// says so with Abandon), its stdin waits for no more blocks, so that the
// job's end is known while the input is still coming, and the next
// blocks go to the jobs that run.
func TestRoundRobinEndedJobWaitsForNoBlock(t *testing.T) {
	pr, pw := io.Pipe()
	out, errc := startRoundRobin(t, pr, 2, Records{}, 2)
	jobs := []*endableWriter{{}, {}}
	var items []Item
	written := make([]chan struct{}, 2)
	go func() {
		if _, err := io.WriteString(pw, "1\n2\n"); err != nil {
			t.Error(err)
		}
	}()
	for i := range jobs {
		it := <-out
		items = append(items, it)
		written[i] = make(chan struct{})
		go func() {
			defer close(written[i])
			it.Stdin.WriteTo(jobs[i])
		}()
	}
	waitFor(t, func() bool { return jobs[0].String() == "1\n" && jobs[1].String() == "2\n" })
	// Job 1 ends: its stdin's reader is gone, and the pool says so.
	jobs[0].mu.Lock()
	jobs[0].ended = true
	jobs[0].mu.Unlock()
	items[0].Stdin.(Abandoner).Abandon()
	select {
	case <-written[0]:
	case <-time.After(5 * time.Second):
		t.Fatal("the stdin of job 1 still waits for a block after the job ended")
	}
	go func() {
		io.WriteString(pw, "3\n4\n5\n6\n")
		pw.Close()
	}()
	for range out {
		t.Error("a third job")
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	<-written[1]
	if got := jobs[1].String(); got != "2\n3\n4\n5\n6\n" {
		t.Errorf("job 2 got %q, want every block after job 1 ended", got)
	}
}

// TestRoundRobinStdinAfterTheJobEnded: a job's stdin written only once
// the job has ended (the pool saw it end before the writer started, or
// an attempt is run again) writes nothing, and never the block that
// started the job, which was freed with it.
func TestRoundRobinStdinAfterTheJobEnded(t *testing.T) {
	out, errc := startRoundRobin(t, strings.NewReader("1\n2\n"), 2, Records{}, 1)
	it := <-out
	it.Stdin.(Abandoner).Abandon()
	var b bytes.Buffer
	if n, _ := it.Stdin.WriteTo(&b); n != 0 || b.Len() != 0 {
		t.Errorf("wrote %q (%d bytes) after the job ended", b.String(), n)
	}
	for range out {
	}
	if err := <-errc; !errors.Is(err, ErrJobsGone) {
		t.Errorf("Run: %v, want ErrJobsGone", err)
	}
}

// startRoundRobin runs a RoundRobin of jobs over in, cut into blocks of
// size by rec, and returns its items and where Run's error comes.
func startRoundRobin(t *testing.T, in io.Reader, size int64, rec Records, jobs int) (<-chan Item, <-chan error) {
	t.Helper()
	s, err := NewBlockSplitter(in, size, rec)
	if err != nil {
		t.Fatal(err)
	}
	rr := &RoundRobin{Blocks: s, Gate: nopCloser{}, Jobs: jobs}
	out := make(chan Item)
	errc := make(chan error, 1)
	go func() { errc <- rr.Run(context.Background(), out) }()
	return out, errc
}

// waitFor waits up to 5 seconds for cond to hold.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}
