package runner

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Both ways of waiting for a job (a blocking waitid, and the pidfd on the
// netpoller) must end a job the same way: on its own, by its context, and
// by the kill context cutting a termination sequence short.
func TestProcWait(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, script string, block bool, ctx, kill context.Context, seq TermSeq) (syscall.WaitStatus, bool, time.Duration) {
		t.Helper()
		pr, err := spawn(&Command{Path: sh, Args: []string{sh, "-c", script}}, nil, []uintptr{0, 1, 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		ws, terminated := pr.wait(ctx, kill, seq, block)
		return ws, terminated, time.Since(start)
	}
	bg := context.Background()
	term := TermSeq{{Signal: syscall.SIGTERM, Wait: 200 * time.Millisecond}, {Signal: syscall.SIGKILL}}
	for _, block := range []bool{true, false} {
		name := map[bool]string{true: "blocking", false: "netpoller"}[block]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if ws, terminated, _ := run(t, "exit 3", block, bg, bg, term); ws.ExitStatus() != 3 || terminated {
				t.Errorf("exit 3: status %d, terminated %v", ws.ExitStatus(), terminated)
			}

			ctx, cancel := context.WithTimeout(bg, 100*time.Millisecond)
			defer cancel()
			ws, terminated, took := run(t, "sleep 30", block, ctx, bg, term)
			if !terminated || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
				t.Errorf("sleep ended by its context: terminated %v, status %v", terminated, ws)
			}
			if took > 20*time.Second {
				t.Errorf("the terminated job took %v to end", took)
			}

			// A job that ignores TERM is killed after the sequence's wait, or
			// at once when the kill context has ended.
			ignoring := "trap '' TERM; sleep 30 & wait; sleep 30"
			ctx2, cancel2 := context.WithTimeout(bg, 100*time.Millisecond)
			defer cancel2()
			ws, terminated, _ = run(t, ignoring, block, ctx2, bg, term)
			if !terminated || ws.Signal() != syscall.SIGKILL {
				t.Errorf("TERM-ignoring job: terminated %v, status %v", terminated, ws)
			}
			ctx3, cancel3 := context.WithTimeout(bg, 100*time.Millisecond)
			defer cancel3()
			killed, kill := context.WithCancel(bg)
			kill()
			long := TermSeq{{Signal: syscall.SIGTERM, Wait: time.Hour}}
			ws, terminated, took = run(t, ignoring, block, ctx3, killed, long)
			if !terminated || ws.Signal() != syscall.SIGKILL || took > 20*time.Second {
				t.Errorf("kill context ended: terminated %v, status %v after %v", terminated, ws, took)
			}
		})
	}
}
