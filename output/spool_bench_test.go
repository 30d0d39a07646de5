package output

import (
	"io"
	"os"
	"testing"
)

// The cost, for a job that prints one short line, of capturing it in a
// reused spool file (what fan does) against a pipe drained into memory
// (what an in-memory budget would need). Neither counts the job itself.

func BenchmarkSpoolShortLine(b *testing.B) {
	sp := NewSpool(b.TempDir(), 4)
	defer sp.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	for b.Loop() {
		f, err := sp.Get()
		if err != nil {
			b.Fatal(err)
		}
		f.WriteString("hello\n")
		if err := copyRange(null, f, 0, size(f)); err != nil {
			b.Fatal(err)
		}
		sp.Put(f)
	}
}

func BenchmarkPipeShortLine(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	for b.Loop() {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan []byte)
		go func() {
			buf, _ := io.ReadAll(r)
			done <- buf
		}()
		w.WriteString("hello\n")
		w.Close()
		null.Write(<-done)
		r.Close()
	}
}
