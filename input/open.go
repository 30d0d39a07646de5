package input

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fan-run/fan/internal/pathmsg"
)

// SourceSpec is one input source as the command line gives it: items
// (:::), a file (:::: or -a; "-" is stdin), or stdin when no source is
// given.
type SourceSpec struct {
	List   []string // ::: items; non-nil for a list, even an empty one
	File   string   // :::: or -a file; "-" is stdin
	Stdin  bool     // no source was given: read stdin
	Linked bool     // :::+ or ::::+: zipped with the source before it
}

// ReadsStdin reports whether the source is stdin.
func (s SourceSpec) ReadsStdin() bool { return s.Stdin || s.File == "-" }

// OpenSources opens every input source before any job starts, so that an
// unreadable file is reported at once, and splits files and stdin on
// delim. Files and stdin are read through gates; the gates and the lists
// are returned for the reader to close on a drain. The returned function
// closes the files.
func OpenSources(specs []SourceSpec, delim []byte, stdin io.Reader) ([]Source, []Closer, func(), error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var srcs []Source
	var gates []Closer
	stdinUsed := false
	for _, s := range specs {
		switch {
		case s.List != nil:
			l := NewList(s.List)
			gates = append(gates, l)
			srcs = append(srcs, l)
			continue
		case s.ReadsStdin():
			if stdinUsed {
				closeAll()
				return nil, nil, nil, errors.New("stdin is given as an input source twice (use - once)")
			}
			stdinUsed = true
			g := NewGate(stdin)
			gates = append(gates, g)
			srcs = append(srcs, NewSplitter(g, delim))
			continue
		}
		f, err := OpenFile(s.File)
		if err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		files = append(files, f)
		g := NewGate(f)
		gates = append(gates, g)
		srcs = append(srcs, NewSplitter(g, delim))
	}
	return srcs, gates, closeAll, nil
}

// OpenFile opens an input file, refusing a directory, with a message that
// names the path and says what to check.
func OpenFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		err = pathmsg.Bare(err)
		return nil, fmt.Errorf("cannot read input file %q: %v (check the path given to -a or ::::)", path, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("input file %q is a directory (give -a or :::: a file of items)", path)
	}
	return f, nil
}
