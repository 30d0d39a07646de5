package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fan-run/fan/internal/pathmsg"
)

// recordMost is the longest record (a pipe-mode block in the failures
// file, a --results row) that is made in memory to be written to its file
// in one write(2); a longer one is written in pieces. A record written in
// one write is whole in the file even if fan is killed just after.
const recordMost = 4 << 20

// bookFile is a file fan keeps about a run: the joblog, the failures file
// or its sidecar. It is opened before any job starts, so that a path fan
// cannot write fails at once, but what it held is replaced only when the
// run first writes to it, or ends (Close with keep): a run that stops on
// bad input before any job ran leaves an earlier file as it was, and no
// file where there was none.
type bookFile struct {
	f       *os.File
	path    string
	what    string     // what the file is, for messages: "the joblog"
	err     *BookError // the first write error: nothing more is written
	created bool       // fan made the file
	begun   bool       // the file has been emptied for this run, or is appended to
	special bool       // not a regular file (/dev/stderr, a pipe): written as it is
}

// openBook opens path for a run's records; with appendTo (--resume) they go
// after what is there, which is never replaced.
func openBook(path, what string, appendTo bool) (*bookFile, error) {
	b := &bookFile{path: path, what: what, begun: appendTo}
	flags := os.O_WRONLY
	if ownDescriptor(path) {
		// /dev/stderr and the like: fan's own stream, which may be a
		// regular file; written after what is there, never emptied.
		appendTo, b.special, b.begun = true, true, true
	}
	if appendTo {
		flags |= os.O_APPEND
	}
	f, err := os.OpenFile(path, flags|os.O_CREATE|os.O_EXCL, 0o644)
	switch {
	case err == nil:
		b.created = true
	case errors.Is(err, fs.ErrExist):
		f, err = os.OpenFile(path, flags, 0)
	}
	if err != nil {
		return nil, err
	}
	b.f = f
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		// A device or a pipe cannot be emptied, nor needs to be.
		b.special, b.begun = true, true
	}
	return b, nil
}

// ownDescriptor reports whether path names one of fan's open descriptors
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N).
func ownDescriptor(path string) bool {
	p := filepath.Clean(path)
	return p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin" ||
		strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// size is the file's size now, 0 if it cannot be told.
func (b *bookFile) size() int64 {
	st, err := b.f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// Write implements io.Writer. The first write of a run empties the file.
// After a write fails (a full disk), nothing more is written: every write
// returns the first error, a *BookError, so that what the file lacks is a
// tail, not holes.
func (b *bookFile) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if !b.begun {
		b.begun = true
		if err := b.f.Truncate(0); err != nil {
			return 0, b.failed(err)
		}
	}
	n, err := b.f.Write(p)
	if err != nil {
		return n, b.failed(err)
	}
	return n, nil
}

func (b *bookFile) failed(err error) error {
	b.err = &BookError{What: b.what, Path: b.path, Err: pathmsg.Bare(err)}
	return b.err
}

// BookError is a write to one of the run's books (the joblog, the failures
// file and its JSON lines, --results rows) that failed: fan's own error.
type BookError struct {
	What, Path string // what the file is, and where
	Err        error
}

func (e *BookError) Error() string {
	return fmt.Sprintf("cannot write %s %s: %v", e.What, e.Path, e.Err)
}

func (e *BookError) Unwrap() error { return e.Err }

// LostRecord is a record a book could not take, as the user may recover
// it, and which book it is missing from (what the file is: "the joblog").
type LostRecord struct {
	Book, Text string
}

// BookErrors are the *BookErrors in err, in order: err itself, or those
// errors.Join put together (one book may fail on one record, and another
// on the next: a Sink's Run returns each book that failed).
func BookErrors(err error) []*BookError {
	books, _ := splitBookErrors(err)
	return books
}

// splitBookErrors parts err into its book errors (BookErrors) and what it
// joins besides them (a held block that could not be read back, say), or
// nil.
func splitBookErrors(err error) (books []*BookError, other error) {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, e := range joined.Unwrap() {
			b, o := splitBookErrors(e)
			books, rest = append(books, b...), append(rest, o)
		}
		return books, errors.Join(rest...)
	}
	if be := (*BookError)(nil); errors.As(err, &be) {
		return []*BookError{be}, nil
	}
	return nil, err
}

// Close closes the file. With keep (the run got under way), a file nothing
// was written to is emptied: this run's record is empty. Without, it is
// left as it was before the run, or removed if fan made it.
func (b *bookFile) Close(keep bool) error {
	var err error
	if !b.begun {
		if keep {
			err = b.f.Truncate(0)
		} else if b.created {
			err = os.Remove(b.path)
		}
	}
	return errors.Join(err, b.f.Close())
}
