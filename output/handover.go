package output

import "os"

// HandOver returns the file that the job whose output comes next may write
// its stdout into while it runs (runner.Pool.Direct): the sink's Stdout,
// with KeepOrder or when jobs run one at a time (serial: no job starts
// while another runs, so none can end before the one writing), when the
// sink itself writes nothing there but job output as the jobs wrote it,
// and stderr is another file (fan's messages and the jobs' stderr cannot
// land in the middle of a line). Otherwise nil: every job's output is
// captured and written when its turn comes.
//
// Only into a pipe or a socket, whose one write error, a reader gone, fan
// sees for itself after the job (as with -u): into a file or a device a
// job's failed write (a full disk) would be the job's failure alone, where
// fan's own is one clear error and status 255.
//
// Not with --tag (lines are rewritten), --results and --files (the output
// is saved or kept), --joblog (it counts the bytes each job wrote, and
// --resume would skip jobs out of turn), -u and --line-buffer (not
// grouped).
//
// These conditions, which hold for the whole run, are checked here and
// only here; the pool decides for each attempt whether it is the one that
// gets the file (its last attempt, run on this machine, next in turn).
func (s *Sink) HandOver(serial bool) *os.File {
	if !s.KeepOrder && !serial || s.LineBuffer || s.Ungrouped || s.Tag != nil || s.Results != nil || s.Files != nil || s.Joblog != nil {
		return nil
	}
	if !isPipe(s.Stdout) || sameFile(s.Stdout, s.Stderr) {
		return nil
	}
	return s.Stdout
}

// isPipe reports whether f is a pipe (a FIFO) or a socket.
func isPipe(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}
