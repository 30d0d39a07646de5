// Package input turns fan's input sources (stdin, files, ::: lists) into a
// stream of numbered items, one per job. It knows nothing of processes or
// terminals.
package input

import "io"

// Item is the input of one job: the arguments its command is built from
// and, in pipe mode, the bytes it reads on its stdin. The pool runs both
// alike.
type Item struct {
	// Seq is the job number: 1-based, in input order ({#}).
	Seq int64
	// Args are the positional values {1}..{n}: the columns of every record
	// that makes up the job, in order. {} is all of them.
	Args []string
	// Records are the input records the item was built from, exactly as they
	// were read (without their delimiter), one per source and per batched
	// line. Re-reading them rebuilds the same job.
	Records []string
	// Stdin, when set, is what the job reads on its standard input (a block
	// of --pipe); without it the job reads /dev/null.
	Stdin Stdin
}

// Held is how many bytes of input the item holds in fan's memory: its
// records and its block of stdin, if the block is in memory (not a range
// of a file, as --pipepart's).
func (it *Item) Held() int64 {
	var n int64
	for _, r := range it.Records {
		n += int64(len(r))
	}
	if b, ok := it.Stdin.(*Block); ok {
		n += b.Len()
	}
	return n
}

// Stdin is bytes for a job's standard input. It is written to each attempt
// of the job whole, so a retry reads the same bytes again.
type Stdin interface {
	// Len is its size in bytes: the joblog's Send column.
	Len() int64
	// WriteTo writes all of it to w. It may be called once per attempt,
	// never twice at once.
	WriteTo(w io.Writer) (int64, error)
}

// Abandoner is a Stdin that wants to know when the job it was for will
// never read it (the job could not start, or has ended).
type Abandoner interface {
	Abandon()
}

// Refeedable is the Stdin of pipe mode: a block that the failures file can
// hold so that pipe mode, fed that file, cuts exactly its records again.
type Refeedable interface {
	Stdin
	// Head is the input's header (--header), the same for every block:
	// the failures file starts with it, once.
	Head() []byte
	// WriteBody writes the block's records, without the header.
	WriteBody(w io.Writer) (int64, error)
	// Where is the offset of the records in the input, for the record
	// beside the failures file.
	Where() int64
	// Release says the block is no longer needed: its memory may hold
	// later blocks.
	Release()
}
