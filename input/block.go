package input

import (
	"io"
	"sync"
	"sync/atomic"
)

// DefaultBlockSize is --block's default, as in GNU parallel: 1M (1 MiB).
const DefaultBlockSize = 1 << 20

// Block is one job's share of the input in pipe mode: what the job reads
// on its stdin is Header followed by Data.
//
// A Block is read-only. It may be used from any goroutine, and handed
// from one to another, until Release; after Release its Header and Data
// must not be used.
type Block struct {
	// Seq is the block's number: 1-based, in input order ({#}).
	Seq int64
	// Offset is where Data starts in the input, in bytes from its first
	// (header included).
	Offset int64
	// Header is the input's header (--header), the same bytes for every
	// block of an input; empty without one.
	Header []byte
	// Data is the block's records, byte for byte as read: the Data of all
	// blocks, in Seq order, after one Header, is the input. Writing the
	// Data of some blocks after the Header gives an input that pipe mode,
	// with the same options, cuts into exactly those records again (the
	// failures file).
	Data []byte

	c        *chunk
	released atomic.Bool
}

// Len is the number of bytes the job reads: the header's and the data's.
func (b *Block) Len() int64 { return int64(len(b.Header) + len(b.Data)) }

// Reader returns a new reader of the job's stdin (Header then Data); each
// call starts again at the beginning (a retry). The reader implements
// io.WriterTo, so io.Copy writes the two slices without copying them.
func (b *Block) Reader() io.Reader { return &blockReader{parts: [2][]byte{b.Header, b.Data}} }

// Release says the block is no longer used: its buffer may hold later
// blocks. It is safe to call from any goroutine, and more than once (only
// the first call counts). A block never released is garbage collected
// (its buffer is just not reused).
func (b *Block) Release() {
	if b.c != nil && b.released.CompareAndSwap(false, true) {
		b.c.unref()
	}
}

// blockReader reads a block's header and data.
type blockReader struct {
	parts [2][]byte
}

func (r *blockReader) Read(p []byte) (int, error) {
	for i := range r.parts {
		if len(r.parts[i]) > 0 {
			n := copy(p, r.parts[i])
			r.parts[i] = r.parts[i][n:]
			return n, nil
		}
	}
	return 0, io.EOF
}

// WriteTo implements io.WriterTo.
func (r *blockReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for i := range r.parts {
		if len(r.parts[i]) == 0 {
			continue
		}
		n, err := w.Write(r.parts[i])
		total += int64(n)
		r.parts[i] = r.parts[i][n:]
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// chunk is a buffer that blocks are cut from: one per block without -N,
// many blocks per chunk with -N. It goes back to its pool when the
// splitter has moved on from it and every block cut from it is released.
type chunk struct {
	buf  []byte
	refs atomic.Int32
	pool *chunkPool
}

func (c *chunk) unref() {
	if c.refs.Add(-1) == 0 {
		c.pool.put(c)
	}
}

// chunkPool keeps the buffers of released chunks for reuse. Its methods
// are safe for concurrent use: blocks are released by the jobs.
type chunkPool struct {
	mu   sync.Mutex
	free []*chunk
}

// get returns a chunk with room for at least n bytes, holding one
// reference (the splitter's).
func (p *chunkPool) get(n int) *chunk {
	p.mu.Lock()
	var c *chunk
	for len(p.free) > 0 && c == nil {
		c = p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
		if cap(c.buf) < n {
			c = nil // smaller than blocks have become: let it go
		}
	}
	p.mu.Unlock()
	if c == nil {
		c = &chunk{buf: make([]byte, 0, n), pool: p}
	}
	c.buf = c.buf[:0]
	c.refs.Store(1)
	return c
}

func (p *chunkPool) put(c *chunk) {
	p.mu.Lock()
	p.free = append(p.free, c)
	p.mu.Unlock()
}
