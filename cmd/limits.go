package cmd

import (
	"fmt"
	"io"
	"math"

	"golang.org/x/sys/unix"

	"fan/runner"
)

// pointerSize is what the kernel counts for each argument's pointer when it
// checks a command against ARG_MAX.
const pointerSize = 8

// bufferSize is the default command size under packing, as xargs's.
const bufferSize = 128 << 10

// maxArgStrlen is Linux's MAX_ARG_STRLEN: the longest one argument (NUL
// included) may be. A command run by a shell is one such argument.
const maxArgStrlen = 32 * 4096

// jobEnvValue is room for the value of a variable fan adds to each job's
// environment (runner.JobVars, --process-slot-var), and its pointer.
const jobEnvValue = 20 + 1 + pointerSize

// argLimits are the sizes a command must keep within, as xargs
// --show-limits reports them.
type argLimits struct {
	env    int // what the jobs' environment takes
	posix  int // the system's limit on arguments and environment, less 2048 bytes of headroom
	usable int // the largest command that can be run: posix less the environment
	buffer int // the command size used unless -s says otherwise
}

// computeLimits works out the limits for jobs run with env (and slotVar).
func computeLimits(env []string, slotVar string) argLimits {
	l := argLimits{env: len(slotVar) + jobEnvValue}
	for _, name := range runner.JobVars() {
		l.env += len(name) + jobEnvValue
	}
	for _, kv := range env {
		l.env += len(kv) + 1 + pointerSize
	}
	l.posix = argMax() - 2048
	l.usable = max(l.posix-l.env, 0)
	l.buffer = min(bufferSize, l.usable)
	return l
}

// argMax is sysconf(_SC_ARG_MAX) as glibc computes it on Linux: a quarter
// of the stack limit, and never less than 128 KiB.
func argMax() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_STACK, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY {
		return bufferSize
	}
	return int(min(max(rl.Cur/4, bufferSize), math.MaxInt32))
}

// show writes the limits the way xargs --show-limits does.
func (l argLimits) show(w io.Writer) {
	fmt.Fprintf(w, "Your environment variables take up %d bytes\n", l.env)
	fmt.Fprintf(w, "POSIX upper limit on argument length (this system): %d\n", l.posix)
	fmt.Fprintf(w, "POSIX smallest allowable upper limit on argument length (all systems): 4096\n")
	fmt.Fprintf(w, "Maximum length of command we could actually use: %d\n", l.usable)
	fmt.Fprintf(w, "Size of command buffer we are actually using: %d\n", l.buffer)
	fmt.Fprintf(w, "Maximum parallelism (--max-procs must be no greater): %d\n", math.MaxInt32)
}
