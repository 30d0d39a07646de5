package output

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// drawn returns what the progress display wrote since the last call.
func drawn(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lastLine is the text of the last drawing in out.
func lastLine(out string) string {
	i := strings.LastIndex(out, "\r")
	return strings.TrimRight(out[i+1:], " ")
}

// With streaming input the bar's total is what has been read so far, and
// it grows as more is read; when the jobs catch up with the input, the
// line says it waits for input.
func TestProgressStreamingTotal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := os.Open(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in := &Intake{}
	p := &Progress{W: f, Mode: ProgressBar, Intake: in, Jobs: 2, Every: time.Millisecond}
	p.Start()
	step := func(read int64, s Stats) string {
		in.Read.Store(read)
		time.Sleep(2 * time.Millisecond)
		p.Update(s)
		return lastLine(drawn(t, r))
	}

	if got := step(10, Stats{OK: 4}); !strings.Contains(got, "(4/10,") {
		t.Errorf("4 of 10 read: %q", got)
	}
	if got := step(30, Stats{OK: 5, Failed: 1}); !strings.Contains(got, "(6/30,") || !strings.HasPrefix(got, "fan: 1 failed") {
		t.Errorf("6 of 30 read, 1 failed: %q", got)
	}
	if got := step(30, Stats{OK: 29, Failed: 1}); got != "fan: 1 failed  30 done, waiting for input" {
		t.Errorf("caught up with the input: %q", got)
	}
	if got := step(40, Stats{OK: 30, Failed: 1}); !strings.Contains(got, "(31/40,") {
		t.Errorf("more input after catching up: %q", got)
	}

	// Output on the display's file clears the line first; Done clears it.
	p.Hide(f)
	if out := drawn(t, r); !regexp.MustCompile(`^\r +\r$`).MatchString(out) {
		t.Errorf("Hide wrote %q, want the line blanked", out)
	}
	in.Ended.Store(true)
	time.Sleep(2 * time.Millisecond)
	p.Update(Stats{OK: 39, Failed: 1})
	p.Done()
	out := drawn(t, r)
	if !regexp.MustCompile(`\r +\r$`).MatchString(out) {
		t.Errorf("Done left %q, want the line blanked", out)
	}
}

// Output to another file that is not a terminal (stdout into a pipe) does
// not clear the line.
func TestProgressHideOnlyOnScreen(t *testing.T) {
	dir := t.TempDir()
	f, _ := os.CreateTemp(dir, "stderr")
	defer f.Close()
	other, _ := os.CreateTemp(dir, "stdout")
	defer other.Close()
	p := &Progress{W: f, Mode: ProgressBar, Intake: &Intake{}, Every: time.Millisecond}
	p.Start()
	p.Intake.Read.Store(3)
	p.Update(Stats{OK: 1})
	before, _ := f.Seek(0, io.SeekCurrent)
	p.Hide(other)
	after, _ := f.Seek(0, io.SeekCurrent)
	if after != before {
		t.Errorf("output to a file cleared the line")
	}
	p.Hide(f)
	if now, _ := f.Seek(0, io.SeekCurrent); now == after {
		t.Errorf("output to the display's file left the line")
	}
	p.Done()
}

// A bar nobody asked for waits before it is first drawn, so that a run
// that ends at once leaves the terminal as it was.
func TestProgressQuiet(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := &Progress{W: f, Mode: ProgressBar, Intake: &Intake{}, Quiet: time.Hour}
	p.Start()
	p.Intake.Read.Store(5)
	p.Update(Stats{OK: 2})
	p.Done()
	if st, _ := f.Stat(); st.Size() != 0 {
		t.Errorf("drawn during the quiet time: %d bytes", st.Size())
	}
}

// The bar's text, at fixed times: share done, bar, done/total, rate,
// elapsed time and time left.
func TestBarLine(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &barRenderer{}
	cases := []struct {
		at                 time.Duration
		done, read, failed int64
		ended              bool
		want               string
	}{
		{0, 0, 0, 0, false, "fan  waiting for input"},
		{0, 0, 200, 0, false, "fan  0/200 done"},
		{2 * time.Second, 124, 200, 2, false, "fan: 2 failed  62% |█████████       | (124/200, 62 jobs/s) [2s:1s]"},
		{100 * time.Second, 1, 4, 0, false, "fan  25% |████            | (1/4, 36 jobs/hr) [1m40s:5m0s]"},
		{30 * time.Second, 1, 4, 0, false, "fan  25% |████            | (1/4, 2 jobs/min) [30s:1m30s]"},
		{time.Hour, 1, 2, 0, false, "fan  50% |████████        | (1/2, 1 jobs/hr) [1h0m0s:1h0m0s]"},
		{0, 30, 30, 1, false, "fan: 1 failed  30 done, waiting for input"},
		{0, 30, 30, 0, true, "fan: 30/30 done"},
	}
	for _, c := range cases {
		got := b.line(t0.Add(c.at), c.done, c.read, c.ended, c.failed, 86)
		if got != c.want {
			t.Errorf("%d/%d at %v:\n got %q\nwant %q", c.done, c.read, c.at, got, c.want)
		}
	}
}

// TestProgressWaitsForLineEnd: after job output that stopped in the middle
// of a line on the display's screen, the display draws nothing (drawing
// from the line's start would overwrite that output) until a line ends.
func TestProgressWaitsForLineEnd(t *testing.T) {
	f, _ := os.CreateTemp(t.TempDir(), "stderr")
	defer f.Close()
	p := &Progress{W: f, Mode: ProgressBar, Intake: &Intake{}, Every: time.Millisecond}
	p.Start()
	p.Intake.Read.Store(3)
	p.Hide(f)
	f.WriteString("x1") // what the sink writes: job output without a newline
	p.Wrote(f, false)
	time.Sleep(5 * time.Millisecond)
	p.Update(Stats{OK: 1})
	p.Done()
	if b, _ := os.ReadFile(f.Name()); string(b) != "x1" {
		t.Fatalf("screen holds %q after output ending mid-line, want only \"x1\"", b)
	}
	f.WriteString("\n")
	p.Wrote(f, true)
	time.Sleep(5 * time.Millisecond)
	p.Update(Stats{OK: 2})
	if b, _ := os.ReadFile(f.Name()); !strings.HasPrefix(string(b), "x1\n\rfan ") || !strings.Contains(string(b), "(2/3") {
		t.Fatalf("no display once the line ended: %q", b)
	}
}

// TestProgressNotStarted: items a drain kept from starting are neither done
// nor left to do: the bar counts the jobs that ran against those that will.
func TestProgressNotStarted(t *testing.T) {
	p := &Progress{Mode: ProgressBar, Intake: &Intake{}}
	p.Intake.Read.Store(20)
	p.stats = Stats{OK: 1, NotStarted: 18}
	if line := p.line(time.Now(), 120); !strings.Contains(line, "(1/2,") {
		t.Errorf("bar after a drain: %q, want 1 done of 2", line)
	}
}

// A limit that changes while jobs run (-j auto, a procfile) shows on the
// bar, and --progress counts running jobs with it.
func TestProgressShowsLimit(t *testing.T) {
	limit := 3
	p := &Progress{Mode: ProgressBar, Intake: &Intake{}, Limit: func() int { return limit }}
	p.Intake.Read.Store(10)
	p.stats = Stats{OK: 2, Failed: 1}
	now := time.Now()
	if line := p.line(now, 100); !strings.HasPrefix(line, "fan (3 at once): 1 failed ") {
		t.Errorf("bar: %q", line)
	}
	limit = 5
	p.Mode = ProgressGNU
	if line := p.line(now, 100); !strings.HasPrefix(line, "local:5/3/") {
		t.Errorf("--progress: %q", line)
	}
}
