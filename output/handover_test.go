package output

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fan-run/fan/runner"
)

func TestHandOver(t *testing.T) {
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errf, err := os.Create(filepath.Join(dir, "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	tag := func(*runner.Result) string { return "t" }
	for _, c := range []struct {
		name string
		s    Sink
		want bool
	}{
		{"-k", Sink{KeepOrder: true}, true},
		{"unordered", Sink{}, false},
		{"-k 2>&1", Sink{KeepOrder: true, Stderr: out}, false},
		{"-k --tag", Sink{KeepOrder: true, Tag: tag}, false},
		{"-k --line-buffer", Sink{KeepOrder: true, LineBuffer: true}, false},
		{"-k -u", Sink{KeepOrder: true, Ungrouped: true}, false},
		{"-k --files", Sink{KeepOrder: true, Files: &OutputFiles{Dir: dir}}, false},
		{"-k --results", Sink{KeepOrder: true, Results: &Results{Dir: dir}}, false},
		{"-k --joblog", Sink{KeepOrder: true, Joblog: &Joblog{}}, false},
	} {
		s := c.s
		s.Stdout = out
		if s.Stderr == nil {
			s.Stderr = errf
		}
		if got := s.HandOver(); (got != nil) != c.want || got != nil && got != out {
			t.Errorf("%s: HandOver() = %v, want a file %v", c.name, got, c.want)
		}
	}
}
