package output

import "os"

// HandOver returns the file that the job whose output comes next may write
// its stdout into while it runs (runner.Pool.Direct): the sink's Stdout,
// with KeepOrder, when the sink itself writes nothing there but job output
// as the jobs wrote it, and stderr is another file (fan's messages and the
// jobs' stderr cannot land in the middle of a line). Otherwise nil: every
// job's output is captured and written when its turn comes.
//
// Not with --tag (lines are rewritten), --results and --files (the output
// is saved or kept), --joblog (it counts the bytes each job wrote), -u and
// --line-buffer (not grouped).
func (s *Sink) HandOver() *os.File {
	if !s.KeepOrder || s.LineBuffer || s.Ungrouped || s.Tag != nil || s.Results != nil || s.Files != nil || s.Joblog != nil {
		return nil
	}
	if sameFile(s.Stdout, s.Stderr) {
		return nil
	}
	return s.Stdout
}
