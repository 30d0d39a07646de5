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
)

// runRoundRobin runs a RoundRobin of jobs over in, cut into blocks of
// N=1 records with the header rec.Header, each job's stdin written to a
// buffer by write (which may fail); it returns what each job was given
// and Run's error.
func runRoundRobin(t *testing.T, in string, jobs int, rec Records, write func(job int, w *bytes.Buffer) io.Writer) ([]string, error) {
	t.Helper()
	s, err := NewBlockSplitter(strings.NewReader(in), 1<<10, rec)
	if err != nil {
		t.Fatal(err)
	}
	rr := &RoundRobin{Blocks: s, Gate: nopCloser{}, Jobs: jobs}
	out := make(chan Item)
	errc := make(chan error, 1)
	go func() { errc <- rr.Run(context.Background(), out) }()
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
	err = <-errc
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
