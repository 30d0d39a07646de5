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

// product is the cartesian product of its factors, the first varying
// slowest. A factor is a source, or sources linked with :::+ (a zip). The
// first factor is streamed; the others are read whole when the first tuple
// is asked for.
type product struct {
	first  tuples
	others []tuples
	rest   [][][]string // the other factors' tuples, read whole
	idx    []int        // odometer over rest; the last varies fastest
	cur    []string     // the current tuple of the first factor
	live   bool         // cur is valid and idx points at the next combination
}

func (p *product) next() ([]string, error) {
	if p.rest == nil {
		p.rest = make([][][]string, len(p.others))
		for i, f := range p.others {
			rows, err := readRows(f)
			if err != nil {
				taken := flatten(p.rest[:i]) // consumed input, should a drain have stopped it
				p.rest = nil
				if errors.Is(err, ErrStopped) {
					return append(taken, flatten([][][]string{rows})...), err
				}
				return nil, err
			}
			if len(rows) == 0 {
				return nil, io.EOF // a product with an empty factor is empty
			}
			p.rest[i] = rows
		}
		p.idx = make([]int, len(p.rest))
	}
	if !p.live {
		t, err := p.first.next()
		if err != nil {
			return t, err
		}
		p.cur, p.live = t, true
	}
	t := append(make([]string, 0, len(p.cur)+len(p.rest)), p.cur...)
	for i, rows := range p.rest {
		t = append(t, rows[p.idx[i]]...)
	}
	// Advance the odometer; when it wraps, move on to the next first tuple.
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

// readRows reads every tuple of f. On an error it returns the tuples read
// so far, and for a drain's stop (ErrStopped) the records of the tuple it
// cut short as a last row.
func readRows(f tuples) ([][]string, error) {
	var rows [][]string
	for {
		t, err := f.next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			if len(t) > 0 {
				rows = append(rows, t)
			}
			return rows, err
		}
		rows = append(rows, t)
	}
}

func flatten(factors [][][]string) []string {
	var out []string
	for _, rows := range factors {
		for _, row := range rows {
			out = append(out, row...)
		}
	}
	return out
}

// zip pairs sources record by record (:::+, ::::+): the n-th tuple holds
// the n-th record of each, and it ends with the shortest source, as GNU
// parallel's :::+ does (unlike --link, which wraps the shorter ones).
type zip struct{ srcs []Source }

func (z zip) next() ([]string, error) {
	t := make([]string, 0, len(z.srcs))
	for _, src := range z.srcs {
		rec, err := src.Next()
		if errors.Is(err, ErrStopped) {
			return t, err
		}
		if err != nil {
			return nil, err // the shortest source has ended
		}
		t = append(t, rec)
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
