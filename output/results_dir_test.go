package output

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// UsableDir and MakeResultsDir give the system's reason, without the path.
func TestUsableDir(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "file", "")
	if err := UsableDir(dir); err != nil {
		t.Errorf("UsableDir(a temporary directory) = %v", err)
	}
	if err := UsableDir(file); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("UsableDir(a file) = %v, want ENOTDIR", err)
	}
	if err := UsableDir(filepath.Join(dir, "missing")); err != syscall.ENOENT {
		t.Errorf("UsableDir(missing) = %v, want a bare ENOENT", err)
	}
	if err := MakeResultsDir(filepath.Join(dir, "a", "b")); err != nil {
		t.Errorf("MakeResultsDir(a new path) = %v", err)
	}
	if err := MakeResultsDir(filepath.Join(file, "sub")); err != syscall.ENOTDIR {
		t.Errorf("MakeResultsDir(below a file) = %v, want a bare ENOTDIR", err)
	}
}

// writeFile makes the file name in dir, holding data, and returns its path.
func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
