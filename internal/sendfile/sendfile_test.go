package sendfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A range of a file arrives whole: through a pipe (the kernel, waiting
// while the pipe is full), into a regular file, and into a file opened
// for appending, which sendfile refuses (copied through memory).
func TestRange(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB, more than a pipe holds
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	n, err := Range(w, f, 10, int64(len(data))-5)
	w.Close()
	if err != nil || n != int64(len(data))-15 {
		t.Fatalf("Range into a pipe = %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, data[10:len(data)-5]) {
		t.Fatalf("the pipe got %d bytes, not the range", len(b))
	}

	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if n, err := Range(out, f, 0, 100); err != nil || n != 100 {
		t.Fatalf("Range into a file = %d, %v", n, err)
	}
	if b, _ := os.ReadFile(out.Name()); !bytes.Equal(b, data[:100]) {
		t.Fatalf("the file got %q", b)
	}
	app, err := os.OpenFile(filepath.Join(dir, "app"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	app.WriteString("head:")
	if n, err := Range(app, f, 16, 32); err != nil || n != 16 {
		t.Fatalf("Range into an appended file = %d, %v", n, err)
	}
	if b, _ := os.ReadFile(app.Name()); string(b) != "head:"+string(data[16:32]) {
		t.Fatalf("the appended file got %q", b)
	}
	// The source's own offset has not moved.
	if at, _ := f.Seek(0, io.SeekCurrent); at != 0 {
		t.Fatalf("src's offset moved to %d", at)
	}
}

// A source shorter than the range: what it holds, then ErrUnexpectedEOF.
func TestRangeShortSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("abc"), 0o600)
	f, _ := os.Open(src)
	defer f.Close()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	n, err := Range(out, f, 0, 10)
	if n != 3 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Range of 3 bytes as 10 = %d, %v", n, err)
	}
}
