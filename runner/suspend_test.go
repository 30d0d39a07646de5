package runner

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// A job's --timeout counts only the time the run was not suspended.
func TestTimeoutLeavesOutSuspension(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Pool{Timeout: Timeout{Fixed: 3 * time.Second}}
		ctx, timedOut := p.deadline(context.Background())
		time.Sleep(time.Second)
		p.Suspend()
		time.Sleep(5 * time.Second) // 6 s in all, 1 s of it running
		if ctx.Err() != nil {
			t.Fatal("the job timed out while the run was suspended")
		}
		p.Resume()
		time.Sleep(1900 * time.Millisecond)
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("the job timed out after 2.9 s of running time, want 3 s")
		}
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		if ctx.Err() == nil || timedOut() != 3*time.Second {
			t.Fatal("the job did not time out after 3.1 s of running time")
		}
	})
}

// Two suspensions add up, and one still under way counts up to now.
func TestPausedAt(t *testing.T) {
	var g pauseClock
	t0 := time.Unix(1000, 0)
	g.suspend(t0)
	g.resume(t0.Add(2 * time.Second))
	g.suspend(t0.Add(5 * time.Second))
	g.suspend(t0.Add(6 * time.Second)) // a second Ctrl-Z changes nothing
	if got := g.pausedAt(t0.Add(8 * time.Second)); got != 5*time.Second {
		t.Errorf("paused %v by t+8s, want 5s", got)
	}
	g.resume(t0.Add(9 * time.Second))
	if got := g.pausedAt(t0.Add(20 * time.Second)); got != 6*time.Second {
		t.Errorf("paused %v by t+20s, want 6s", got)
	}
}

// A job that starts while the run is suspended is stopped at once, and
// continued with the rest.
func TestGroupStartedWhileSuspended(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var g groups
	g.suspend()
	g.add(cmd.Process.Pid)
	waitState(t, cmd.Process.Pid, "T")
	g.resume()
	waitState(t, cmd.Process.Pid, "S", "R")
	g.remove(cmd.Process.Pid)
	g.suspend()
	time.Sleep(100 * time.Millisecond)
	if s := state(cmd.Process.Pid); s == "T" {
		t.Error("a group taken off the list was stopped")
	}
}

func waitState(t *testing.T, pid int, want ...string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, w := range want {
			if state(pid) == w {
				return
			}
		}
	}
	t.Fatalf("process %d is in state %q, want one of %q", pid, state(pid), want)
}

// state is a process's state letter from /proc.
func state(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// A job started before any job succeeded gets its N% timeout from the first
// success (GNU parallel's hung first job), and a running job's limit moves
// with the median.
func TestPercentTimeoutFollowsMedian(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Pool{Timeout: Timeout{Percent: 200}}
		hung, hungTimedOut := p.deadline(context.Background())
		time.Sleep(10 * time.Second)
		if hung.Err() != nil {
			t.Fatal("a job timed out before any median existed")
		}
		p.medians.add(time.Second) // limit 2 s; the hung job has run 10 s
		synctest.Wait()
		if hung.Err() == nil || hungTimedOut() != 2*time.Second {
			t.Fatal("the hung first job did not time out once a job succeeded")
		}

		job, timedOut := p.deadline(context.Background())
		time.Sleep(1500 * time.Millisecond)
		p.medians.add(5 * time.Second) // median of 1s 5s: the lower, 1s
		p.medians.add(5 * time.Second) // median 5s: limit 10s
		time.Sleep(1 * time.Second)    // 2.5 s run: past the old 2 s limit
		synctest.Wait()
		if job.Err() != nil {
			t.Fatal("a job timed out by a limit the median had since raised")
		}
		time.Sleep(8 * time.Second)
		synctest.Wait()
		if job.Err() == nil || timedOut() != 10*time.Second {
			t.Fatal("the job did not time out at 200% of the new median")
		}
	})
}

// On a run where no job succeeds, jobs that ended leave the list of those
// waiting for a median: it does not grow with every job.
func TestPercentTimeoutWaitersPruned(t *testing.T) {
	p := &Pool{Timeout: Timeout{Percent: 200}}
	for range 10000 {
		_, done := p.deadline(context.Background())
		done()
	}
	if n := len(p.medians.waiting); n > 200 {
		t.Errorf("%d ended jobs still wait for a median", n)
	}
}
