package input

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// maxGrownBlock is where GNU parallel stops growing the block size for a
// long record (2 GiB - 1); reading goes on past it, a block size at a time.
const maxGrownBlock = 1<<31 - 1

// MaxBlockSize is the largest block size NewBlockSplitter takes (1 TiB).
// GNU parallel's --pipe takes at most 2 GiB - 1 (it warns and uses that);
// fan takes what memory allows, and refuses sizes no memory holds.
const MaxBlockSize = 1 << 40

// BlockSplitter cuts a byte stream into the blocks of pipe mode (--pipe),
// as GNU parallel 20221122 does:
//
//   - The header (Records.Header), if any, is read first, once; every
//     block repeats it.
//   - The input is read a block size at a time (more precisely, up to the
//     next multiple of the block size, counting what is left over from
//     the last cut). Without -N or -L, a block is all that the buffer
//     holds up to its last record boundary, so it is at most the block
//     size long, and the rest waits for the next block.
//   - With -N, a block is N records, however long (the size only says how
//     much is read at a time). With -L (and no -N), a block is as many
//     whole L-line records as the buffer holds.
//   - A record longer than the block size is not split: when a buffer
//     yields no block, the block size grows for good to 1.3 times plus
//     one (see OnGrow), and more is read.
//   - At the end of input, what is left is one last block (without -N or
//     -L, all of it; with them, after the whole records are cut), with
//     or without a final record end. An empty input, or one that is only
//     a header, gives no block: GNU parallel runs no job for it.
//
// fan differs from GNU parallel on purpose in two places: -0 means NUL
// records (Records.Null), and -N counts an empty record at the start of a
// buffer (see cutRule.nth). Data is never altered (GNU parallel's -r
// deletes blank lines from blocks).
//
// A BlockSplitter is used by one goroutine; the blocks it returns may go
// to any (see Block). Its memory is the blocks not yet released, plus one
// block size or so for the block being read.
type BlockSplitter struct {
	// OnGrow, when set before the first Next, is called by Next each time
	// the block size grows because a record did not fit in it (GNU
	// parallel warns "A record was longer than FROM. Increasing to
	// --blocksize TO.").
	OnGrow func(from, to int64)

	r      io.Reader
	rule   *cutRule
	size   int64  // the block size: grows past a long record
	header []byte // the header, once found
	pool   chunkPool

	c          *chunk // the buffer being cut; nil before the first read
	start, end int    // what is read and not yet in a block: c.buf[start:end]
	off        int64  // where c.buf[start] is in the input
	cuts       []int  // lengths of the blocks cut in this round
	returned   int    // how many of cuts Next has returned
	seq        int64

	looked bool  // the header has been looked for
	passed bool  // a buffer has been cut at least once
	wrote  bool  // the last cut yielded a block
	junk   bool  // Regexp with -N: what precedes the first record is settled
	eof    bool  // the last fill met the end of input (GNU parallel's $eof)
	ended  bool  // the reader has said io.EOF, or failed with err
	err    error // the read error that ended the input, if not io.EOF
}

// NewBlockSplitter returns a BlockSplitter reading r, with blocks of about
// size bytes (0 means DefaultBlockSize). It reads nothing yet; an error
// means the options cannot be used (a size below 0 or above MaxBlockSize,
// a regular expression that does not compile).
func NewBlockSplitter(r io.Reader, size int64, rec Records) (*BlockSplitter, error) {
	if size < 0 {
		return nil, fmt.Errorf("block size %d: only --pipepart takes a negative --block", size)
	}
	if size > MaxBlockSize {
		return nil, fmt.Errorf("block size %d is more than 1T: a block is held in memory", size)
	}
	if size == 0 {
		size = DefaultBlockSize // GNU parallel: --block 0 is the default
	}
	rule, err := rec.compile()
	if err != nil {
		return nil, err
	}
	return &BlockSplitter{r: r, rule: rule, size: size}, nil
}

// Header returns the input's header (empty without one). It is known
// after the first call to Next.
func (s *BlockSplitter) Header() []byte { return s.header }

// Next returns the next block. At the end of input it returns io.EOF, and
// so does every later call. A read error (ErrStopped, over a closed Gate)
// ends the input as its end would: the bytes read before it come out in
// blocks first (the last may end within a record), then Next returns the
// error.
func (s *BlockSplitter) Next() (*Block, error) {
	if !s.looked {
		s.looked = true
		s.findHeader()
	}
	for {
		if s.returned < len(s.cuts) {
			s.returned++
			return s.block(s.cuts[s.returned-1]), nil
		}
		s.cuts, s.returned = s.cuts[:0], 0
		if s.passed && s.eof {
			if s.end > s.start {
				return s.block(s.end - s.start), nil
			}
			if s.c != nil {
				s.c.unref()
				s.c = nil
			}
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
		if s.passed && !s.wrote {
			s.grow()
		}
		s.fill()
		s.cut()
		s.passed = true
	}
}

// findHeader reads until the header expression matches the start of the
// input, or the input ends (no header then), as GNU parallel's
// find_header does a block size at a time. GNU parallel tries the
// expression after every read, which takes time quadratic in the length
// of an input without a header (--header : over one long line); fan tries
// it after each of the first 16 reads, then after 32, 64, 128 ... and at
// the end of input. That finds the same header, and cuts the same blocks,
// unless the header is longer than 16 block sizes.
func (s *BlockSplitter) findHeader() {
	if s.rule.header == nil {
		return
	}
	for reads := 1; ; reads++ {
		s.fill()
		if reads > 16 && reads&(reads-1) != 0 && !s.eof {
			continue
		}
		data := s.c.buf[s.start:s.end]
		if n, ok := s.rule.headerLen(data); ok {
			s.header = append([]byte(nil), data[:n]...)
			s.start += n
			s.off += int64(n)
			return
		}
		if s.eof {
			return
		}
	}
}

// firstChunk is the most a buffer holds at first: a buffer grows, by
// doubling, to the block size as data comes, so that a large --block
// over a small input takes little memory. Buffers are reused (see
// chunkPool), so in a long run they are allocated once, at full size.
const firstChunk = 64 << 10

// fill reads up to the next multiple of the block size, counting what is
// left from the last cut, as GNU parallel's read_block does.
func (s *BlockSplitter) fill() {
	if s.ended {
		s.eof = true
		if s.c == nil {
			s.c = s.pool.get(0)
		}
		return
	}
	have := s.end - s.start
	want := have + int(s.size-int64(have)%s.size) // bytes from s.start
	for idle := 0; s.end-s.start < want; {
		if s.c == nil || s.end == len(s.c.buf) {
			s.move(want)
		}
		n, err := s.r.Read(s.c.buf[s.end:min(s.start+want, len(s.c.buf))])
		s.end += n
		switch {
		case err != nil:
			// A read that fills the buffer is not the end yet, even if
			// it says io.EOF: GNU parallel cuts the full buffer first,
			// and meets the end with its next read.
			s.ended, s.eof = true, s.end-s.start < want
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			return
		case n > 0:
			idle = 0
		default:
			if idle++; idle >= 100 {
				s.ended, s.eof, s.err = true, true, io.ErrNoProgress
				return
			}
		}
	}
}

// move moves what is not yet in a block to the start of a buffer with
// room for more of it, up to want bytes in all: twice as much as it
// holds, at least firstChunk (a reused buffer may have more room).
func (s *BlockSplitter) move(want int) {
	have := s.end - s.start
	n := min(want, max(2*have, firstChunk))
	if s.off >= s.size {
		n = want // the input is longer than a block: it needs whole ones
	}
	c := s.pool.get(n)
	c.buf = c.buf[:cap(c.buf)]
	if s.c != nil {
		copy(c.buf, s.c.buf[s.start:s.end])
		s.c.unref()
	}
	s.c, s.start, s.end = c, 0, have
}

// cut finds the blocks in what is read: one (at the last boundary) without
// -N or -L, and not at the end of input (then the rest is one block); all
// the N-record blocks with -N; the last whole L-line records with -L.
func (s *BlockSplitter) cut() {
	data := s.c.buf[s.start:s.end]
	r := s.rule
	switch {
	case r.lines > 0:
		if b := r.lineCut(data); b > 0 {
			s.cuts = append(s.cuts, b)
		}
	case r.n > 0:
		p := 0
		if r.re != nil && !s.junk {
			j := r.junk(data)
			if j < 0 {
				break // no boundary yet: read on
			}
			s.junk = true
			if j > 0 {
				s.cuts = append(s.cuts, j)
				p = j
			}
		}
		for {
			b := r.nth(data[p:], r.n)
			if b < 0 {
				break
			}
			s.cuts = append(s.cuts, b)
			p += b
		}
	case !s.eof:
		if b := r.last(data); b > 0 {
			s.cuts = append(s.cuts, b)
		}
	}
	s.wrote = len(s.cuts) > 0
}

// grow makes the block size 1.3 times plus one larger (GNU parallel's
// increase_blocksize_maybe), up to maxGrownBlock.
func (s *BlockSplitter) grow() {
	if s.size >= maxGrownBlock {
		return
	}
	from := s.size
	s.size = min(int64(math.Ceil(float64(s.size)*1.3+1)), maxGrownBlock)
	if s.OnGrow != nil {
		s.OnGrow(from, s.size)
	}
}

// block returns the next n bytes of data as a block.
func (s *BlockSplitter) block(n int) *Block {
	s.seq++
	end := s.start + n
	b := &Block{Seq: s.seq, Offset: s.off, Header: s.header, Data: s.c.buf[s.start:end:end], c: s.c}
	s.c.refs.Add(1)
	s.start = end
	s.off += int64(n)
	return b
}
