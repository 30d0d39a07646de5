package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/fan-run/fan/internal/pathmsg"
	"github.com/fan-run/fan/runner"
)

// files are the files one job takes to its host and brings back
// (--transfer, --return, --cleanup), each copied over a channel of the
// host's shared connection of its own: cat on the host, with the file on
// its stdin or stdout. Every name reaches the host byte-exact, as a job's
// items do (see remoteCommand).
type files struct {
	job  *job          // its directory on the host
	f    *runner.Files // nil: none
	flag string        // names the files in messages: --transfer, --basefile
}

// fileWait bounds the copy of one file back, or a cleanup: a host that
// stops answering then does not hold the job's end for ever.
const fileWait = 10 * time.Minute

// onHost is where the file named name here is on the host: what follows
// /./ in it, else name itself (relative ones are relative to the job's
// directory).
func onHost(name string) string {
	if i := strings.Index(name, "/./"); i >= 0 {
		return name[i+3:]
	}
	return name
}

// cd is the sh line that goes to the job's directory on the host (made
// when missing), exiting when it cannot.
func (fs *files) cd() string {
	switch j := fs.job; {
	case j.temp != "":
		return tempDir(j.temp) + ` || exit 1`
	case j.dir != "":
		d := quote(j.dir)
		return `mkdir -p -- ` + d + ` && cd -- ` + d + ` || exit 1`
	}
	return `:`
}

// send copies the files to transfer to the host. A file that cannot be
// read here fails the job (a *runner.StartError); a failure to reach the
// host is a *runner.TransportError.
func (h *Host) send(ctx context.Context, fs *files) error {
	for _, name := range fs.f.Transfer {
		f, err := os.Open(name)
		if err != nil {
			err = pathmsg.Bare(err)
			return &runner.StartError{Name: fs.flag, Status: 1, Reason: fmt.Sprintf("cannot read %q: %v", name, err)}
		}
		remote := onHost(name)
		script := fs.cd()
		if d := path.Dir(remote); d != "." && d != "/" {
			script += "\nmkdir -p -- " + quote(d) + " || exit 1"
		}
		script += "\nexec cat > " + quote(remote)
		err = h.runIO(ctx, remoteCommand(script), f, io.Discard)
		f.Close()
		if runner.IsTransport(err) {
			return err
		}
		if err != nil {
			return &runner.StartError{Name: fs.flag, Status: 1, Reason: fmt.Sprintf("cannot copy %q to %s: %v", name, h.login, err)}
		}
	}
	return nil
}

// back copies the files to return from the host, then removes what
// --cleanup (or a temporary --workdir) asks for there. What fails is
// said on w, the job's stderr: the job's own status stands.
func (fs *files) back(h *Host, w io.Writer) {
	if fs == nil || fs.f == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), fileWait)
	defer cancel()
	for _, name := range fs.f.Return {
		if err := fs.fetch(ctx, h, name); err != nil {
			fmt.Fprintf(w, "fan: --return: cannot copy %q back from %s: %v\n", name, h.login, err)
		}
	}
	var script string
	switch {
	case fs.job.temp != "" && fs.job.keep:
		script = `exec rm -rf -- "$HOME/.parallel/tmp/"` + quote(fs.job.temp)
	case fs.f.Cleanup && fs.job.temp == "":
		script = fs.cd() + "\nexec rm -f --"
		for _, name := range append(fs.f.Transfer, fs.f.Return...) {
			script += " " + quote(onHost(name))
		}
	default:
		return
	}
	if _, err := h.run(ctx, remoteCommand(script)); err != nil {
		fmt.Fprintf(w, "fan: --cleanup: %v\n", err)
	}
}

// fetch copies the file name back from the host, to name here (its
// directory made when missing), through a temporary file beside it, so
// that a failed copy leaves nothing half written.
func (fs *files) fetch(ctx context.Context, h *Host, name string) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".fan-return-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	script := fs.cd() + "\nexec cat < " + quote(onHost(name))
	err = h.runIO(ctx, remoteCommand(script), nil, tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp's 0600 is for the copy alone
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return transportCause(err)
	}
	return os.Rename(tmp.Name(), name)
}
