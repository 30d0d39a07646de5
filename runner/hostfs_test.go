package runner

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostFS reads a file as os.ReadFile does, however long (a /proc file
// comes a page at a time), and a missing one is fs.ErrNotExist, as the
// cgroup readers expect.
func TestHostFSReadsWholeFiles(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4095, 4096, 4097, 100_000} {
		path := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("0123456789abcdef\n"), size/17+1)[:size]
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := fs.ReadFile(hostFS{}, strings.TrimPrefix(path, "/"))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes, %v", size, len(got), err)
		}
	}
	// A file of /proc that does not change while the process runs.
	want, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatalf("no /proc here: %v", err)
	}
	got, err := fs.ReadFile(hostFS{}, "proc/self/environ")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("/proc/self/environ: read %d bytes, %v; os.ReadFile read %d", len(got), err, len(want))
	}
	if _, err := fs.ReadFile(hostFS{}, strings.TrimPrefix(filepath.Join(dir, "none"), "/")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := fs.ReadFile(hostFS{}, "/etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("a rooted name: %v, want fs.ErrInvalid", err)
	}
}
