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

// The bar's text as progressbar renders it: share done, bar, done/total,
// rate, elapsed time and time left; fan's own words while there is no bar
// to draw.
func TestBarLine(t *testing.T) {
	b := &barRenderer{}
	cases := []struct {
		done, read, failed int64
		ended              bool
		want               string // a regular expression for the whole line
	}{
		{0, 0, 0, false, `fan  waiting for input`},
		{0, 200, 0, false, `fan  0/200 done`},
		{124, 200, 2, false, `fan: 2 failed  62% \|█{9} {7}\| \(124/200, \d+ jobs/(s|min|hr)\) \[\d+s:\d+(\.\d+)?[mµn]?s\]`},
		{150, 300, 2, false, `fan: 2 failed  50% \|█{8} {8}\| \(150/300, \d+ jobs/(s|min|hr)\) \[\d+s:\d+(\.\d+)?[mµn]?s\]`},
		{30, 30, 1, false, `fan: 1 failed  30 done, waiting for input`},
		{30, 30, 0, true, `fan: 30/30 done`},
	}
	for _, c := range cases {
		got := b.line(c.done, c.read, c.ended, c.failed, 86)
		if !regexp.MustCompile(`^` + c.want + `$`).MatchString(got) {
			t.Errorf("%d/%d:\n got %q\nwant %q", c.done, c.read, got, c.want)
		}
	}
}

// --eta and --progress off a terminal write a line per update, at most
// one per LineEvery, only when the counts changed, and the final line at
// the end; never \r.
func TestProgressLinesOffTerminal(t *testing.T) {
	f := openFile(t)
	in := &Intake{}
	p := &Progress{W: f, Mode: ProgressGNU, Intake: in, Jobs: 2, Every: time.Millisecond, LineEvery: 100 * time.Millisecond}
	p.Start()
	begin := time.Now()
	for i := int64(1); time.Since(begin) < 450*time.Millisecond; i++ {
		in.Read.Store(i + 2)
		p.Update(Stats{OK: i})
		time.Sleep(5 * time.Millisecond)
	}
	for range 20 { // nothing changes: nothing is written
		p.Update(Stats{OK: in.Read.Load() - 2})
		time.Sleep(10 * time.Millisecond)
	}
	p.Done()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	lines := strings.Count(out, "\nlocal:")
	if strings.Contains(out, "\r") || lines < 3 || lines > 7 {
		t.Errorf("want 3 to 7 plain lines (one per 100ms of 450ms, one at the end), got %d:\n%s", lines, out)
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
