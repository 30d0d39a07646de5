package input

import "io"

// stopAt ends a source at the first record equal to eof (GNU parallel's
// -E): that record and the rest are never read.
type stopAt struct {
	src  Source
	eof  string
	done bool
}

func (s *stopAt) Next() (string, error) {
	if s.done {
		return "", io.EOF
	}
	rec, err := s.src.Next()
	if err == nil && rec == s.eof {
		s.done = true
		return "", io.EOF
	}
	return rec, err
}
