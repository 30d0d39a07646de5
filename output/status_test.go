package output

import (
	"strings"
	"testing"
	"time"

	"github.com/fan-run/fan/runner"
)

func TestStatusText(t *testing.T) {
	r := &runner.Report{
		Running: []runner.RunningJob{
			{Seq: 7, Slot: runner.Slot{N: 1}, Command: "sleep 5", Runtime: 2340 * time.Millisecond},
			{Seq: 9, Slot: runner.Slot{N: 2, Host: "h1"}, Command: "gzip 'a b'", Runtime: time.Second},
		},
		Limit: 2, Why: "procfile procs", Read: 20, Queued: 3, QueuedBytes: 1536,
	}
	got := StatusText(r, Stats{OK: 8, Failed: 1}, 1)
	want := strings.Join([]string{
		"fan: status: 20 read, 3 queued, 2 running, 8 succeeded, 1 failed, 1 retrying, 0 not started",
		"fan: jobs: 2 at once (procfile procs)",
		"fan: read ahead: 3 items, 1.5K",
		"fan: running: job 7, slot 1, 2.3s: sleep 5",
		"fan: running: job 9, slot 2 on h1, 1s: gzip 'a b'",
	}, "\n")
	if got != want {
		t.Fatalf("status:\n%s\nwant:\n%s", got, want)
	}
}
