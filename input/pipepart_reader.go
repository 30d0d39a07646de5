package input

import (
	"context"
	"io"
	"os"
	"sync/atomic"

	"github.com/fan-run/fan/internal/sendfile"
)

// PartReader is the input stage of --pipepart: each byte range of its
// files (FileParts), in order, is the stdin of one item, sent to the job
// straight from the file (sendfile), without passing through fan's
// memory.
type PartReader struct {
	Files []PartFile
	// Count, when set, is incremented for every block sent, and Offset
	// set to the block's end in the files (the sizes of those before its
	// own added).
	Count, Offset *atomic.Int64
}

// PartFile is one file of --pipepart and how it is cut: every block of
// it starts with its own header, as in GNU parallel.
type PartFile struct {
	File  *os.File
	Size  int64
	Parts Parts
}

// Run sends every block as an item on out, and closes out. Once ctx has
// ended, the blocks left go out all the same, to be counted as not
// started and written to the failures file: nothing of the files is lost.
func (p *PartReader) Run(ctx context.Context, out chan<- Item) error {
	defer close(out)
	seq, base := int64(0), int64(0)
	for _, pf := range p.Files {
		var head []byte
		if h := pf.Parts.Header; h.Len > 0 {
			head = make([]byte, h.Len)
			if _, err := pf.File.ReadAt(head, h.Off); err != nil {
				return err
			}
		}
		for _, sp := range pf.Parts.Blocks {
			seq++
			if p.Count != nil {
				p.Count.Add(1)
			}
			if p.Offset != nil {
				p.Offset.Store(base + sp.Off + sp.Len)
			}
			out <- Item{Seq: seq, Args: []string{""}, Stdin: &FilePart{file: pf.File, head: head, span: sp}}
		}
		base += pf.Size
	}
	return ctx.Err()
}

// FilePart is a byte range of a file, after the file's header: the stdin
// of one job of --pipepart. It implements Refeedable.
type FilePart struct {
	file *os.File
	head []byte
	span Span
}

// Len implements Stdin.
func (p *FilePart) Len() int64 { return int64(len(p.head)) + p.span.Len }

// WriteTo implements Stdin: the header, then the range, sent by the
// kernel from the file when w is a pipe or file.
func (p *FilePart) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(p.head)
	if err != nil {
		return int64(n), err
	}
	m, err := p.WriteBody(w)
	return int64(n) + m, err
}

// WriteBody implements Refeedable.
func (p *FilePart) WriteBody(w io.Writer) (int64, error) {
	if f, ok := w.(*os.File); ok {
		return sendfile.Range(f, p.file, p.span.Off, p.span.Off+p.span.Len)
	}
	return io.Copy(w, io.NewSectionReader(p.file, p.span.Off, p.span.Len))
}

// Head implements Refeedable.
func (p *FilePart) Head() []byte { return p.head }

// Where implements Refeedable.
func (p *FilePart) Where() int64 { return p.span.Off }

// Release implements Refeedable: a part holds no memory of its own.
func (p *FilePart) Release() {}
