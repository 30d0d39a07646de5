package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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

// refusedChannel reports whether the master's answer says that the
// master could not open its channel because the host refused it: sshd's
// MaxSessions was reached.
func refusedChannel(msg string) bool {
	return strings.Contains(msg, "open refused") || strings.Contains(msg, "administratively prohibited")
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
		status, err := h.channel(ctx, m, remote, in, out, &stderr)
		msg := oneLine(stderr.String())
		if err != nil {
			msg = err.Error()
		}
		refused := err != nil && refusedChannel(msg)
		h.release(m, refused)
		switch {
		case refused && try < retries && in == nil:
			continue
		case ctx.Err() != nil:
			return h.transport(context.Cause(ctx))
		case err == nil && status == 0:
			return nil
		}
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", status)
		}
		if err != nil || status == 255 {
			return h.transport(errors.New(msg))
		}
		return errors.New(msg)
	}
}

// channel runs remote as a channel of m, with stdin from in (nil: none),
// stdout to out and stderr to errOut, and returns its exit status (255
// when the connection was lost). An error says the channel did not open.
func (h *Host) channel(ctx context.Context, m *master, remote string, in *os.File, out, errOut io.Writer) (int, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return 0, err
	}
	stdin := in
	if stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return 0, err
		}
		defer stdin.Close()
	}
	copied := make(chan struct{}, 2)
	go func() { io.Copy(out, outR); copied <- struct{}{} }()
	go func() { io.Copy(errOut, errR); copied <- struct{}{} }()
	ch, err := openChannel(ctx, m.path, remote, stdin, outW, errW)
	outW.Close()
	errW.Close()
	status := 255
	if err == nil {
		select {
		case <-ch.done:
		case <-ctx.Done():
			ch.Kill()
			<-ch.done
		}
		status = ch.status
	}
	// The master holds the pipes as long as the channel is open: should it
	// hang, do not wait for it for ever.
	t := time.NewTimer(drainWait)
	for range 2 {
		select {
		case <-copied:
		case <-t.C:
			outR.Close()
			errR.Close()
			<-copied
		}
	}
	t.Stop()
	outR.Close()
	errR.Close()
	return status, err
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
		if runner.IsTransport(err) {
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
