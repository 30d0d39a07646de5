package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fan/output"
)

// books are the files fan keeps about a run: the joblog, the failures
// file, the --results file of rows, and what an earlier joblog says is
// done.
type books struct {
	joblog   *output.Joblog
	failures *output.Failures
	table    *output.ResultsTable // --results NAME.csv, .tsv or .json
	done     map[int64]bool       // job number → it succeeded, from --resume's joblog
	failed   bool                 // --resume-failed: re-run jobs that failed
}

// openBooks reads the joblog of an earlier run when resuming and creates
// the joblog, failures and --results files (not for --dry-run), all before
// any job starts, so that an unusable path is reported before anything
// runs. A path that is one of the run's inputs (a file, or stdin
// redirected from it) is refused: it would be emptied before it is read.
func openBooks(o *Options, c *config, stdin io.Reader, stdout *os.File) (*books, error) {
	type out struct{ flag, path string }
	outs := []out{{"--joblog", o.Joblog}}
	if o.Failures != "" {
		outs = append(outs, out{"--failures", o.Failures}, out{"--failures' record", output.FailuresRecord(o.Failures)})
	}
	table := output.IsResultsTable(o.Results)
	if table && !output.ResultsTableOnStdout(o.Results) {
		outs = append(outs, out{"--results", o.Results})
	}
	for i, out := range outs {
		if in := inputFileAt(out.path, c.sources, stdin); in != "" {
			return nil, usageErrorf("%s %q is also %s: it would be emptied before it is read (write the new one to another name)", out.flag, out.path, in)
		}
		for _, other := range outs[:i] {
			if out.path != "" && samePath(out.path, other.path) {
				return nil, usageErrorf("%s %q is also %s: the two would overwrite each other (give them different names)", out.flag, out.path, other.flag)
			}
		}
	}
	if o.Failures != "" {
		if item := listItemHolding(c.sources, c.delim); item != "" {
			return nil, usageErrorf("--failures: the item %q given with ::: holds the input delimiter %q, so the failures file could not keep it apart (use -0: no argument can hold a NUL)", item, c.delim)
		}
	}
	b := &books{failed: o.ResumeFailed}
	if o.Resume || o.ResumeFailed {
		done, err := output.ReadJoblog(o.Joblog)
		if err != nil {
			return nil, &inputError{fmt.Errorf("--joblog %q cannot be resumed from: %v", o.Joblog, err)}
		}
		b.done = done
	}
	if o.DryRun {
		// Nothing runs, so there is nothing to record: the files stay as
		// they were (GNU parallel's dry run logs to /dev/null).
		return b, nil
	}
	if o.Joblog == "-" {
		// GNU parallel's --joblog -: the lines go to stdout.
		j, err := output.JoblogTo(stdout)
		if err != nil {
			return nil, usageErrorf("--joblog: cannot write to stdout: %v", err)
		}
		b.joblog = j
	} else if o.Joblog != "" {
		j, err := output.OpenJoblog(o.Joblog, o.Resume || o.ResumeFailed || o.joblogAppend)
		if err != nil {
			return nil, usageErrorf("--joblog: cannot write %q: %v (check the path)", o.Joblog, unwrapPath(err))
		}
		b.joblog = j
	}
	if o.Failures != "" {
		per := max(o.MaxArgs, 1) * len(c.sources)
		f, err := output.CreateFailures(o.Failures, c.delim, per)
		if err != nil {
			b.close(false)
			return nil, usageErrorf("--failures: cannot write %q: %v (check the path)", o.Failures, unwrapPath(err))
		}
		b.failures = f
	}
	if table {
		t, err := output.OpenResultsTable(o.Results, stdout)
		if err != nil {
			b.close(false)
			return nil, usageErrorf("--results: cannot write %q: %v (check the path)", o.Results, unwrapPath(err))
		}
		t.Tag, t.Colsep, t.FromArgs = o.tagger(), c.colsep, o.Xargs
		b.table = t
	}
	return b, nil
}

// skip tells whether the earlier run did job seq (nil without --resume).
func (b *books) skip(seq int64) bool {
	succeeded, ok := b.done[seq]
	if !ok {
		return false
	}
	return !b.failed || succeeded
}

// close closes the books. keep says that the run got under way: a book
// nothing was written to is then emptied (this run's record is empty);
// otherwise it is left as it was before, or removed if fan made it.
func (b *books) close(keep bool) error {
	var errs []error
	if b.joblog != nil {
		errs = append(errs, b.joblog.Close(keep))
	}
	if b.failures != nil {
		errs = append(errs, b.failures.Close(keep))
	}
	if b.table != nil {
		errs = append(errs, b.table.Close(keep))
	}
	return errors.Join(errs...)
}

// listItemHolding returns the first ::: item that holds delim, or "".
func listItemHolding(sources []sourceSpec, delim []byte) string {
	for _, s := range sources {
		for _, item := range s.list {
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

// inputFileAt says which input source is the file at path (an input file,
// or stdin redirected from it), or returns "".
func inputFileAt(path string, sources []sourceSpec, stdin io.Reader) string {
	if path == "" {
		return ""
	}
	out, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, s := range sources {
		if s.stdin || s.file == "-" {
			if f, ok := stdin.(*os.File); ok {
				if in, err := f.Stat(); err == nil && os.SameFile(in, out) {
					return "what stdin reads"
				}
			}
			continue
		}
		if s.file == "" {
			continue
		}
		if in, err := os.Stat(s.file); err == nil && os.SameFile(in, out) {
			return fmt.Sprintf("an input file (%q)", s.file)
		}
	}
	return ""
}
