package remote_test

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fan-run/fan/internal/sshtest"
	"github.com/fan-run/fan/remote"
	"github.com/fan-run/fan/runner"
)

func TestCPUs(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	out, err := exec.Command("nproc").Output()
	if err != nil {
		t.Skip("no nproc here")
	}
	want, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	n, err := hs[0].CPUs(context.Background())
	if err != nil || n != want {
		t.Errorf("CPUs: %d, %v; want %d", n, err, want)
	}
	shs.Hosts[0].Kill()
	_, err = hs[0].CPUs(context.Background())
	var te *runner.TransportError
	if !errors.As(err, &te) {
		t.Errorf("CPUs of a dead host: %v, want a TransportError", err)
	}
}

// A host that is down is a TransportError saying why; once it is back, the
// next Connect reaches it (the quarantine's re-probe).
func TestConnectToADownHost(t *testing.T) {
	t.Parallel()
	shs, hs := hosts(t, 1, sshtest.Options{}, remote.Config{})
	shs.Hosts[0].Down()
	err := hs[0].Connect(context.Background())
	var te *runner.TransportError
	if !errors.As(err, &te) || te.Host != "h1" || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Connect to a down host: %v, want a TransportError saying refused", err)
	}
	if err := shs.Hosts[0].Up(); err != nil {
		t.Fatal(err)
	}
	if err := hs[0].Connect(context.Background()); err != nil {
		t.Fatalf("Connect once the host is up: %v", err)
	}
	if n := hs[0].Connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
	if err := hs[0].Close(); err != nil {
		t.Fatal(err)
	}
	if n := hs[0].Connections(); n != 0 {
		t.Errorf("%d connections after Close", n)
	}
	if err := hs[0].Connect(context.Background()); !errors.As(err, &te) {
		t.Errorf("Connect after Close: %v, want a TransportError", err)
	}
}

// A host that takes the connection and never answers is unreachable once
// the login's bound has passed (ssh itself would wait for ever: the
// host's ssh_config sets no ConnectTimeout), and the connection being
// opened is given up: its ssh ends, and the next Connect opens a new one
// rather than wait for it.
func TestConnectToASilentHost(t *testing.T) {
	t.Parallel()
	const bound = 2 * time.Second
	h, conns := silentHost(t, bound)
	// The test's own bound, so that a hang fails it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for try := 1; try <= 2; try++ {
		begin := time.Now()
		err := h.Connect(ctx)
		took := time.Since(begin)
		if ctx.Err() != nil {
			t.Fatalf("Connect %d to a silent host still waits after %v", try, took)
		}
		var te *runner.TransportError
		if !errors.As(err, &te) || te.Host != "quiet" || te.Err.Error() != "no answer within 2s: ssh did not log in" || took < bound {
			t.Fatalf("Connect %d to a silent host: %v after %v; want a TransportError saying no answer within 2s, after 2s", try, err, took)
		}
		if taken, _ := conns(); taken != try {
			t.Fatalf("after Connect %d the host took %d connections, want %d (one each)", try, taken, try)
		}
		for wait := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, open := conns(); open == 0 {
				break
			} else if time.Now().After(wait) {
				t.Fatalf("after Connect %d, %d connections are still open 10s after it gave up", try, open)
			}
		}
	}
	if n := h.Connections(); n != 0 {
		t.Errorf("%d connections to a silent host", n)
	}
}

// A job sent to a host that takes the connection and never answers is not
// started, with a TransportError (its item goes back to the queue), once
// the login's bound has passed: it does not wait for the host for ever.
func TestStartOnASilentHost(t *testing.T) {
	t.Parallel()
	h, _ := silentHost(t, 2*time.Second)
	a, _ := attempt(t, shell("echo hi"))
	begin := time.Now()
	started := make(chan error, 1)
	go func() {
		p, err := remote.NewExecutor(h, nil).Start(a)
		if err == nil {
			_, err = p.Wait(context.Background(), context.Background(), seq)
		}
		started <- err
	}()
	select {
	case err := <-started:
		var te *runner.TransportError
		if !errors.As(err, &te) || !strings.HasPrefix(te.Err.Error(), "no answer within 2s") {
			t.Errorf("a job on a silent host: %v after %v, want a TransportError saying no answer within 2s", err, time.Since(begin))
		}
	case <-time.After(time.Minute):
		t.Fatal("a job on a silent host still waits to start after a minute")
	}
}

// silentHost returns a Host for a host named quiet that takes every
// connection and never answers (sshtest's Silent), whose logins are
// given up after bound, and what counts its connections. It is closed
// when t ends.
func silentHost(t *testing.T, bound time.Duration) (*remote.Host, func() (taken, open int)) {
	t.Helper()
	shs := sshtest.Start(t, 1, sshtest.Options{})
	conns := shs.Silent(t, "quiet")
	l, err := remote.ParseLogin("quiet")
	if err != nil {
		t.Fatal(err)
	}
	h, err := remote.NewHost(l, remote.Config{SSH: shs.SSH(), DialTimeout: bound})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, conns
}
