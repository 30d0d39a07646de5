package cmd

import (
	"fmt"
	"io"
	"os"

	"fan/input"
)

// openSources opens every input source before any job starts, so that an
// unreadable file is reported at once. Files and stdin are read through
// gates; the gates and the lists are returned for the reader to close on a
// drain. The returned closer closes the files.
func openSources(specs []sourceSpec, delim []byte, stdin io.Reader) ([]input.Source, []input.Closer, func(), error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	var srcs []input.Source
	var gates []input.Closer
	stdinUsed := false
	for _, s := range specs {
		switch {
		case s.list != nil:
			l := input.NewList(s.list)
			gates = append(gates, l)
			srcs = append(srcs, l)
			continue
		case s.stdin || s.file == "-":
			if stdinUsed {
				closeAll()
				return nil, nil, nil, usageErrorf("stdin is given as an input source twice (use - once)")
			}
			stdinUsed = true
			g := input.NewGate(stdin)
			gates = append(gates, g)
			srcs = append(srcs, input.NewSplitter(g, delim))
			continue
		}
		f, err := openFile(s.file)
		if err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		files = append(files, f)
		g := input.NewGate(f)
		gates = append(gates, g)
		srcs = append(srcs, input.NewSplitter(g, delim))
	}
	return srcs, gates, closeAll, nil
}

func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{fmt.Errorf("cannot read input file %q: %v (check the path given to -a or ::::)", path, unwrapPath(err))}
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &inputError{fmt.Errorf("input file %q is a directory (give -a or :::: a file of items)", path)}
	}
	return f, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
