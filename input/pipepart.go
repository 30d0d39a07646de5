package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Span is a byte range of a file: Len bytes from offset Off.
type Span struct {
	Off, Len int64
}

// Parts is how --pipepart cuts a file: each job reads the Header span
// (Len 0 without a header) and then its block's span. The Blocks follow
// each other without a gap from the header's end to the file's end.
type Parts struct {
	Header Span
	Blocks []Span
}

// PartBlockSize returns --pipepart's block size for --block -N: the total
// size of the -a files cut so that each of the slots job slots gets
// perSlot blocks, as GNU parallel computes it (1 + total/slots/perSlot).
// GNU parallel's --pipepart without --block is --block -10 (ten blocks
// per slot), and with --round-robin --block -1.
func PartBlockSize(total int64, slots, perSlot int) int64 {
	return 1 + total/int64(max(slots, 1))/int64(max(perSlot, 1))
}

// partWindow is how much FileParts reads first after a nominal cut to
// find a record boundary; it reads twice as much each time it finds none.
const partWindow = 32 << 10

// FileParts cuts a file of size bytes, read through r, into --pipepart
// blocks of about block bytes (GNU parallel's find_split_positions): the
// header (rec.Header) is found at the start, then from the header's end,
// every block bytes, the cut moves on to the first record boundary whose
// record end starts at or after that point, and the next nominal cut is
// block bytes after it. The last block ends at the end of the file; a
// file that is empty, or only a header, has no block. Without a
// boundary after a nominal cut, the rest of the file is one block.
//
// Only the header and a little after each nominal cut are read (a few
// tens of KiB, more for records longer than that). r is read with ReadAt
// only; FileParts is safe to call on a file others read too.
//
// With rec.Regexp, GNU parallel moves each cut to the last boundary in
// the next 128 KiB (blocks then differ in size by up to that much), and
// its ^ matches only at the nominal cut itself (it reads the rest of the
// file when that is not a record start). fan cuts at the first boundary
// after the nominal cut (one whose End began before it counts when the
// End runs past it, as a run of newlines may), and the match sees the
// byte before the cut, so ^ means the start of a line. -N and -L are
// refused, as GNU parallel refuses them.
func FileParts(r io.ReaderAt, size, block int64, rec Records) (Parts, error) {
	if rec.N > 0 || rec.L > 0 {
		return Parts{}, errors.New("--pipepart cuts a file by size: it takes no -N or -L")
	}
	if block < 1 {
		return Parts{}, fmt.Errorf("block size %d: --pipepart needs a block size of at least 1 (or -N, see PartBlockSize)", block)
	}
	rule, err := rec.compile()
	if err != nil {
		return Parts{}, err
	}
	var p Parts
	if rule.header != nil {
		n, err := partHeader(r, size, block, rule)
		if err != nil {
			return Parts{}, err
		}
		p.Header = Span{0, n}
	}
	prev := p.Header.Len
	for size-prev > block { // the next nominal cut, prev+block, is in the file
		cut, err := partCut(r, size, prev+block, rule)
		if err != nil {
			return Parts{}, err
		}
		if cut < 0 {
			break // no boundary in the rest of the file
		}
		p.Blocks = append(p.Blocks, Span{prev, cut - prev})
		prev = cut
	}
	if prev < size {
		p.Blocks = append(p.Blocks, Span{prev, size - prev})
	}
	return p, nil
}

// partHeader returns the length of the header at the start of the file
// (0 when the expression never matches). For a block size up to
// partWindow it tries the expression as --pipe does (see findHeader): on
// the first block size, the first two, ... the first 16, then 32, 64 ...
// For a larger block size, on partWindow bytes, then twice as much, and so
// on, rather than read a whole block for a header of a line (GNU parallel
// reads a block size; a greedy expression, say (#.*\n)*, might match
// more of it than of the first partWindow bytes).
func partHeader(r io.ReaderAt, size, block int64, rule *cutRule) (int64, error) {
	step := min(block, partWindow)
	var buf []byte
	for want := step; ; {
		want = min(want, size)
		var err error
		if buf, err = readAtLeast(r, buf, 0, want); err != nil {
			return 0, err
		}
		if n, ok := rule.headerLen(buf); ok {
			return int64(n), nil
		}
		if want == size {
			return 0, nil
		}
		if block <= partWindow && want < 16*step {
			want += step
		} else {
			want *= 2
		}
	}
}

// partCut returns the first record boundary after the nominal cut pos, or
// -1 when there is none before the end of the file.
func partCut(r io.ReaderAt, size, pos int64, rule *cutRule) (int64, error) {
	if rule.re == nil && len(rule.sep) == 0 {
		return pos, nil // records end anywhere
	}
	// Under Regexp the window starts a byte early: see FileParts.
	ctx := int64(0)
	if rule.re != nil {
		ctx = 1
	}
	from := pos - ctx
	var buf []byte
	searched := 0 // without Regexp: where the separator may still start
	for want := int64(partWindow); ; want *= 2 {
		end := min(from+want, size)
		var err error
		if buf, err = readAtLeast(r, buf, from, end-from); err != nil {
			return 0, err
		}
		atEOF := end == size
		if rule.re == nil {
			if i := bytes.Index(buf[searched:], rule.sep); i >= 0 {
				return from + int64(searched+i+rule.endLen), nil
			}
			searched = max(0, len(buf)-len(rule.sep)+1)
		} else {
			for _, m := range rule.re.FindAllSubmatchIndex(buf, 2) {
				if m[0] < int(ctx) && m[2*rule.cut] <= int(ctx) {
					continue // an End that starts before pos, ending at or before it
				}
				if m[1] == len(buf) && !atEOF {
					break // the match might go on: read more
				}
				return from + int64(m[2*rule.cut]), nil
			}
		}
		if atEOF {
			return -1, nil
		}
	}
}

// readAtLeast extends buf, which holds the n0 = len(buf) bytes at off, to
// the n bytes at off.
func readAtLeast(r io.ReaderAt, buf []byte, off, n int64) ([]byte, error) {
	have := int64(len(buf))
	if n <= have {
		return buf, nil
	}
	buf = append(buf, make([]byte, n-have)...)
	got, err := r.ReadAt(buf[have:], off+have)
	if int64(got) == n-have {
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // the file is shorter than its size
	}
	return nil, fmt.Errorf("reading %d bytes at %d: %w", n-have, off+have, err)
}
