package sshtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// holdSocket starts a process that holds a copy of h's listening socket
// for secs seconds, as a child that the listener forked for a connection
// does until it first runs. It is sleep, under the name sshd.
func holdSocket(t *testing.T, h *Host, secs string) *exec.Cmd {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	fakeSSHD := filepath.Join(t.TempDir(), "sshd")
	if err := os.WriteFile(fakeSSHD, prog, 0o755); err != nil {
		t.Fatal(err)
	}
	inode, err := listening(h.Addr, h.Port)
	if err != nil || inode == 0 {
		t.Fatalf("nothing listens at %s:%d: %v", h.Addr, h.Port, err)
	}
	pid := h.DaemonPID()
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		t.Fatal(err)
	}
	target := -1
	for _, e := range ents {
		if l, _ := os.Readlink(fdDir + "/" + e.Name()); l == fmt.Sprintf("socket:[%d]", inode) {
			target, _ = strconv.Atoi(e.Name())
		}
	}
	if target < 0 {
		t.Fatalf("sshd (pid %d) does not hold the socket %d", pid, inode)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, target, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "listener")
	defer f.Close()
	c := exec.Command(fakeSSHD, secs)
	c.ExtraFiles = []*os.File{f}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Process.Kill()
		_ = c.Wait()
	})
	return c
}

// refused reports whether a connection to h is refused.
func refused(h *Host) error {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, strconv.Itoa(h.Port)), 5*time.Second)
	if err == nil {
		c.Close()
		return errors.New("a connection was taken")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return err
	}
	return nil
}

// Down and Kill return only once nothing listens at the host's address,
// though a process the listener forked still holds its socket when it
// dies: Down lets it close its copy (connections already open go on), Kill
// kills it.
func TestNothingListensOnceDown(t *testing.T) {
	for _, c := range []struct {
		name       string
		take       func(*Host)
		hold       string // how long the holder holds the socket, in seconds
		wantKilled bool
	}{
		{"Down", (*Host).Down, "0.5", false},
		{"Kill", (*Host).Kill, "300", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := Start(t, 1, Options{}).Hosts[0]
			holder := holdSocket(t, h, c.hold)
			c.take(h)
			if err := refused(h); err != nil {
				t.Fatalf("after %s: %v; want refused", c.name, err)
			}
			if err := holder.Wait(); (err != nil) != c.wantKilled {
				t.Errorf("the holder ended with %v; want it killed: %v", err, c.wantKilled)
			}
			if err := h.Up(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Up fails, saying what holds the address, when its sshd cannot listen
// there; a connection answered by another socket does not make it up.
func TestUpSaysWhatHoldsItsAddress(t *testing.T) {
	t.Parallel()
	h := Start(t, 1, Options{}).Hosts[0]
	holder := holdSocket(t, h, "300")
	d, done := h.daemon()
	_ = d.Kill()
	<-done
	err := h.Up()
	if !errors.Is(err, errBind) {
		t.Fatalf("Up with the address held: %v, want %v", err, errBind)
	}
	t.Logf("Up with the address held: %v", err)
	if want := fmt.Sprintf("pid %d ", holder.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("Up's error %q does not name the holder (%s)", err, want)
	}
	_ = holder.Process.Kill()
	_ = holder.Wait()
	h.awaitUnbound(0)
	if err := h.Up(); err != nil {
		t.Fatal(err)
	}
	if err := refused(h); err == nil || !strings.Contains(err.Error(), "taken") {
		t.Errorf("after Up: %v, want a connection", err)
	}
}
