package input

import (
	"errors"
	"io"
)

// tuples yields one record from each source per call: the rows of a
// cartesian product or of a --link zip. When a drain stops a source
// (ErrStopped) part way through a tuple, next returns the records it took
// before the stop with the error, so that consumed input is not lost.
type tuples interface {
	next() ([]string, error)
}

// single streams one source: each record is a tuple of one.
type single struct{ src Source }

func (s single) next() ([]string, error) {
	rec, err := s.src.Next()
	if err != nil {
		return nil, err
	}
	return []string{rec}, nil
}

// product is the cartesian product of its sources, the first varying
// slowest. The first source is streamed; the others are read whole when the
// first tuple is asked for.
type product struct {
	first  Source
	others []Source
	rest   [][]string // the other sources, read whole
	idx    []int      // odometer over rest; the last varies fastest
	cur    string     // the current record of the first source
	live   bool       // cur is valid and idx points at the next combination
}

func (p *product) next() ([]string, error) {
	if p.rest == nil {
		p.rest = make([][]string, len(p.others))
		for i, src := range p.others {
			recs, err := readAll(src)
			if err != nil {
				var taken []string // consumed input, should a drain have stopped it
				for _, r := range p.rest[:i] {
					taken = append(taken, r...)
				}
				p.rest = nil
				if errors.Is(err, ErrStopped) {
					return append(taken, recs...), err
				}
				return nil, err
			}
			if len(recs) == 0 {
				return nil, io.EOF // a product with an empty factor is empty
			}
			p.rest[i] = recs
		}
		p.idx = make([]int, len(p.rest))
	}
	if !p.live {
		rec, err := p.first.Next()
		if err != nil {
			return nil, err
		}
		p.cur, p.live = rec, true
	}
	t := make([]string, 0, 1+len(p.rest))
	t = append(t, p.cur)
	for i, recs := range p.rest {
		t = append(t, recs[p.idx[i]])
	}
	// Advance the odometer; when it wraps, move on to the next first record.
	for i := len(p.idx) - 1; ; i-- {
		if i < 0 {
			p.live = false
			break
		}
		p.idx[i]++
		if p.idx[i] < len(p.rest[i]) {
			break
		}
		p.idx[i] = 0
	}
	return t, nil
}

// link zips its sources (--link): the n-th tuple holds the n-th record of
// each. Shorter sources wrap around until the longest one ends. Every source
// is streamed and remembered so that it can wrap.
type link struct {
	srcs []Source
	seen [][]string
	pos  []int  // next index into seen once a source has ended
	done []bool // the source has ended at least once
	end  bool   // the zip has ended: every later call returns io.EOF
}

func newLink(srcs []Source) *link {
	return &link{srcs: srcs, seen: make([][]string, len(srcs)), pos: make([]int, len(srcs)), done: make([]bool, len(srcs))}
}

func (l *link) next() ([]string, error) {
	if l.end {
		return nil, io.EOF
	}
	t := make([]string, len(l.srcs))
	for i, src := range l.srcs {
		if !l.done[i] {
			rec, err := src.Next()
			switch {
			case err == nil:
				l.seen[i] = append(l.seen[i], rec)
				t[i] = rec
				continue
			case errors.Is(err, ErrStopped):
				return l.taken(t[:i]), err
			case err != io.EOF:
				return nil, err
			}
			l.done[i] = true
			if len(l.seen[i]) == 0 || l.allDone() {
				l.end = true
				return nil, io.EOF
			}
		}
		t[i] = l.seen[i][l.pos[i]%len(l.seen[i])]
		l.pos[i]++
	}
	return t, nil
}

// taken returns the records of a tuple cut short that were read from
// their sources, leaving out those repeated from a source that had ended.
func (l *link) taken(t []string) []string {
	var out []string
	for i, rec := range t {
		if !l.done[i] {
			out = append(out, rec)
		}
	}
	return out
}

func (l *link) allDone() bool {
	for _, d := range l.done {
		if !d {
			return false
		}
	}
	return true
}
