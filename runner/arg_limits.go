package runner

import (
	"fmt"
	"io"
	"math"

	"golang.org/x/sys/unix"
)

// PointerSize is what the kernel counts for each argument's pointer when
// it checks a command against ARG_MAX.
const PointerSize = 8

// bufferSize is the default command size under packing, as xargs's.
const bufferSize = 128 << 10

// MaxArgStrlen is Linux's MAX_ARG_STRLEN: the longest one argument (NUL
// included) may be. A command run by a shell is one such argument.
const MaxArgStrlen = 32 * 4096

// jobEnvValue is room for the value of a variable fan adds to each job's
// environment (JobVars, --process-slot-var), and its pointer.
const jobEnvValue = 20 + 1 + PointerSize

// ArgLimits are the sizes a command must keep within, as xargs
// --show-limits reports them.
type ArgLimits struct {
	Env    int // what the jobs' environment takes
	Posix  int // the system's limit on arguments and environment, less 2048 bytes of headroom
	Usable int // the largest command that can be run: Posix less the environment
	Buffer int // the command size used unless -s says otherwise
}

// NewArgLimits works out the limits for jobs run with env, and with the
// variable slotVar (--process-slot-var) when it is not empty.
func NewArgLimits(env []string, slotVar string) ArgLimits {
	l := ArgLimits{Env: len(slotVar) + jobEnvValue}
	for _, name := range JobVars() {
		l.Env += len(name) + jobEnvValue
	}
	for _, kv := range env {
		l.Env += len(kv) + 1 + PointerSize
	}
	l.Posix = argMax() - 2048
	l.Usable = max(l.Posix-l.Env, 0)
	l.Buffer = min(bufferSize, l.Usable)
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

// Show writes the limits the way xargs --show-limits does.
func (l ArgLimits) Show(w io.Writer) {
	fmt.Fprintf(w, "Your environment variables take up %d bytes\n", l.Env)
	fmt.Fprintf(w, "POSIX upper limit on argument length (this system): %d\n", l.Posix)
	fmt.Fprintf(w, "POSIX smallest allowable upper limit on argument length (all systems): 4096\n")
	fmt.Fprintf(w, "Maximum length of command we could actually use: %d\n", l.Usable)
	fmt.Fprintf(w, "Size of command buffer we are actually using: %d\n", l.Buffer)
	fmt.Fprintf(w, "Maximum parallelism (--max-procs must be no greater): %d\n", math.MaxInt32)
}
