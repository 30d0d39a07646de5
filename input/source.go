package input

import (
	"io"
	"sync/atomic"
)

// Source yields input records one at a time. Next returns io.EOF after the
// last record; any other error is a read error.
type Source interface {
	Next() (string, error)
}

// List is a Source over records given on the command line (::: a b c).
type List struct {
	recs   []string
	i      int
	closed atomic.Bool
}

// NewList returns a Source that yields recs in order.
func NewList(recs []string) *List { return &List{recs: recs} }

// Next implements Source. After Close it returns ErrStopped.
func (l *List) Next() (string, error) {
	if l.closed.Load() {
		return "", ErrStopped
	}
	if l.i >= len(l.recs) {
		return "", io.EOF
	}
	l.i++
	return l.recs[l.i-1], nil
}

// Close stops the list, as Gate.Close stops a file: it is safe to call
// from any goroutine, and Next yields nothing more.
func (l *List) Close() { l.closed.Store(true) }

// skipBlank drops records that hold only blanks (-r).
type skipBlank struct{ src Source }

func (s skipBlank) Next() (string, error) {
	for {
		rec, err := s.src.Next()
		if err != nil || !IsBlank(rec) {
			return rec, err
		}
	}
}
