package output

import (
	"maps"
	"slices"

	"github.com/fan-run/fan/input"
)

// blockOrder puts pipe-mode blocks into the failures file in input order
// whatever order their jobs end in: a failed block is written once every
// block before it has its final outcome, and waits until then in a
// BlockHold (its bytes in a temporary file, not in memory). Without -k,
// jobs end in any order, and a drain or a halt reports the blocks it kept
// from starting while earlier jobs still run.
type blockOrder struct {
	next    int64  // the lowest block number whose outcome is not known
	ended   seqSet // block numbers above next whose outcome is known
	waiting map[int64]waitingBlock
	hold    input.BlockHold
}

// waitingBlock is a failed block and its line of the sidecar, waiting for
// the blocks before it.
type waitingBlock struct {
	block input.Refeedable
	rec   failureRecord
}

// end records the outcome of block seq: failed (wb's block set) or
// passed. It returns the failed blocks that may now be written, in input
// order, and keeps the others.
func (o *blockOrder) end(seq int64, wb waitingBlock) []waitingBlock {
	if o.next == 0 {
		o.next, o.ended.first = 1, 1
	}
	if seq != o.next {
		if wb.block != nil {
			if o.waiting == nil {
				o.waiting = map[int64]waitingBlock{}
			}
			wb.block = o.hold.Hold(wb.block) // it may wait long, behind a slow job
			o.waiting[seq] = wb
		}
		o.ended.add(seq)
		return nil
	}
	var ready []waitingBlock
	if wb.block != nil {
		ready = append(ready, wb)
	}
	for o.next++; o.ended.has(o.next); o.next++ {
		if w, ok := o.waiting[o.next]; ok {
			ready = append(ready, w)
			delete(o.waiting, o.next)
		}
	}
	o.ended.forget(o.next)
	return ready
}

// rest returns the blocks still waiting, in input order: at the end of a
// run, whatever is missing before them will not come.
func (o *blockOrder) rest() []waitingBlock {
	var ready []waitingBlock
	for _, seq := range slices.Sorted(maps.Keys(o.waiting)) {
		ready = append(ready, o.waiting[seq])
	}
	o.waiting = nil
	return ready
}

// seqSet is a set of job numbers from first on, a bit each: a slow job
// may keep a million ended ones waiting behind it.
type seqSet struct {
	first int64 // the number of words[0]'s lowest bit
	words []uint64
}

// add puts n, which is not below first, in the set.
func (s *seqSet) add(n int64) {
	i := (n - s.first) / 64
	for int64(len(s.words)) <= i {
		s.words = append(s.words, 0)
	}
	s.words[i] |= 1 << uint((n-s.first)%64)
}

// has reports whether n is in the set.
func (s *seqSet) has(n int64) bool {
	if n < s.first {
		return false
	}
	i := (n - s.first) / 64
	return i < int64(len(s.words)) && s.words[i]&(1<<uint((n-s.first)%64)) != 0
}

// forget drops the numbers below n, a whole word at a time: n and above
// are kept, and so may be a few below it.
func (s *seqSet) forget(n int64) {
	drop := (n - s.first) / 64
	if drop <= 0 {
		return
	}
	s.words = s.words[min(drop, int64(len(s.words))):]
	s.first += drop * 64
}
