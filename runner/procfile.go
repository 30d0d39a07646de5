package runner

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
)

// ProcFile is a job count kept in a file that may change while fan runs
// (GNU parallel's procfile, -j FILE). Its Read is FixedSlots.Refresh.
// Writers are not atomic (`echo 2 > FILE` empties the file first), so an
// empty, unreadable or invalid read keeps the last good count; a problem
// that lasts is reported once. A change is seen by content, not by a
// whole-second mtime. It is safe for concurrent use.
type ProcFile struct {
	path  string
	parse func(string) (int, error)
	warn  func(string)

	mu     sync.Mutex
	last   []byte // the content the count was read from
	limit  int
	warned bool // a problem was reported and has not cleared since
}

// NewProcFile reads path for the first time: a file that cannot be read or
// holds no job count is an error now, before any job runs. parse reads a
// count as -j does; warn, which must not block, reports a later problem.
func NewProcFile(path string, parse func(string) (int, error), warn func(string)) (*ProcFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	n, err := parse(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, err
	}
	return &ProcFile{path: path, parse: parse, warn: warn, last: b, limit: n}, nil
}

// Read reads the file again and returns the job count now.
func (p *ProcFile) Read() int {
	b, err := os.ReadFile(p.path)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil:
		p.problem(fmt.Sprintf("fan: -j %s: %v (keeping -j %d)", p.path, unwrapPath(err), p.limit))
	case len(bytes.TrimSpace(b)) == 0:
		// A writer between truncating and writing: keep the last count.
	case bytes.Equal(b, p.last):
		p.warned = false
	default:
		n, err := p.parse(strings.TrimSpace(string(b)))
		if err != nil {
			p.problem(fmt.Sprintf("fan: -j %s: %v (keeping -j %d)", p.path, err, p.limit))
			break
		}
		p.last, p.limit, p.warned = b, n, false
	}
	return p.limit
}

// problem reports a problem with the file once until it clears.
func (p *ProcFile) problem(msg string) {
	if !p.warned && p.warn != nil {
		p.warn(msg)
	}
	p.warned = true
}

// unwrapPath is an error without the *PathError's operation and path,
// which the message names already.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
