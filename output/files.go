package output

import (
	"fmt"
	"io"
	"os"

	"github.com/fan-run/fan/runner"
)

// OutputFiles is --files, as GNU parallel's: each job's stdout goes to a
// file of its own in Dir, kept for the user, and the file's name is what
// the job shows on stdout (tagged with --tag). Its stderr is written as
// usual (GNU parallel drops it).
type OutputFiles struct {
	// Dir is where the files are made: --tmpdir, else $TMPDIR, else /tmp.
	Dir string
}

// keep writes out (the job's captured stdout; nil is none) to a new file
// and returns its name.
func (o *OutputFiles) keep(out *os.File) (string, error) {
	f, err := os.CreateTemp(o.Dir, "fan*.par")
	if err != nil {
		return "", err
	}
	if out != nil {
		_, err = io.Copy(f, io.NewSectionReader(out, 0, size(out)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// showFile keeps a job's stdout with --files and writes the file's name
// in its place; it returns the stdout left to write (none).
func (s *Sink) showFile(r *runner.Result, out *os.File) *os.File {
	if s.Files == nil || r.NotStarted || r.DryRun {
		return out
	}
	name, err := s.Files.keep(out)
	if err != nil {
		s.fail(fmt.Errorf("--files: %w (set --tmpdir or TMPDIR to a directory with room)", err))
		return nil
	}
	line := name + "\n"
	if s.Tag != nil {
		line = s.Tag(r) + "\t" + line
	}
	s.write(s.Stdout, func(w io.Writer) error {
		_, err := io.WriteString(w, line)
		return err
	})
	return nil
}
