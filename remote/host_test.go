package remote_test

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"

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
