package input

import (
	"bytes"
	"os"
	"sync"
)

// holdMin is the smallest block BlockHold moves to its file: a smaller one
// costs less memory than the write, and is copied out of its buffer instead.
const holdMin = 64 << 10

// BlockHold keeps the blocks of failed jobs that must wait before they
// are written to the failures file (with -k behind a slow job; without
// -k until every earlier block's job has ended) in one temporary file
// rather than in memory, so that memory stays within a few blocks a job
// slot however many fail. The file is removed from its directory at once;
// it holds every block given to it until Close.
//
// A pipe-mode run with --failures has two, for the two places where a
// failed block can wait, and a block waits in one of them only: with -k, the pool's (runner.Pool.Hold),
// while its result waits in the -k window, after which blocks reach the
// failures file in order; without -k, the failures file's, which puts the
// blocks back in input order itself. They are one type because the
// waiting is the same; they are two because the two stages own the wait.
//
// Its methods are safe for concurrent use.
type BlockHold struct {
	// Dir is where the file is made ("" is $TMPDIR).
	Dir string

	mu  sync.Mutex
	f   *os.File
	end int64
	err error // the file could not be made or written: blocks stay in memory
}

// Hold returns a Refeedable with the same bytes as b that shares no
// memory with it, and releases b: the buffer b was cut from, which holds
// other blocks too, is free for later ones at once. A block's body is
// copied to the file; a small one, or one the file cannot take (a full
// disk), is copied to memory of its own. One that is not in memory (a
// range of a file) is returned as it is.
func (h *BlockHold) Hold(b Refeedable) Refeedable {
	blk, ok := b.(*Block)
	if !ok {
		return b
	}
	if held := h.toFile(blk); held != nil {
		blk.Release()
		return held
	}
	own := &Block{Seq: blk.Seq, Offset: blk.Offset, Header: blk.Header, Data: bytes.Clone(blk.Data)}
	blk.Release()
	return own
}

// toFile copies blk's body to the file, or returns nil when it is too
// small to be worth it or the file cannot take it.
func (h *BlockHold) toFile(blk *Block) Refeedable {
	if len(blk.Data) < holdMin {
		return nil
	}
	off, ok := h.reserve(int64(len(blk.Data)))
	if !ok {
		return nil
	}
	if _, err := h.f.WriteAt(blk.Data, off); err != nil {
		h.mu.Lock()
		h.err = err
		h.mu.Unlock()
		return nil
	}
	return &heldBlock{FilePart: FilePart{file: h.f, head: blk.Header, span: Span{off, int64(len(blk.Data))}}, at: blk.Offset}
}

// reserve makes room for n bytes at the file's end, making the file
// first, and returns where they go; ok is false once the file failed.
func (h *BlockHold) reserve(n int64) (off int64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return 0, false
	}
	if h.f == nil {
		f, err := os.CreateTemp(h.Dir, "fan-blocks-")
		if err != nil {
			h.err = err
			return 0, false
		}
		os.Remove(f.Name()) // nothing is left behind, whatever ends fan
		h.f = f
	}
	off = h.end
	h.end += n
	return off, true
}

// Close closes the file; the blocks it held must no longer be used.
func (h *BlockHold) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return nil
	}
	return h.f.Close()
}

// heldBlock is a block whose body is in a BlockHold's file. Where is the
// block's own offset in the input, not the file's.
type heldBlock struct {
	FilePart
	at int64
}

// Where implements Refeedable.
func (b *heldBlock) Where() int64 { return b.at }
