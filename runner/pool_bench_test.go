package runner

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/fan-run/fan/input"
)

// BenchmarkPoolTrue runs /bin/true through the pool, two at a time, with
// output discarded (as --ungroup does): the per-job cost of fan's hot path
// plus one spawn. Compare it with BenchmarkSpawnTrue, the spawn alone.
func BenchmarkPoolTrue(b *testing.B) {
	benchPool(b, nil)
}

// BenchmarkPoolTrueSpooled is BenchmarkPoolTrue with output captured in
// spool files, as grouped output does.
func BenchmarkPoolTrueSpooled(b *testing.B) {
	benchPool(b, newFileSpool(b))
}

// BenchmarkPoolTrueCaptured is BenchmarkPoolTrue with output captured
// through pipes into memory files (capture_pipe.go), as grouped output
// does with fan's spool.
func BenchmarkPoolTrueCaptured(b *testing.B) {
	benchPool(b, &memSpool{testSpool: testSpool{dir: b.TempDir()}, job: 1 << 20, total: 64 << 20})
}

func benchPool(b *testing.B, sp Spool) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true program")
	}
	l, err := NewLocal()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	p := &Pool{Jobs: 2, Exec: l, Template: NewTemplate(TemplateOptions{Words: []string{path}}), Spool: sp}
	items := make(chan input.Item, 16)
	s := NewStream(16)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for i := range b.N {
			items <- input.Item{Seq: int64(i + 1), Args: []string{"x"}}
		}
		close(items)
	}()
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background(), context.Background(), items, s) }()
	for ev := range s.Events {
		r := ev.Result
		if !r.OK() {
			b.Fatalf("job failed: %+v", r)
		}
		p.discard(r)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSpawnTrue is one spawn and wait of /bin/true with nothing else:
// the floor under BenchmarkPoolTrue.
func BenchmarkSpawnTrue(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true program")
	}
	c := &Command{Path: path, Args: []string{path, "x"}}
	for b.Loop() {
		pr, err := spawn(c, nil, []uintptr{0, 1, 2}, nil)
		if err != nil {
			b.Fatal(err)
		}
		pr.wait(context.Background(), context.Background(), nil, true)
	}
}

// fileSpool is a minimal Spool for benchmarks: unlinked temp files, reused.
type fileSpool struct {
	dir  string
	free chan *os.File
}

func newFileSpool(b *testing.B) *fileSpool {
	return &fileSpool{dir: b.TempDir(), free: make(chan *os.File, 8)}
}

func (s *fileSpool) Get() (*os.File, error) {
	select {
	case f := <-s.free:
		return f, nil
	default:
	}
	f, err := os.CreateTemp(s.dir, "spool")
	if err == nil {
		os.Remove(f.Name())
	}
	return f, err
}

func (s *fileSpool) Put(f *os.File) {
	f.Truncate(0)
	f.Seek(0, 0)
	select {
	case s.free <- f:
	default:
		f.Close()
	}
}
