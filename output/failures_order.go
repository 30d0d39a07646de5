package output

import (
	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/internal/inorder"
)

// blockOrder puts pipe-mode blocks into the failures file in input order
// whatever order their jobs end in: a failed block is written once every
// block before it has its final outcome, and waits until then in a
// BlockHold (its bytes in a temporary file, not in memory). Without -k,
// jobs end in any order, and a drain or a halt reports the blocks it kept
// from starting while earlier jobs still run.
type blockOrder struct {
	queue inorder.Queue[waitingBlock]
	hold  input.BlockHold
}

// newBlockOrder returns a blockOrder that holds waiting blocks in dir (""
// for the system's temporary directory).
func newBlockOrder(dir string) blockOrder {
	return blockOrder{queue: inorder.New[waitingBlock](1), hold: input.BlockHold{Dir: dir}}
}

// waitingBlock is a failed block and its line of the sidecar, waiting for
// the blocks before it.
type waitingBlock struct {
	block input.Refeedable
	rec   failureRecord
}

// end records the outcome of block seq: failed (wb's block set) or
// passed. It returns the failed blocks that may now be written, in input
// order, and keeps the others; the slice is valid until the next call.
func (o *blockOrder) end(seq int64, wb waitingBlock) []waitingBlock {
	failed := wb.block != nil
	if failed && seq != o.queue.Next() {
		wb.block = o.hold.Hold(wb.block) // it may wait long, behind a slow job
	}
	return o.queue.End(seq, wb, failed)
}

// rest returns the blocks still waiting, in input order: at the end of a
// run, whatever is missing before them will not come.
func (o *blockOrder) rest() []waitingBlock { return o.queue.Rest() }
