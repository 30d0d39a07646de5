package input

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
)

// PipeReader is the input stage of pipe mode (--pipe): it cuts its input
// into blocks and hands each over as the stdin of one item. Items carry no
// arguments ({} is empty, as in GNU parallel) and no records: a block is
// re-read from its bytes (Block.Data), not from records.
type PipeReader struct {
	// Blocks cuts the input; it reads through Gate.
	Blocks *BlockSplitter
	// Gate is closed on a drain, so that nothing more is taken from the
	// input; what was read already comes out as blocks, to be counted as
	// not started (and written to the failures file).
	Gate Closer
	// Count, when set, is incremented for every block read.
	Count *atomic.Int64
	// Bytes, when set, adds up what the items hold (Item.Held: their
	// blocks), for the status report's read-ahead.
	Bytes *atomic.Int64
	// Offset, when set, is how much of the input was read, through the
	// end of the last block (for the progress bar).
	Offset *atomic.Int64
}

// Run sends every block as an item on out until the input ends or ctx
// ends, and closes out.
func (p *PipeReader) Run(ctx context.Context, out chan<- Item) error {
	defer close(out)
	stop := make(chan struct{})
	defer close(stop)
	blocks := readAhead(p.Blocks.Next, stop, (*Block).Release, 0) // blocks are large: none waits
	send := func(b *Block) {
		item := Item{Seq: b.Seq, Args: []string{""}, Stdin: b}
		if p.Count != nil {
			p.Count.Add(1)
		}
		if p.Bytes != nil {
			p.Bytes.Add(item.Held()) // as the pool counts it out (runner.Pool.Dispatched)
		}
		if p.Offset != nil {
			p.Offset.Store(b.Offset + int64(len(b.Data)))
		}
		out <- item // the consumer drains out until it is closed
	}
	// stopped takes, once ctx has ended, the blocks of what was read
	// already: consumed input, which goes out to be counted as not
	// started. A read that was blocked and cannot be woken is given up on
	// after a moment.
	stopped := func() error {
		p.Gate.Close()
		settle(blocks, send, wakes(p.Gate))
		return ctx.Err()
	}
	for {
		var n read[*Block]
		select {
		case n = <-blocks:
		case <-ctx.Done():
			return stopped()
		}
		switch {
		case n.err == io.EOF:
			return nil
		case errors.Is(n.err, ErrStopped):
			return ctx.Err()
		case n.err != nil:
			return n.err
		}
		send(n.v)
	}
}

// WriteTo writes the job's stdin, Header then Data, to w: Block is a job's
// Stdin. It may be called again for a retry.
func (b *Block) WriteTo(w io.Writer) (int64, error) {
	return b.Reader().(io.WriterTo).WriteTo(w)
}

// Head implements Refeedable.
func (b *Block) Head() []byte { return b.Header }

// WriteBody implements Refeedable.
func (b *Block) WriteBody(w io.Writer) (int64, error) {
	n, err := w.Write(b.Data)
	return int64(n), err
}

// Where implements Refeedable.
func (b *Block) Where() int64 { return b.Offset }
