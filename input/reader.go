package input

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fan-run/fan/internal/chans"
)

// Reader is the input stage: it combines its sources, splits columns,
// batches records into items and numbers them.
type Reader struct {
	// Sources are read in order; with more than one, their cartesian
	// product (or, with Link, their zip) makes the tuples.
	Sources []Source
	// Link zips the sources instead of multiplying them.
	Link bool
	// Linked[i] links source i to the one before it (:::+, ::::+): the
	// two are zipped, ending with the shorter, and the zip is one factor
	// of the product. It may be shorter than Sources.
	Linked []bool
	// Colsep, when set, splits each record into columns.
	Colsep *regexp.Regexp
	// Trim trims the arguments: the columns with Colsep, else the records.
	// Records keep what was read.
	Trim Trim
	// MaxArgs is the number of tuples per job (-n); 0 means 1.
	MaxArgs int
	// NoArgs (-n 0, as GNU parallel) reads one tuple per job but gives the
	// job no arguments: {} is nothing and nothing is appended. Records
	// still hold what was read.
	NoArgs bool
	// SkipBlank drops records that hold only blanks (-r).
	SkipBlank bool
	// Prefetch reads the whole input before sending the first item, so
	// that the number of jobs (Count) is known from the start (--halt with
	// a percentage needs it, as in GNU parallel).
	Prefetch bool
	// Drop, when set, drops the items whose arguments it refuses, after
	// they were numbered: their numbers are not given to others, and they
	// are not counted (--plus's {choose_k} and {uniq}).
	Drop func(args []string) bool
	// Shuffle reads the whole input, then sends the items in a random
	// order, numbered 1..N in that order (--shuf, as GNU parallel).
	Shuffle bool
	// Count, when set, is incremented for every item read, before it is
	// sent: the progress display's running total. Safe to read while Run
	// runs.
	Count *atomic.Int64
	// Bytes, when set, adds up what the items counted hold (Item.Held),
	// for the status report's read-ahead.
	Bytes *atomic.Int64
	// EOF, when set, ends every source at a record equal to it (-E).
	EOF string
	// Shard, when set (Count above 0), keeps only this shard's items
	// (--shard I/N): the items numbered I+1, I+1+N, I+1+2N ... of the
	// whole input. The others are read and dropped, uncounted; the items
	// kept keep their numbers in the whole input (Seq, {#}).
	Shard Shard
	// Pack, when set, builds the items instead of MaxArgs: as many
	// arguments per item as fit (--xargs, -X, -m, -L, -s). Without its own
	// Lines it packs the records of Sources, one line each.
	Pack *Packer

	// Gates are the sources' inputs (a Gate under each file, the Lists):
	// when ctx ends, Run closes them, takes the complete items the sources
	// had already buffered, and stops at the first read that would consume
	// more input. A Reader without gates takes only the item ready then.
	Gates []Closer
	// Lost, when set, is told the bytes of a record that a drain stopped
	// part way through (StoppedPart): read, but in no item.
	Lost func(read []byte)

	ts  tuples
	seq int64
	// mu guards seq for a packing Reader, whose Run may number the items
	// the Packer gives up (Abandon) while the reading goroutine is blocked.
	mu   sync.Mutex
	eof  bool  // the tuples have ended: a batch cut short by the end is the last
	stop error // a drain stopped the tuples, after the short item it cut
}

// readAheadItems is how many items read may wait for Run to pass them on;
// readAheadPacked, when items are packed (-X, --xargs): each may be a
// whole command line of arguments, 128 KiB of strings and twice that of
// their headers, and a few are enough to keep the next jobs fed.
const (
	readAheadItems  = 64
	readAheadPacked = 4
)

// Run reads every item and sends it on out, in order, until the input ends,
// a read fails or ctx is done. It closes out before it returns, and it
// returns promptly when ctx ends even if a read is blocked: closing the
// Gates wakes a read waiting on a pipe or terminal, and a read that cannot
// be woken is left behind in a goroutine of its own. Items that were
// completely read when ctx ended, including those still in the sources'
// buffers and those a stop cut short, are still sent. The error is nil at
// the end of input and ctx.Err() when ctx ended the reading.
func (r *Reader) Run(ctx context.Context, out chan<- Item) error {
	defer close(out)
	stop := make(chan struct{})
	defer close(stop)
	ahead := readAheadItems
	if r.Pack != nil {
		ahead = readAheadPacked
	}
	items := readAhead(r.next, stop, nil, ahead)
	var held []Item // with Prefetch: everything read, until the end of input
	defer func() {
		for _, item := range held {
			out <- item // the consumer drains out until it is closed
		}
	}()
	// stopped takes, once ctx has ended, the items already read: those the
	// sources hold in their buffers are consumed input, so they go out to
	// be counted as not started. The gates keep anything more from being
	// read; a read that was already blocked is given up on after a moment.
	stopped := func() error {
		if len(r.Gates) == 0 {
			// Nothing keeps the sources from reading on: take only the
			// items that are ready now.
			for ready := true; ready; {
				select {
				case n := <-items:
					if n.err == nil {
						held = append(held, n.v)
					}
					ready = n.err == nil
				default:
					ready = false
				}
			}
			held = append(held, r.takeFromPacker()...)
			return ctx.Err()
		}
		for _, g := range r.Gates {
			g.Close()
		}
		settle(items, func(it Item) { held = append(held, it) }, wakes(r.Gates...))
		held = append(held, r.takeFromPacker()...)
		return ctx.Err()
	}
	for {
		n, _, stop := chans.Receive(items, ctx.Done())
		if stop {
			return stopped()
		}
		if n.err == io.EOF {
			if r.Shuffle {
				shuffle(held)
			}
			return nil
		}
		if n.err != nil {
			return n.err
		}
		if r.Prefetch || r.Shuffle {
			held = append(held, n.v)
			continue
		}
		if !chans.Send(out, n.v, ctx.Done()) {
			held = append(held, n.v)
			return stopped()
		}
	}
}

// shuffle puts items in a random order and numbers them in it.
func shuffle(items []Item) {
	rand.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	for i := range items {
		items[i].Seq = int64(i + 1)
	}
}

// stopWait is how long, after ctx ends, Run waits for the next item the
// sources can give without reading, where a read that was already blocked
// may not wake (a Gate over a reader it cannot poll); where every read
// wakes, Run waits as long as the sources take (see settle). It is
// generous because giving up early loses items that were read: on a
// loaded machine the goroutine yielding them was seen to pause over
// 100 ms, which dropped the 9,000 items left in a 64 KiB buffer.
const stopWait = time.Second

// Shard is one of Count shards of an input: the shard numbered Index
// (0-based) takes its items Index, Index+Count, Index+2*Count ...
// (counted from 0). The zero Shard takes everything.
type Shard struct {
	Index, Count int
}

// takes reports whether the shard takes the item numbered seq (1-based).
func (s Shard) takes(seq int64) bool {
	return s.Count <= 1 || (seq-1)%int64(s.Count) == int64(s.Index)
}

// count counts an item read (Count, Bytes).
func (r *Reader) count(it *Item) {
	if r.Count != nil {
		r.Count.Add(1)
	}
	if r.Bytes != nil {
		r.Bytes.Add(it.Held())
	}
}

// next reads the next item of this shard.
func (r *Reader) next() (Item, error) {
	for {
		item, err := r.nextAny()
		if err == nil && r.Drop != nil && r.Drop(item.Args) {
			continue
		}
		if err != nil || r.Shard.takes(item.Seq) {
			if err == nil {
				r.count(&item)
			}
			return item, err
		}
	}
}

// nextAny reads the records of one item and numbers it.
func (r *Reader) nextAny() (Item, error) {
	if r.Pack != nil {
		return r.packed()
	}
	if r.ts == nil {
		r.ts = r.tuples()
	}
	if r.stop != nil {
		return Item{}, r.stop
	}
	per := max(r.MaxArgs, 1)
	// Plain arguments are the records themselves: the item's Args share
	// Records' array (neither is ever changed in place), and the first
	// tuple is taken as it is, a slice of its own, not copied.
	plain := !r.NoArgs && r.asIs()
	item := Item{}
	for !r.eof && len(item.Records) < per*len(r.Sources) {
		t, err := r.ts.next()
		if err == io.EOF {
			// Tuples are not asked for again: a --link zip would wrap
			// around for ever.
			r.eof = true
			break
		}
		if err != nil && !errors.Is(err, ErrStopped) {
			return Item{}, err
		}
		if item.Records == nil {
			item.Records = t[:len(t):len(t)] // capped: a later append copies
		} else {
			item.Records = append(item.Records, t...)
		}
		if !r.NoArgs && !plain {
			item.Args = r.appendColumns(item.Args, t)
		}
		if err != nil {
			r.tellLost(err)
			// A drain: what was taken goes out as a short item, to be
			// counted as not started; the stop comes next.
			if len(item.Records) == 0 {
				return Item{}, err
			}
			r.stop = err
			break
		}
	}
	if len(item.Records) == 0 {
		return Item{}, io.EOF
	}
	if plain {
		item.Args = item.Records
	}
	r.seq++
	item.Seq = r.seq
	return item, nil
}

func (r *Reader) tuples() tuples {
	srcs := r.Sources
	if r.EOF != "" {
		srcs = make([]Source, len(r.Sources))
		for i, s := range r.Sources {
			srcs[i] = &stopAt{src: s, eof: r.EOF}
		}
	}
	if r.SkipBlank {
		srcs = append([]Source(nil), srcs...)
		for i, s := range srcs {
			srcs[i] = skipBlank{s}
		}
	}
	if r.Link && len(srcs) > 1 {
		return newLink(srcs)
	}
	// The factors of the product: each source alone, or with the ones
	// linked to it (Linked).
	var factors []tuples
	for i := 0; i < len(srcs); {
		j := i + 1
		for j < len(srcs) && j < len(r.Linked) && r.Linked[j] {
			j++
		}
		if j == i+1 {
			factors = append(factors, single{srcs[i]})
		} else {
			factors = append(factors, zip{srcs[i:j]})
		}
		i = j
	}
	if len(factors) == 1 {
		return factors[0]
	}
	return &product{first: factors[0], others: factors[1:]}
}

// asIs reports whether the arguments are the records as they are: no
// --colsep splits them, no --trim trims them.
func (r *Reader) asIs() bool { return r.Colsep == nil && r.Trim == (Trim{}) }

// columns returns the arguments of tuple t: t itself when they are its
// records as they are, else a slice of their own.
func (r *Reader) columns(t []string) []string {
	if r.asIs() {
		return t
	}
	return r.appendColumns(nil, t)
}

// appendColumns appends the arguments of tuple t to args: its records,
// split into columns and trimmed.
func (r *Reader) appendColumns(args []string, t []string) []string {
	if r.asIs() {
		return append(args, t...)
	}
	for _, rec := range t {
		if r.Colsep == nil {
			args = append(args, r.Trim.apply(rec))
			continue
		}
		for _, col := range r.Colsep.Split(rec, -1) {
			args = append(args, r.Trim.apply(col))
		}
	}
	return args
}

// tellLost hands Lost the bytes of a record a drain cut part way through
// (a StoppedPart), in every mode that reads records.
func (r *Reader) tellLost(err error) {
	var part *StoppedPart // on the heap: only here, not per tuple
	if r.Lost != nil && errors.As(err, &part) {
		r.Lost(part.Read)
	}
}

// packed numbers the next item the Packer builds.
func (r *Reader) packed() (Item, error) {
	if r.Pack.Lines == nil {
		r.ts = r.tuples()
		r.Pack.Lines = newRecordLines(r)
	}
	args, err := r.Pack.Next()
	if err != nil {
		return Item{}, err
	}
	return r.packedItem(args), nil
}

// packedItem numbers an item the Packer built.
func (r *Reader) packedItem(args []string) Item {
	recs := args
	if r.Pack.Record != nil {
		recs = make([]string, len(args))
		for i, a := range args {
			recs[i] = r.Pack.Record(a)
		}
	}
	if r.NoArgs {
		args = nil // -m -n 0: packed and spread as usual, passed nothing
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	return Item{Seq: r.seq, Args: args, Records: recs}
}

// takeFromPacker takes, for a drain, what a Packer holds: input that was read
// but not yet packed into an item that went out.
func (r *Reader) takeFromPacker() []Item {
	if r.Pack == nil {
		return nil
	}
	var out []Item
	for _, args := range r.Pack.Abandon() {
		if it := r.packedItem(args); r.Shard.takes(it.Seq) {
			r.count(&it)
			out = append(out, it)
		}
	}
	return out
}
