package remote

import (
	"context"
	"strings"

	"github.com/fan-run/fan/runner"
)

// Base are the files that each host gets once, before its first job
// (--basefile), copied as --transfer copies a job's files, into one
// directory there.
type Base struct {
	fs *files
}

// NewBase returns the base files names (as on this machine), to go into
// dir on each host ("" is the login's home); nil when names is empty.
func NewBase(names []string, dir string) *Base {
	if len(names) == 0 {
		return nil
	}
	return &Base{fs: &files{job: &job{dir: dir}, f: &runner.Files{Transfer: names, Cleanup: true}, flag: "--basefile"}}
}

// Send copies the files to h. A failure to reach the host is a
// *runner.TransportError.
func (b *Base) Send(ctx context.Context, h *Host) error { return h.send(ctx, b.fs) }

// Remove removes the files from h (--cleanup); what went wrong is
// returned as a line for the user, or "".
func (b *Base) Remove(h *Host) string {
	var msg strings.Builder
	b.fs.back(h, &msg)
	return strings.TrimSuffix(msg.String(), "\n")
}
