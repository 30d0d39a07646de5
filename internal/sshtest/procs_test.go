package sshtest

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// signalAll signals a process only while it is the one that was read:
// one that took the pid of a process read earlier (another start time) is
// left alone.
func TestSignalAllSparesAProcessThatTookThePid(t *testing.T) {
	c := exec.Command("sleep", "300")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Process.Kill()
		_ = c.Wait()
	})
	p, ok := readProc(c.Process.Pid)
	if !ok || p.start == 0 {
		t.Fatalf("readProc(%d) = %+v, %v", c.Process.Pid, p, ok)
	}
	stranger := p
	stranger.start-- // the one read before was another process
	signalAll([]Proc{stranger}, syscall.SIGKILL)
	time.Sleep(100 * time.Millisecond)
	if p, ok := readProc(c.Process.Pid); !ok || p.State == "Z" {
		t.Fatal("signalAll killed a process that took a pid it had read")
	}
	signalAll([]Proc{p}, syscall.SIGKILL)
	err := c.Wait()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the process read: %v, want killed", err)
	}
}
