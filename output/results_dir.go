package output

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// UsableDir says why fan cannot make files in the directory dir, or
// returns nil. The error is the system's (no such file, not a directory,
// permission denied), without the path, for a message that names it.
func UsableDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return bare(err)
	case !st.IsDir():
		return syscall.ENOTDIR
	}
	return bare(unix.Access(dir, unix.W_OK|unix.X_OK))
}

// MakeResultsDir makes the directory of --results DIR before any job runs,
// so that a path fan cannot use fails at once, as GNU parallel's does; an
// existing directory fan cannot write in (read-only, not its own) fails
// here too, not job by job. The error is bare, as UsableDir's.
func MakeResultsDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return bare(err)
	}
	return UsableDir(dir)
}

// bare is err without the path an *os.PathError adds.
func bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
