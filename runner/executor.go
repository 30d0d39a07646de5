package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// An Executor turns one attempt of a job into a running tree of processes.
// It is the seam between the pool, which decides what runs and when, and
// where and how a command runs: Local runs it on this machine in a process
// group of its own; a remote executor runs it on another host over ssh.
// Implementations must be safe for concurrent use.
type Executor interface {
	// Start starts one attempt. An error is the attempt's failure to
	// start: a *StartError or an exec error is the job's own (command
	// not found: 127), a *TransportError means that the attempt never
	// reached the job (the item is run again, without spending a retry).
	Start(a *Attempt) (Process, error)
	// Suspend stops every process tree this executor runs, and those it
	// starts until Resume (Ctrl-Z); Resume continues them.
	Suspend()
	Resume()
}

// Elsewhere is an Executor that runs jobs on another machine (a remote
// host). A directly exec'd command's program is looked for on this
// machine's PATH when the template is built; for such an executor, not
// finding it here is no failure: the host's PATH decides.
type Elsewhere interface {
	RunsElsewhere() bool
}

// runsElsewhere reports whether e runs jobs on another machine.
func runsElsewhere(e Executor) bool {
	x, ok := e.(Elsewhere)
	return ok && x.RunsElsewhere()
}

// Attempt is what one run of a job needs from the pool.
type Attempt struct {
	// Seq is the job's number ({#}), for messages.
	Seq int64
	// Command is the job's rendered command; Command.Dir, when set, is the
	// directory it runs in (--workdir), made when missing.
	Command *Command
	// Env is the job's whole environment.
	Env []string
	// Stdin is what the job reads; nil is /dev/null. Stdout and Stderr
	// are where it writes; nil is fan's own stdout and stderr (--ungroup).
	Stdin, Stdout, Stderr *os.File
	// Shell runs a file that the system cannot execute itself (a script
	// without #!), as a shell would.
	Shell string
	// Cancel, when it ends, gives up an attempt still waiting to start
	// (the system has no process to spare): the run is being stopped.
	Cancel context.Context
	// Files, when set, are the files that a remote job takes to its host
	// and brings back; an executor on this machine has nothing to do.
	Files *Files
	// captured, when set, holds the pipes the job's output is captured
	// through; Local hands their bare write ends to the job in place of
	// Stdout and Stderr (no *os.File is made for them).
	captured *jobCapture
}

// Files are the files of one remote job (--transfer, --return,
// --cleanup), named as on this machine. A name holding /./ is, on the
// host, what follows it; other relative names are relative to the job's
// directory there, absolute names stay as they are.
type Files struct {
	// Transfer are copied to the host before the job starts; a missing
	// one fails the job.
	Transfer []string
	// Return are copied back from the host when the job has ended.
	Return []string
	// Cleanup removes Transfer and Return from the host afterwards.
	Cleanup bool
}

// Process is a started attempt: a tree of processes that is waited for and
// signalled as a whole.
type Process interface {
	// Wait blocks until the attempt ends. When stop ends first, the tree
	// is terminated with seq; when kill ends meanwhile, it is killed at
	// once. Whatever the job left running (sleep 1000 &) is killed before
	// Wait returns. A *TransportError says that the job's fate is unknown
	// (the connection to its host was lost).
	Wait(stop, kill context.Context, seq TermSeq) (Exit, error)
}

// Exit is how an attempt ended.
type Exit struct {
	Status syscall.WaitStatus
	// Terminated reports that fan ended the attempt (its stop context
	// ended while it ran: a timeout, a drain, --halt now).
	Terminated bool
}

// A TransportError is a failure to reach a job rather than the job's own:
// ssh could not connect, or the connection was lost. Such an attempt does
// not count as a failure of the job.
type TransportError struct {
	Host string
	Err  error
}

func (e *TransportError) Error() string { return fmt.Sprintf("host %s: %v", e.Host, e.Err) }

func (e *TransportError) Unwrap() error { return e.Err }

// IsTransport reports whether err says that an attempt never reached its
// job (a *TransportError) rather than that the job failed. Most results
// carry no error: they are not asked, which spares a heap allocation per
// job (errors.As's target escapes).
func IsTransport(err error) bool {
	if err == nil {
		return false
	}
	var transport *TransportError
	return errors.As(err, &transport)
}
