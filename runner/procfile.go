package runner

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/fan-run/fan/internal/pathmsg"
)

// ProcFile is a job count kept in a file that may change while fan runs
// (GNU parallel's procfile, -j FILE). Its Read is FixedSlots.Refresh.
// Writers are not atomic (`echo 2 > FILE` empties the file first), so an
// empty, unreadable or invalid read keeps the last good count; a problem
// is reported once until it clears, an empty file only once it has stayed
// empty for emptyGrace. A change is seen by content, not by a
// whole-second mtime. It is safe for concurrent use.
type ProcFile struct {
	path  string
	parse func(string) (int, error)
	warn  func(string)

	mu     sync.Mutex
	last   []byte // the content the count was read from
	limit  int
	why    string // what the status report says set the limit
	empty  time.Time
	warned bool // a problem was reported and has not cleared since
}

// emptyGrace is how long the file may stay empty before fan says so: a
// writer truncates it first, then writes.
const emptyGrace = 2 * time.Second

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
	p := &ProcFile{path: path, parse: parse, warn: warn}
	p.set(b, n)
	return p, nil
}

// set takes a good count and the content it was read from.
func (p *ProcFile) set(b []byte, n int) {
	p.last, p.limit, p.warned = b, n, false
	p.why = fmt.Sprintf("-j %s, which holds %s", p.path, bytes.TrimSpace(b))
}

// Read reads the file again and returns the job count now, and what the
// status report says about it.
func (p *ProcFile) Read() (limit int, why string) {
	b, err := os.ReadFile(p.path)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil || len(bytes.TrimSpace(b)) != 0 {
		p.empty = time.Time{}
	}
	switch {
	case err != nil:
		p.problem(fmt.Sprintf("fan: -j %s: %v (keeping -j %d meanwhile)", p.path, pathmsg.Bare(err), p.limit))
	case len(bytes.TrimSpace(b)) == 0:
		// A writer between truncating and writing: keep the last count,
		// and say so only if the file stays empty.
		if p.empty.IsZero() {
			p.empty = time.Now()
		} else if time.Since(p.empty) >= emptyGrace {
			p.problem(fmt.Sprintf("fan: -j %s: the file is empty (keeping -j %d meanwhile)", p.path, p.limit))
		}
	case bytes.Equal(b, p.last):
		p.warned = false
	default:
		n, err := p.parse(strings.TrimSpace(string(b)))
		if err != nil {
			p.problem(fmt.Sprintf("fan: -j %s: %v (keeping -j %d meanwhile)", p.path, err, p.limit))
			break
		}
		p.set(b, n)
	}
	return p.limit, p.why
}

// problem reports a problem with the file once until it clears.
func (p *ProcFile) problem(msg string) {
	if !p.warned && p.warn != nil {
		p.warn(msg)
	}
	p.warned = true
}
