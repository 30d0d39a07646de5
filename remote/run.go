package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fan-run/fan/runner"
)

// retries is how many times a channel that the host refused (more than
// its MaxSessions at once) is asked for again, on a connection with room.
const retries = 5

// refusedChannel reports whether an ssh client's stderr says that the
// master could not open its channel because the host refused it: sshd's
// MaxSessions was reached.
func refusedChannel(stderr string) bool {
	return strings.Contains(stderr, "open refused") || strings.Contains(stderr, "administratively prohibited")
}

// run runs remote (a line for the login shell) on the host as one channel
// and returns its standard output. When ctx ends, the channel is closed.
// A failure to reach the host (ssh's status 255) is a *runner.TransportError;
// the command's own failure is an error holding its stderr.
func (h *Host) run(ctx context.Context, remote string) ([]byte, error) {
	var out bytes.Buffer
	err := h.runIO(ctx, remote, nil, &out)
	return out.Bytes(), err
}

// runIO is run with the channel's stdin from in (nil: none) and its
// stdout to out. A channel the host refused is asked for again only
// without in (whose content is gone once read).
func (h *Host) runIO(ctx context.Context, remote string, in *os.File, out io.Writer) error {
	for try := 0; ; try++ {
		m, err := h.acquire(ctx)
		if err != nil {
			return err
		}
		var stderr tail
		argv := h.session(m, remote)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = out, &stderr
		if in != nil {
			cmd.Stdin = in
		}
		cmd.SysProcAttr = sysProcAttr()
		// The master holds the output pipes as long as the channel is
		// open: should it hang, do not wait for it past the client.
		cmd.WaitDelay = 2 * time.Second
		if err := cmd.Start(); err != nil {
			h.release(m, false)
			return h.transport(fmt.Errorf("%s: %w", argv[0], err))
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-ctx.Done():
			cmd.Process.Kill()
			err = <-done
		}
		msg := oneLine(stderr.String())
		refused := err != nil && refusedChannel(msg)
		h.release(m, refused)
		switch {
		case refused && try < retries && in == nil:
			continue
		case ctx.Err() != nil:
			return h.transport(context.Cause(ctx))
		case err == nil:
			return nil
		}
		if msg == "" {
			msg = err.Error()
		}
		if code := cmd.ProcessState.ExitCode(); code == 255 || code == -1 {
			return h.transport(errors.New(msg))
		}
		return errors.New(msg)
	}
}

// cpuProbe prints the host's CPU count: GNU coreutils' nproc, else POSIX
// getconf, else BSD's and macOS's sysctl. It needs nothing of fan on the
// host.
const cpuProbe = `exec /bin/sh -c 'nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null'`

// CPUs asks the host how many CPUs it has (online), over the shared
// connection; fan need not be installed there. A failure to reach the
// host is a *runner.TransportError.
func (h *Host) CPUs(ctx context.Context) (int, error) {
	out, err := h.run(ctx, cpuProbe)
	if err != nil {
		var te *runner.TransportError
		if errors.As(err, &te) {
			return 0, err
		}
		return 0, fmt.Errorf("host %s: cannot tell its CPU count: %v", h.login, err)
	}
	f := strings.Fields(string(out))
	if len(f) > 0 {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("host %s: cannot tell its CPU count: nproc, getconf and sysctl said %q", h.login, out)
}

// signal sends sig to the process groups pgids on the host, and SIGCONT
// after it when cont is set (a stopped job acts on a signal only once
// continued). It waits for the host's answer at most a few seconds: a
// silent host is left to the jobs' lifelines.
func (h *Host) signal(ctx context.Context, sig syscall.Signal, cont bool, pgids ...int) error {
	var groups strings.Builder
	for _, g := range pgids {
		if g > 0 { // 0: the job never started (its directory failed)
			groups.WriteString(" -" + strconv.Itoa(g))
		}
	}
	if groups.Len() == 0 {
		return nil
	}
	line := "kill -s " + signalName(sig) + " --" + groups.String() + " 2>/dev/null"
	if cont {
		line += "; kill -s CONT --" + groups.String() + " 2>/dev/null"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := h.run(ctx, `exec /bin/sh -c '`+line+`; exit 0'`)
	return err
}

// signalName is sig's name for kill -s: TERM, KILL, ...
func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return strings.TrimPrefix(n, "SIG")
	}
	return strconv.Itoa(int(sig))
}
