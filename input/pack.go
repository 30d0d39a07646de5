package input

import (
	"errors"
	"io"
	"strings"
	"sync"
)

// ErrArgTooLong is an argument that does not fit in a command line on its
// own, even with nothing else in it.
var ErrArgTooLong = errors.New("an item does not fit in a command line on its own")

// ErrItemTooLong is an argument longer than the system lets one argument
// be (Packer.MaxItem).
var ErrItemTooLong = errors.New("an item is longer than the system allows one argument to be")

// ErrListTooLong is -x: the items that -n or -L put together do not fit in
// a command line.
var ErrListTooLong = errors.New("the items of one job do not fit in a command line (-x)")

// LineReader yields arguments a logical input line at a time: the items on
// the line, and how many input lines it counts as for -L.
type LineReader interface {
	ReadLine() (items []string, lines int, err error)
}

// Packer puts as many arguments in each item as fit in a command line, as
// xargs does and as GNU parallel's -X and -m do, within the -n, -L and -s
// limits.
type Packer struct {
	// Lines is where arguments come from. When it is nil, a Reader feeds
	// the packer its own records, one line each.
	Lines LineReader
	// MaxArgs is the most arguments per item (-n); 0 means no limit.
	MaxArgs int
	// CountRecords makes MaxArgs count input records (lines, which
	// --colsep makes several arguments), as GNU parallel does, rather than
	// arguments, as xargs does.
	CountRecords bool
	// MaxLines is the most input lines per item (-L); 0 means no limit.
	MaxLines int
	// Limit is the largest size a command may have (-s), in the unit of
	// Base and Cost; 0 means no limit.
	Limit int
	// Base is the size of the command with no arguments.
	Base int
	// Cost is the size an argument adds to a command; first is set for the
	// first argument of the command. Nil counts len(arg)+1, as xargs does.
	Cost func(arg string, first bool) int
	// Hard, when positive, is a second limit on Base plus the costs plus
	// PerArg for each argument: what the kernel counts (a pointer per
	// argument), so that a packed command never fails with E2BIG.
	Hard, PerArg int
	// MaxItem, when positive, is the longest an argument may be (the
	// kernel's limit on one string); a longer one is ErrItemTooLong.
	MaxItem int
	// Exact is -x: when the arguments that -n or -L group do not fit, fail
	// with ErrListTooLong instead of splitting them.
	Exact bool
	// Whole is -I: every line is one item on its own; a line too long
	// fails with ErrListTooLong.
	Whole bool
	// RunEmpty yields one item with no arguments when the input holds none
	// (xargs without -r).
	RunEmpty bool
	// Record, when set, turns an argument back into input text for the
	// item's Records (XargsQuote for xargs's quoting); nil keeps it as is.
	Record func(arg string) string
	// Spread, when above 1, is GNU parallel's -X and -m with several job
	// slots: the item being packed when the input ends is split into
	// Spread items as even as can be (the first ones a little larger), so
	// that the end of the input runs on every slot rather than in one job.
	Spread int

	// mu guards the packer's state against Abandon, which another
	// goroutine may call while Next is blocked reading.
	mu      sync.Mutex
	pending []string
	size    int // Base plus the costs of pending
	hard    int
	lines   int
	ready   [][]string
	err     error // to return once ready is empty
	emitted bool
	eof     bool
	spread  bool // the input's end was seen and Spread applied
	// starts are where the input lines (records, which --colsep makes
	// several arguments) begin in pending; lastStarts, in the item flushed
	// last. Spread splits between records, never inside one.
	starts, lastStarts []int
	lineStart          bool // the next argument pushed begins a line
}

// Next returns the arguments of the next item. After the last one it
// returns io.EOF. A size error comes after the arguments xargs would still
// run (those read before it, unless Exact or Whole). After Abandon it
// returns ErrStopped.
func (p *Packer) Next() ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ready) == 0 || p.mayBeLast() {
		if p.err != nil {
			return nil, p.err
		}
		if p.eof {
			if p.RunEmpty && !p.emitted {
				p.emitted = true
				return []string{}, nil
			}
			return nil, io.EOF
		}
		p.mu.Unlock()
		items, lines, err := p.Lines.ReadLine() // may block: Abandon can run meanwhile
		p.mu.Lock()
		if p.err == ErrStopped {
			return nil, ErrStopped
		}
		p.fill(items, lines, err)
	}
	args := p.ready[0]
	p.ready = p.ready[1:]
	p.emitted = true
	return args, nil
}

// Abandon ends the packer for a drain: it returns every argument read and
// not yet handed out by Next, as items (the one being packed included), so
// that consumed input is not lost while Next is blocked reading; later
// calls of Next return ErrStopped.
func (p *Packer) Abandon() [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flush()
	out := p.ready
	p.ready, p.err = nil, ErrStopped
	return out
}

// fill packs the items of a line that was read.
func (p *Packer) fill(items []string, lines int, err error) {
	p.lineStart = true
	for _, it := range items {
		if perr := p.push(it); perr != nil {
			p.err = perr
			return
		}
	}
	if p.MaxArgs > 0 && p.CountRecords && len(p.starts) >= p.MaxArgs {
		p.flush()
	}
	if p.Whole {
		if len(items) > 0 || lines > 0 {
			p.flush()
		}
	} else {
		p.lines += lines
		if p.MaxLines > 0 && p.lines >= p.MaxLines {
			p.flush()
		}
	}
	switch {
	case err == io.EOF:
		p.eof = true
		p.flush()
		p.spreadLast()
	case err != nil:
		// Like xargs, run what was read before the error, unless -x or -I
		// asked for all or nothing.
		if !p.Exact && !p.Whole {
			p.flush()
		}
		p.err = err
	}
}

// mayBeLast reports whether the one item ready may be the last of the
// input, which Spread would split: it cannot be handed out before the
// input is known to go on (or to end). GNU parallel reads ahead the same
// way.
func (p *Packer) mayBeLast() bool {
	return p.Spread > 1 && !p.spread && len(p.ready) == 1 && len(p.pending) == 0 && !p.eof && p.err == nil
}

// spreadLast applies Spread, once, to the last item packed: the one the
// input ended in, which is still in ready (see mayBeLast). Its records go
// into up to Spread items of ceil(records/Spread) records each.
func (p *Packer) spreadLast() {
	if p.Spread <= 1 || p.spread || len(p.ready) == 0 {
		return
	}
	p.spread = true
	last, starts := p.ready[len(p.ready)-1], p.lastStarts
	if len(starts) < 2 {
		return
	}
	p.ready = p.ready[:len(p.ready)-1]
	per := 1 + (len(starts)-1)/p.Spread // ceil, without overflow
	for i := 0; i < len(starts); i += per {
		end := len(last)
		if i+per < len(starts) {
			end = starts[i+per]
		}
		p.ready = append(p.ready, last[starts[i]:end:end])
	}
}

// push adds an argument to the item being packed, flushing it first when
// the argument would not fit or -n is reached.
func (p *Packer) push(arg string) error {
	if p.MaxItem > 0 && len(arg) > p.MaxItem {
		if !p.Exact && !p.Whole {
			p.flush() // as xargs does when an item outgrows its buffer
		}
		return ErrItemTooLong
	}
	c, h := p.cost(arg, len(p.pending) == 0)
	if !p.fits(c, h) {
		if len(p.pending) == 0 {
			return ErrArgTooLong
		}
		if p.Whole || (p.Exact && (p.MaxArgs > 0 || p.MaxLines > 0)) {
			return ErrListTooLong
		}
		p.flush()
		c, h = p.cost(arg, true)
		if !p.fits(c, h) {
			return ErrArgTooLong
		}
	}
	if p.lineStart || len(p.pending) == 0 {
		p.starts = append(p.starts, len(p.pending))
	}
	p.lineStart = false
	p.pending = append(p.pending, arg)
	p.size += c
	p.hard += h
	if p.MaxArgs > 0 && !p.CountRecords && len(p.pending) == p.MaxArgs {
		p.flush() // as xargs: at once, not when the next item comes
	}
	return nil
}

func (p *Packer) cost(arg string, first bool) (int, int) {
	c := len(arg) + 1
	if p.Cost != nil {
		c = p.Cost(arg, first)
	}
	return c, c + p.PerArg
}

func (p *Packer) fits(c, h int) bool {
	if p.Limit > 0 && p.Base+p.size+c > p.Limit {
		return false
	}
	return p.Hard <= 0 || p.Base+p.hard+h <= p.Hard
}

// flush makes the pending arguments an item.
func (p *Packer) flush() {
	p.lines = 0
	if len(p.pending) == 0 {
		return
	}
	p.ready = append(p.ready, p.pending)
	// The next item is likely the size of this one: room for it at once
	// spares the copies of growing it a million items long (-X).
	p.pending, p.size, p.hard = make([]string, 0, len(p.pending)), 0, 0
	p.lastStarts, p.starts = p.starts, make([]int, 0, len(p.starts))
}

// recordLines turns a Reader's tuples into packer lines: each tuple is one
// line whose items are its columns. With -L, as with GNU parallel's, a
// record that ends with a blank goes on with the next one: the two make
// one item. -X, -m and -s alone keep every record whole, as parallel does
// (two file names must not merge).
type recordLines struct {
	r *Reader
	// src is the input's one source, when there is just one (its tuples
	// are single), read here rather than through r.ts, each record into
	// one: the Packer keeps the strings it is given, never the slice, so
	// a million records need no slice each, where a tuple's next must
	// make one (other readers keep it).
	src Source
	one [1]string
}

// newRecordLines reads the tuples of r, which has them (r.ts) already.
func newRecordLines(r *Reader) *recordLines {
	l := &recordLines{r: r}
	if s, ok := r.ts.(single); ok {
		l.src = s.src
	}
	return l
}

func (l *recordLines) ReadLine() ([]string, int, error) {
	t, err := l.tuple()
	if err != nil {
		// A drain may have stopped the input part way through a tuple:
		// the packer keeps what was taken.
		l.r.tellLost(err)
		return l.r.columns(t), len(t), err
	}
	for l.r.Pack.MaxLines > 0 && len(t) == 1 && (strings.HasSuffix(t[0], " ") || strings.HasSuffix(t[0], "\t")) {
		more, err := l.r.ts.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			l.r.tellLost(err)
			return l.r.columns(t), 1, err
		}
		t = []string{t[0] + more[0]}
	}
	return l.r.columns(t), 1, nil
}

// tuple reads the next tuple; a single source's record is put in l.one.
func (l *recordLines) tuple() ([]string, error) {
	if l.src == nil {
		return l.r.ts.next()
	}
	rec, err := l.src.Next()
	if err != nil {
		return nil, err
	}
	l.one[0] = rec
	return l.one[:], nil
}
