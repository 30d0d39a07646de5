package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTerminal runs fan as a person would, on a terminal: inside tmux, 200
// jobs print two lines each while the progress bar is drawn on the same
// screen. What tmux shows must be whole, unmixed job lines, a bar seen
// while the jobs ran, and no bar left at the end; the summary of a failed
// run is colored, and not with NO_COLOR. The jobs sleep 0.11 to 0.18 s,
// so that the run lasts seconds and the bar, hidden whenever a job
// prints, is on the screen often enough to be seen by a poll that a busy
// machine slows down.
func TestTerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	term := newTmux(t, fmt.Sprintf(`"$fan" -j8 'sleep 0.1{%%}; echo "job {} line one"; echo "job {} line two, a little longer than the first"' ::: $(seq 200)
echo "first run exited $?"
"$fan" 'exit 3' ::: a b
echo "second run exited $?"
NO_COLOR=1 "$fan" 'exit 3' ::: a
echo "third run exited $?"
touch %q
exec sleep 600
`, done))
	run := term.run

	// While the jobs run, the last line of the screen is now and then
	// the bar: it must be seen with some jobs done.
	bar := regexp.MustCompile(`^fan(: \d+ failed)? +\d+% \|.*\| \(\d+/\d+, \d+ jobs/(s|min|hr)\) \[\d+s:\d+s\]$`)
	sawBar := ""
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fan did not finish within 90s; the screen:\n%s", run("capture-pane", "-p"))
		}
		screen := strings.Split(strings.TrimRight(run("capture-pane", "-p"), "\n"), "\n")
		if last := strings.TrimRight(screen[len(screen)-1], " "); bar.MatchString(last) && !strings.Contains(last, "(0/") {
			sawBar = last
		}
		time.Sleep(20 * time.Millisecond)
	}
	if sawBar == "" {
		t.Error("the progress bar was never seen on the terminal")
	} else {
		t.Logf("bar seen: %s", sawBar)
	}

	// The whole history: every job line whole, each once; nothing else
	// but the runs' own lines.
	plain := run("capture-pane", "-p", "-J", "-S", "-", "-E", "-")
	job := regexp.MustCompile(`^job (\d+) line (one|two, a little longer than the first)$`)
	seen := map[string]int{}
	var other []string
	for _, line := range strings.Split(plain, "\n") {
		line = strings.TrimRight(line, " ")
		switch m := job.FindStringSubmatch(line); {
		case m != nil:
			seen[line]++
		case line == "":
		default:
			other = append(other, line)
		}
	}
	for i := 1; i <= 200; i++ {
		for _, which := range []string{"one", "two, a little longer than the first"} {
			line := fmt.Sprintf("job %d line %s", i, which)
			if seen[line] != 1 {
				t.Errorf("%q is on the screen %d times, want once", line, seen[line])
			}
		}
	}
	want := []string{
		"first run exited 0",
		"fan: 2 read = 0 succeeded + 2 failed + 0 not started",
		"second run exited 2",
		"fan: 1 read = 0 succeeded + 1 failed + 0 not started",
		"third run exited 1",
	}
	if strings.Join(other, "\n") != strings.Join(want, "\n") {
		t.Errorf("besides the job lines the screen shows:\n%s\nwant:\n%s\n(a bar left behind or mixed into output shows here)",
			strings.Join(other, "\n"), strings.Join(want, "\n"))
	}

	// Colors: the failed run's summary is painted on a terminal, and not
	// with NO_COLOR.
	colored := run("capture-pane", "-p", "-e", "-J", "-S", "-", "-E", "-")
	var summaries []string
	for _, line := range strings.Split(colored, "\n") {
		if strings.Contains(line, "read = ") {
			summaries = append(summaries, line)
		}
	}
	if len(summaries) != 2 {
		t.Fatalf("want 2 summary lines, got %q", summaries)
	}
	if !strings.Contains(summaries[0], "\x1b[") || !strings.Contains(summaries[0], "2 failed") {
		t.Errorf("the summary on a terminal is not colored: %q", summaries[0])
	}
	if strings.Contains(summaries[1], "\x1b[") {
		t.Errorf("the summary with NO_COLOR=1 is colored: %q", summaries[1])
	}
}
