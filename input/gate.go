package input

import (
	"errors"
	"io"
	"sync/atomic"
)

// ErrStopped is what a closed Gate or List returns: the input was stopped
// (a drain), not ended.
var ErrStopped = errors.New("input stopped")

// A Closer is an input that yields nothing more once closed: a Gate under
// a file or stdin, or a List. A drain closes them all (Reader.Gates).
type Closer interface {
	Close()
}

// Gate is an io.Reader that reads no more once closed: bytes not yet read
// stay in their pipe or file. A drain closes the gates of the input, so
// that fan takes what it has already buffered and consumes nothing more.
// Close is safe to call from any goroutine; a Read already blocked when
// the gate closes is not interrupted.
type Gate struct {
	r      io.Reader
	closed atomic.Bool
}

// NewGate returns an open Gate over r.
func NewGate(r io.Reader) *Gate { return &Gate{r: r} }

// Read implements io.Reader.
func (g *Gate) Read(p []byte) (int, error) {
	if g.closed.Load() {
		return 0, ErrStopped
	}
	return g.r.Read(p)
}

// Close closes the gate: every later Read returns ErrStopped.
func (g *Gate) Close() { g.closed.Store(true) }
