package output

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fan-run/fan/internal/pathmsg"
)

// UsableDir says why fan cannot make files in the directory dir, or
// returns nil. The error is the system's (no such file, not a directory,
// permission denied), without the path, for a message that names it.
func UsableDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return pathmsg.Bare(err)
	case !st.IsDir():
		return syscall.ENOTDIR
	}
	return pathmsg.Bare(unix.Access(dir, unix.W_OK|unix.X_OK))
}

// MakeResultsDir makes the directory of --results DIR before any job runs,
// so that a path fan cannot use fails at once, as GNU parallel's does; an
// existing directory fan cannot write in (read-only, not its own) fails
// here too, not job by job. The error is bare, as UsableDir's.
func MakeResultsDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return pathmsg.Bare(err)
	}
	return UsableDir(dir)
}
