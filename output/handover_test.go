package output

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fan-run/fan/runner"
)

func TestHandOver(t *testing.T) {
	dir := t.TempDir()
	r, out, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer out.Close()
	file, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	errf, err := os.Create(filepath.Join(dir, "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	tag := func(*runner.Result) string { return "t" }
	for _, c := range []struct {
		name   string
		s      Sink
		serial bool
		want   bool
	}{
		{"-k", Sink{KeepOrder: true}, false, true},
		{"unordered", Sink{}, false, false},
		{"unordered -j1", Sink{}, true, true},
		{"unordered -j1 --tag", Sink{Tag: tag}, true, false},
		{"-k 2>&1", Sink{KeepOrder: true, Stderr: out}, false, false},
		{"-k > file", Sink{KeepOrder: true, Stdout: file}, false, false},
		{"-k --tag", Sink{KeepOrder: true, Tag: tag}, false, false},
		{"-k --line-buffer", Sink{KeepOrder: true, LineBuffer: true}, false, false},
		{"-k -u", Sink{KeepOrder: true, Ungrouped: true}, false, false},
		{"-k --files", Sink{KeepOrder: true, Files: &OutputFiles{Dir: dir}}, false, false},
		{"-k --results", Sink{KeepOrder: true, Results: &Results{Dir: dir}}, false, false},
		{"-k --joblog", Sink{KeepOrder: true, Joblog: &Joblog{}}, false, false},
	} {
		s := c.s
		if s.Stdout == nil {
			s.Stdout = out
		}
		if s.Stderr == nil {
			s.Stderr = errf
		}
		if got := s.HandOver(c.serial); (got != nil) != c.want || got != nil && got != out {
			t.Errorf("%s: HandOver() = %v, want a file %v", c.name, got, c.want)
		}
	}
}
