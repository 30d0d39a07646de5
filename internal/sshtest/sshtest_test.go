package sshtest_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/fan-run/fan/internal/sshtest"
)

// ssh runs cmd on host through hs's configuration and returns its output.
func ssh(t *testing.T, hs *sshtest.Hosts, host, cmd string, opts ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	argv := append(append(hs.SSH(), opts...), host, cmd)
	var out bytes.Buffer
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	return strings.TrimSpace(out.String()), err
}

func TestHostsLogInAsTheirOwnUsers(t *testing.T) {
	t.Parallel()
	start := time.Now()
	hs := sshtest.Start(t, 2, sshtest.Options{})
	t.Logf("2 hosts up in %v", time.Since(start))
	seen := map[string]bool{}
	for _, h := range hs.Hosts {
		out, err := ssh(t, hs, h.Name, "id -un; pwd")
		if err != nil {
			t.Fatalf("%s: %v: %s", h.Name, err, out)
		}
		if want := h.User + "\n" + h.Home(); out != want {
			t.Errorf("%s: got %q, want %q", h.Name, out, want)
		}
		if seen[h.User] || seen[h.Addr] {
			t.Errorf("%s: user %s or address %s shared with another host", h.Name, h.User, h.Addr)
		}
		seen[h.User], seen[h.Addr] = true, true
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	hs := sshtest.Start(t, 1, sshtest.Options{})
	h := hs.Hosts[0]

	// A job left running is a leftover; Kill ends it and the host.
	if out, err := ssh(t, hs, "h1", "sleep 100 </dev/null >/dev/null 2>&1 &"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if left := h.Leftovers(); len(left) != 1 || !strings.Contains(left[0].Cmdline, "sleep 100") {
		t.Fatalf("leftovers: %v, want the sleep", left)
	}
	if procs, err := sshtest.ProcessesOf(h.User); err != nil || len(procs) == 0 {
		t.Fatalf("ProcessesOf(%s) = %v, %v", h.User, procs, err)
	}
	h.Kill()
	if left := h.Leftovers(); len(left) != 0 {
		t.Fatalf("after Kill: %v", left)
	}
	if out, err := ssh(t, hs, "h1", "true"); err == nil || !strings.Contains(out, "refused") {
		t.Fatalf("after Kill: %v: %q, want connection refused", err, out)
	}
	if err := h.Up(); err != nil {
		t.Fatal(err)
	}
	if out, err := ssh(t, hs, "h1", "echo back"); err != nil || out != "back" {
		t.Fatalf("after Up: %v: %q", err, out)
	}

	// Stopped, the host accepts no login in time.
	h.Stop()
	begin := time.Now()
	out, err := ssh(t, hs, "h1", "true", "-o", "ConnectTimeout=1")
	if err == nil {
		t.Fatalf("a stopped host answered: %q", out)
	}
	t.Logf("stopped host: %v after %v: %s", err, time.Since(begin), out)
	h.Cont()
	if out, err := ssh(t, hs, "h1", "echo again"); err != nil || out != "again" {
		t.Fatalf("after Cont: %v: %q", err, out)
	}

	h.Down()
	if out, err := ssh(t, hs, "h1", "true"); err == nil || !strings.Contains(out, "refused") {
		t.Fatalf("after Down: %v: %q, want connection refused", err, out)
	}
	h.WaitClean(t, time.Second)
}
