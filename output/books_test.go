package output

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// OpenBooks refuses, before making any file, a book that is an input of
// the run or that another book writes too, and a ::: item the failures
// file could not keep apart.
func TestOpenBooksRefuses(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "items", "a\n")
	log := filepath.Join(dir, "log")
	for _, c := range []struct {
		name string
		cfg  BooksConfig
		want string
	}{
		{"joblog is an input", BooksConfig{Joblog: in, Inputs: []string{in}}, "is also an input file"},
		{"two books at one path", BooksConfig{Joblog: log, Failures: log}, "the two would overwrite each other"},
		{"an item holds the delimiter", BooksConfig{Failures: log, Lists: [][]string{{"a\nb"}}, Delim: []byte("\n")}, "holds the input delimiter"},
	} {
		b, err := OpenBooks(c.cfg, nil, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: OpenBooks = %v, %v; want an error saying %q", c.name, b, err, c.want)
		}
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("a refused book was made: %v", err)
	}
}

// With --resume, Skip tells the jobs the earlier joblog shows as run;
// with --resume-failed, only those that succeeded.
func TestBooksSkip(t *testing.T) {
	b := &Books{done: map[int64]bool{1: true, 2: false}}
	if !b.Skip(1) || !b.Skip(2) || b.Skip(3) {
		t.Error("--resume: want jobs 1 and 2 skipped, not 3")
	}
	b.failed = true
	if !b.Skip(1) || b.Skip(2) || b.Skip(3) {
		t.Error("--resume-failed: want job 1 skipped, not 2 or 3")
	}
}

// A failed book and fan's own failure joined: the book's goes to the list
// of books, the other is not lost with it.
func TestSplitBookErrors(t *testing.T) {
	book := &BookError{What: "the joblog", Path: "log", Err: syscall.ENOSPC}
	read := errors.New("cannot read a held block back")
	for _, c := range []struct {
		err  error
		want error
	}{
		{book, nil},
		{read, read},
		{errors.Join(book, read), read},
		{errors.Join(errors.Join(read), book), read},
	} {
		books, got := splitBookErrors(c.err)
		if (got == nil) != (c.want == nil) || got != nil && !errors.Is(got, c.want) {
			t.Errorf("splitBookErrors(%v) leaves %v, want %v", c.err, got, c.want)
		}
		if n := len(books); (n == 1) != errors.Is(c.err, book) {
			t.Errorf("splitBookErrors(%v) finds %d books", c.err, n)
		}
	}
}
