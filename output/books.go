package output

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fan-run/fan/internal/pathmsg"
	"github.com/fan-run/fan/runner"
)

// Books are the files fan keeps about a run: the joblog, the failures
// file, the --results file of rows, and what an earlier joblog says is
// done. Each is nil when not kept.
type Books struct {
	Joblog   *Joblog
	Failures *Failures
	Table    *ResultsTable  // --results NAME.csv, .tsv or .json
	done     map[int64]bool // job number → it succeeded, from --resume's joblog
	failed   bool           // --resume-failed: re-run jobs that failed
}

// BooksConfig is which books a run keeps (the bookkeeping flags) and what
// they must not overwrite.
type BooksConfig struct {
	// Joblog is --joblog: a file, "-" for stdout, or "" for none; with
	// JoblogAppend (--joblog +FILE) the file is appended to.
	Joblog       string
	JoblogAppend bool
	// Resume and ResumeFailed read the joblog of an earlier run first.
	Resume, ResumeFailed bool
	// Failures is --failures FILE, or "".
	Failures string
	// Results is --results: only a table (IsResultsTable) is a book.
	Results string
	// DryRun keeps no book: nothing runs, so nothing is recorded.
	DryRun bool
	// Inputs are the run's input files, "-" for stdin: no book may be
	// one of them, as it would be emptied before it is read.
	Inputs []string
	// Lists are the items given on the command line (:::), which the
	// failures file must keep apart: none may hold Delim.
	Lists [][]string
	// Delim ends each item in the failures file, and PerJob is how many
	// items a job takes.
	Delim  []byte
	PerJob int
	// TmpDir is where failed blocks of pipe mode wait for the blocks
	// before them ("" is $TMPDIR).
	TmpDir string
	// Tag, Colsep and FromArgs are the results table's (ResultsTable).
	Tag      func(*runner.Result) string
	Colsep   *regexp.Regexp
	FromArgs bool
}

// OpenBooks reads the joblog of an earlier run when resuming and creates
// the joblog, failures and --results files (not for a dry run), all before
// any job starts, so that an unusable path is reported before anything
// runs. A path that is one of the run's inputs (a file, or stdin
// redirected from it) is refused, and so are two books at one path.
func OpenBooks(c BooksConfig, stdin io.Reader, stdout *os.File) (*Books, error) {
	type out struct{ flag, path string }
	outs := []out{{"--joblog", c.Joblog}}
	if c.Failures != "" {
		outs = append(outs, out{"--failures", c.Failures}, out{"--failures' record", FailuresRecord(c.Failures)})
	}
	table := IsResultsTable(c.Results)
	if table && !ResultsTableOnStdout(c.Results) {
		outs = append(outs, out{"--results", c.Results})
	}
	for i, out := range outs {
		if in := inputFileAt(out.path, c.Inputs, stdin); in != "" {
			return nil, fmt.Errorf("%s %q is also %s: it would be emptied before it is read (write the new one to another name)", out.flag, out.path, in)
		}
		for _, other := range outs[:i] {
			if out.path != "" && samePath(out.path, other.path) {
				return nil, fmt.Errorf("%s %q is also %s: the two would overwrite each other (give them different names)", out.flag, out.path, other.flag)
			}
		}
	}
	if c.Failures != "" {
		if item := listItemHolding(c.Lists, c.Delim); item != "" {
			return nil, fmt.Errorf("--failures: the item %q given with ::: holds the input delimiter %q, so the failures file could not keep it apart (use -0: no argument can hold a NUL)", item, c.Delim)
		}
	}
	b := &Books{failed: c.ResumeFailed}
	if c.Resume || c.ResumeFailed {
		done, err := ReadJoblog(c.Joblog)
		if err != nil {
			return nil, fmt.Errorf("--joblog %q cannot be resumed from: %v", c.Joblog, err)
		}
		b.done = done
	}
	if c.DryRun {
		// Nothing runs, so there is nothing to record: the files stay as
		// they were (GNU parallel's dry run logs to /dev/null).
		return b, nil
	}
	if c.Joblog == "-" {
		// GNU parallel's --joblog -: the lines go to stdout.
		j, err := JoblogTo(stdout)
		if err != nil {
			return nil, fmt.Errorf("--joblog: cannot write to stdout: %v", err)
		}
		b.Joblog = j
	} else if c.Joblog != "" {
		j, err := OpenJoblog(c.Joblog, c.Resume || c.ResumeFailed || c.JoblogAppend)
		if err != nil {
			return nil, fmt.Errorf("--joblog: cannot write %q: %v (check the path)", c.Joblog, pathmsg.Bare(err))
		}
		b.Joblog = j
	}
	if c.Failures != "" {
		f, err := CreateFailures(c.Failures, c.Delim, c.PerJob, c.TmpDir)
		if err != nil {
			b.Close(false)
			return nil, fmt.Errorf("--failures: cannot write %q: %v (check the path)", c.Failures, pathmsg.Bare(err))
		}
		b.Failures = f
	}
	if table {
		t, err := OpenResultsTable(c.Results, stdout)
		if err != nil {
			b.Close(false)
			return nil, fmt.Errorf("--results: cannot write %q: %v (check the path)", c.Results, pathmsg.Bare(err))
		}
		t.Tag, t.Colsep, t.FromArgs = c.Tag, c.Colsep, c.FromArgs
		b.Table = t
	}
	return b, nil
}

// Skip tells whether the earlier run did job seq (never without
// --resume): for Pool.Skip.
func (b *Books) Skip(seq int64) bool {
	succeeded, ok := b.done[seq]
	if !ok {
		return false
	}
	return !b.failed || succeeded
}

// Close closes the books. keep says that the run got under way: a book
// nothing was written to is then emptied (this run's record is empty);
// otherwise it is left as it was before, or removed if fan made it.
func (b *Books) Close(keep bool) error {
	var errs []error
	if b.Joblog != nil {
		errs = append(errs, b.Joblog.Close(keep))
	}
	if b.Failures != nil {
		errs = append(errs, b.Failures.Close(keep))
	}
	if b.Table != nil {
		errs = append(errs, b.Table.Close(keep))
	}
	return errors.Join(errs...)
}

// listItemHolding returns the first item of lists that holds delim, or "".
func listItemHolding(lists [][]string, delim []byte) string {
	for _, l := range lists {
		for _, item := range l {
			if strings.Contains(item, string(delim)) {
				return item
			}
		}
	}
	return ""
}

// samePath reports whether two paths name the same regular file: the
// same file where both exist, else the same absolute path. A device or a
// pipe (/dev/null) may take both.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return sa.Mode().IsRegular() && os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// inputFileAt says which of inputs ("-" is stdin) is the file at path (an
// input file, or stdin redirected from it), or returns "".
func inputFileAt(path string, inputs []string, stdin io.Reader) string {
	if path == "" {
		return ""
	}
	out, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, in := range inputs {
		if in == "-" {
			if f, ok := stdin.(*os.File); ok {
				if st, err := f.Stat(); err == nil && os.SameFile(st, out) {
					return "what stdin reads"
				}
			}
			continue
		}
		if st, err := os.Stat(in); err == nil && os.SameFile(st, out) {
			return fmt.Sprintf("an input file (%q)", in)
		}
	}
	return ""
}
