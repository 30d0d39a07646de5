package runner

import (
	"context"
	"errors"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/fan-run/fan/input"
)

// A host of --onall that cannot be reached is tried once: its other items
// fail at once with the reason, rather than each waiting for the host in
// turn (a silent host costs each the whole bound on logging in). A job's
// own failure, or the run stopping, is not the host's.
func TestEachGivesUpAHostThatCannotBeReached(t *testing.T) {
	refused := &TransportError{Host: "h1", Err: errors.New("ssh: connect to host h1 port 22: Connection refused")}
	lost := &TransportError{Host: "h1", Err: errors.New("the connection was lost while the job ran")}
	for _, tc := range []struct {
		name       string
		host       eachHost
		stopping   bool // the run is being stopped while job 1 starts
		wantStarts []int64
		wantFailed int
		wantStderr string
	}{
		{name: "refused at once", host: eachHost{start: map[int64]error{1: refused}}, wantStarts: []int64{1}, wantFailed: 4,
			wantStderr: "fan: job 1: host h1: ssh: connect to host h1 port 22: Connection refused\n" +
				"fan: host h1: 3 jobs not started: it cannot be reached (ssh: connect to host h1 port 22: Connection refused)\n"},
		{name: "lost while a job ran", host: eachHost{wait: map[int64]error{3: lost}}, wantStarts: []int64{1, 2, 3}, wantFailed: 2,
			wantStderr: "fan: job 3: host h1: the connection was lost while the job ran\n" +
				"fan: host h1: 1 job not started: it cannot be reached (the connection was lost while the job ran)\n"},
		{name: "refused at the last job", host: eachHost{start: map[int64]error{4: refused}}, wantStarts: []int64{1, 2, 3, 4}, wantFailed: 1,
			wantStderr: "fan: job 4: host h1: ssh: connect to host h1 port 22: Connection refused\n"},
		{name: "a job that cannot start", host: eachHost{start: map[int64]error{1: &StartError{Name: "sh", Status: 127, Reason: "not found"}}},
			wantStarts: []int64{1, 2, 3, 4}, wantFailed: 1, wantStderr: "fan: job 1: sh: not found\n"},
		{name: "the run stopping", host: eachHost{start: map[int64]error{1: &TransportError{Host: "h1", Err: context.Canceled}}}, stopping: true,
			wantStarts: []int64{1}, wantFailed: 4,
			wantStderr: "fan: job 1: host h1: context canceled\nfan: host h1: 3 jobs not started: the run is stopping\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cancel, stopRun := context.WithCancel(context.Background())
			defer stopRun()
			h := tc.host
			if tc.stopping {
				h.cancel = stopRun
			}
			items := make([]input.Item, 4)
			for i := range items {
				items[i] = input.Item{Seq: int64(i + 1), Args: []string{"x"}}
			}
			e := &Each{Items: items, Template: NewTemplate(TemplateOptions{Words: []string{"echo"}, Shell: "/bin/sh"}),
				Where: "host h1", On: Slot{Exec: &h, Host: "h1", Addr: "h1"}}
			stderr, err := os.CreateTemp(t.TempDir(), "stderr")
			if err != nil {
				t.Fatal(err)
			}
			defer stderr.Close()
			p, err := e.Start(&Attempt{Seq: 1, Stderr: stderr, Cancel: cancel})
			if err != nil {
				t.Fatal(err)
			}
			x, err := p.Wait(context.Background(), context.Background(), TermSeq{})
			if err != nil {
				t.Fatal(err)
			}
			said, _ := os.ReadFile(stderr.Name())
			if !slices.Equal(h.starts, tc.wantStarts) || x.Status.ExitStatus() != tc.wantFailed || string(said) != tc.wantStderr {
				t.Errorf("jobs started %v, status %d, stderr:\n%s\nwant %v, %d (the failed jobs), and:\n%s",
					h.starts, x.Status.ExitStatus(), said, tc.wantStarts, tc.wantFailed, tc.wantStderr)
			}
		})
	}
}

// eachHost is an Executor standing for one host, whose jobs succeed at
// once unless start (the error Start returns) or wait (the error Wait
// returns) holds their item's number. It runs one job at a time, as Each
// sends them.
type eachHost struct {
	start, wait map[int64]error
	cancel      func() // when set, called as a job fails to start
	starts      []int64
}

func (h *eachHost) Start(a *Attempt) (Process, error) {
	h.starts = append(h.starts, a.Seq)
	if err := h.start[a.Seq]; err != nil {
		if h.cancel != nil {
			h.cancel()
		}
		return nil, err
	}
	return eachJob{err: h.wait[a.Seq]}, nil
}

func (h *eachHost) Suspend() {}
func (h *eachHost) Resume()  {}

type eachJob struct{ err error }

func (j eachJob) Wait(stop, kill context.Context, seq TermSeq) (Exit, error) {
	if j.err != nil {
		return Exit{Status: syscall.WaitStatus(255 << 8)}, j.err
	}
	return Exit{}, nil
}
