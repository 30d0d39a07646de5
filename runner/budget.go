package runner

import "fmt"

// Budget is how many jobs may run at once and how many finished results
// may wait to be written (the -k window) within the open-file limit
// (ulimit -n) and the process limit (ulimit -u), so that jobs wait for
// room rather than fail with "too many open files" or "resource
// temporarily unavailable".
type Budget struct {
	// Jobs is -j fitted to the limits (never 0), and Window the window.
	Jobs, Window int
	// Buffered is how many events may wait for the output stage (the
	// Stream's buffer); their results' descriptors are counted.
	Buffered int
	// FewThreads says that the process limit is low: the executor must
	// keep its own threads few (Local.FewThreads).
	FewThreads bool
	// LimitedBy names the limit that lowered Jobs last, for a message
	// when Jobs is below what was asked.
	LimitedBy string
	// LeftBehind is how many output pipes left behind by ended jobs
	// (Pool.LeftBehind) the open-file limit keeps room for.
	LeftBehind int
}

// BudgetRequest is what FitBudget fits to the limits.
type BudgetRequest struct {
	// Jobs is -j (0: no limit), and Window the -k window asked for.
	Jobs, Window int
	// Ungrouped (-u), LineBuffer and Remote (-S) say where the jobs'
	// output goes and where they run: what a running job holds open
	// (perJob) and a finished one's result (perResult), and whether jobs
	// write into pipes fan reads (grouped), which a process a job left
	// running may hold open after the job ended: room is kept for some
	// (Budget.LeftBehind).
	Ungrouped, LineBuffer, Remote bool
	// KeepOrder is -k: a window of results waits behind the oldest job.
	KeepOrder bool
	// DryRun runs no job: fan then needs no descriptors for one.
	DryRun bool
	// Buffered is how many events should wait for the output stage at
	// most; fewer under a low open-file limit.
	Buffered int
}

// FitBudget fits a run to the open-file and process limits. It fails
// when the open-file limit is too low for fan and a single job.
func FitBudget(req BudgetRequest) (Budget, error) {
	fdLimit, reserve := openFileLimit(), 0
	if !req.DryRun {
		reserve = descriptorReserve(fdLimit)
	}
	b, err := fitOpenFiles(req, fdLimit, reserve)
	if err != nil {
		return b, err
	}
	room, limit, lowProcs := processRoom(b.Jobs, tasksPerJob)
	if lowProcs {
		b.FewThreads = true
		if fitted := fitProcesses(b.Jobs, tasksPerJob, room); fitted < b.Jobs || b.Jobs == 0 {
			b.Jobs, b.LimitedBy = fitted, limit
		}
	}
	return b, nil
}

// fitOpenFiles is FitBudget's part under an open-file limit of fdLimit,
// of which fan keeps reserve for itself (descriptorReserve).
func fitOpenFiles(req BudgetRequest, fdLimit, reserve int) (Budget, error) {
	perJob, perResult := req.perJob(), req.perResult()
	if !req.DryRun {
		// A job's own descriptors, two for its result, two for the fork.
		if need := reserve + perJob + 4; fdLimit < need {
			return Budget{}, fmt.Errorf("the open-file limit (ulimit -n %d) is too low: fan needs about %d for itself and one job (raise it: ulimit -n %d)", fdLimit, need, max(need, 64))
		}
	}
	b := Budget{LimitedBy: fmt.Sprintf("the open-file limit (ulimit -n %d)", fdLimit)}
	b.Buffered = min(req.Buffered, max(0, fdLimit-reserve)/8)
	// Set aside, besides fan's reserve: the results waiting in the
	// Stream's buffer and the one the output stage is writing, and,
	// grouped, room for pipes left behind. A result not yet in the Stream
	// is not among them: until it is, its job's slot is not given back
	// (Pool.attempts), and the result holds fewer descriptors than the
	// job did.
	aside := reserve + perResult*(b.Buffered+1)
	if req.grouped() {
		b.LeftBehind = leftBehindRoom(fdLimit - aside)
	}
	b.Jobs, b.Window = fitDescriptors(fdLimit, aside+b.LeftBehind, req.Jobs, req.Window, perJob, perResult, req.KeepOrder)
	return b, nil
}

// grouped says that jobs write their output into pipes fan reads (see
// BudgetRequest).
func (req BudgetRequest) grouped() bool {
	return !req.Ungrouped && !req.LineBuffer && !req.DryRun
}

// perResult is what a finished job's result holds open while it waits to
// be written: grouped, the files its stdout and stderr were kept in; with
// --line-buffer those and the output stage's own copies of them, which it
// got when the job started (Event.Live) and closes once it has written
// the result; ungrouped (-u), nothing.
func (req BudgetRequest) perResult() int {
	switch {
	case req.Ungrouped || req.DryRun:
		return 0
	case req.LineBuffer:
		return 4
	}
	return 2
}

// perJob is what one running job holds open: its pidfd; with
// --line-buffer the two spool files its output goes into and the sink's
// copies of them; grouped, for each of its stdout and stderr, the read
// end of a pipe and up to two files (a memory file and the spool file it
// spills into, while it does: capture_pipe.go; or a file it holds and
// one the spool keeps for reuse, which keeps two a job at most: cmd's
// newSpool), and, for a job run over ssh (remote), the pipes' write ends
// too, which fan holds until ssh has exited (a local job's are closed
// once it started); ungrouped (-u), nothing more.
func (req BudgetRequest) perJob() int {
	switch {
	case req.Ungrouped:
		return 1
	case req.LineBuffer:
		return 5
	case req.Remote:
		return 9
	}
	return 7
}
