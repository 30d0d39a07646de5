package output

import (
	"strings"
	"testing"
	"time"
)

// In pipe mode the bar counts bytes read and blocks done; it has a share
// done, a bar and an ETA only when the input's size is known.
func TestPipeBarLine(t *testing.T) {
	t0 := time.Unix(1000, 0)
	now := t0.Add(4 * time.Second)
	const mib = 1 << 20
	for _, tc := range []struct {
		name   string
		c      pipeCounts
		ended  bool
		failed int64
		cols   int
		want   string
	}{
		{"nothing read", pipeCounts{unit: "blocks"}, false, 0, 120, "fan  waiting for input"},
		{"stream, nothing done", pipeCounts{read: 3, bytes: 30 * mib, unit: "blocks"}, false, 0, 120,
			"fan  30M read, 0/3 blocks done, 7.5M/s [4s]"},
		{"stream, failures", pipeCounts{done: 2, read: 3, bytes: 30 * mib, unit: "blocks"}, false, 1, 120,
			"fan: 1 failed  30M read, 2/3 blocks done, 7.5M/s [4s]"},
		{"caught up", pipeCounts{done: 3, read: 3, bytes: 30 * mib, unit: "blocks"}, false, 0, 120,
			"fan  30M read, 3/3 blocks done, waiting for input"},
		{"all done", pipeCounts{done: 3, read: 3, bytes: 30 * mib, size: 30 * mib, unit: "blocks"}, true, 0, 120,
			"fan  30M of 30M read, 3/3 blocks done"},
		// Half read, half of that done: a quarter, 12 s left at this pace.
		{"file", pipeCounts{done: 2, read: 4, bytes: 40 * mib, size: 80 * mib, unit: "blocks"}, false, 0, 120,
			"fan  25% |" + strings.Repeat("█", 10) + strings.Repeat(" ", 30) + "| 40M of 80M read, 2/4 blocks done, 10M/s [4s:12s]"},
		{"file, narrow terminal: no bar", pipeCounts{done: 2, read: 4, bytes: 40 * mib, size: 80 * mib, unit: "blocks"}, false, 0, 60,
			"fan  25%  40M of 80M read, 2/4 blocks done, 10M/s [4s:12s]"},
		{"round-robin", pipeCounts{done: 0, read: 2, bytes: 5 * mib, unit: "jobs"}, false, 0, 120,
			"fan  5M read, 0/2 jobs done, 1.3M/s [4s]"},
	} {
		tc.c.since = t0
		b := &barRenderer{}
		if got := b.pipeLine(now, tc.c, tc.ended, tc.failed, tc.cols); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The pipe bar names the job limit when it changes while jobs run (-j
// FILE, -j auto), as the argument-mode bar does.
func TestPipeBarNamesTheLimit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := &barRenderer{name: "fan (3 at once)"}
	got := b.pipeLine(t0.Add(4*time.Second), pipeCounts{done: 1, read: 3, bytes: 3 << 20, unit: "blocks", since: t0}, false, 1, 120)
	if want := "fan (3 at once): 1 failed  3M read, 1/3 blocks done, 768K/s [4s]"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
