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
	term.watchBar(exists(done), regexp.MustCompile(`^fan(: \d+ failed)? +\d+% \|.*\| \(\d+/\d+, \d+ jobs/(s|min|hr)\) \[\d+s:\d+s\]$`), "(0/")

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

// TestPipeBar: in pipe mode, the bar on a terminal counts the bytes read
// and the blocks done; with the input a file, it has a share done, a bar
// and an ETA. It is gone at the end, and the jobs got every line.
func TestPipeBar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	term := newTmux(t, fmt.Sprintf(`cd %q
seq 200000 > in.txt
"$fan" --pipe --block 40k -j2 'sleep 0.2; wc -l' < in.txt > counts.txt
echo "<pipe done $?>"
exec sleep 600
`, dir))
	finished := func() bool { return strings.Contains(term.screen(), "<pipe done") }
	term.watchBar(finished, regexp.MustCompile(`^fan +\d+% \|[█ ]+\| [\d.]+[KM] of 1\.2M read, \d+/\d+ blocks done, [\d.]+[KM]/s \[\d+s:\d+s\]$`), " 0/")
	if screen := term.screen(); !strings.Contains(screen, "<pipe done 0>") || strings.Contains(screen, "blocks done") {
		t.Errorf("the run failed, or left its bar behind:\n%s", screen)
	}
	counts, err := os.ReadFile(filepath.Join(dir, "counts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range strings.Fields(string(counts)) {
		var n int
		fmt.Sscan(f, &n)
		total += n
	}
	if total != 200000 {
		t.Errorf("the jobs counted %d lines, want 200000", total)
	}
}

// watchBar polls the screen until finished (within 90 s) and fails the
// test unless its last line was at some point a progress bar matching bar
// with none of notYet in it (a bar with nothing done).
func (s *tmuxSession) watchBar(finished func() bool, bar *regexp.Regexp, notYet string) {
	s.t.Helper()
	sawBar := ""
	deadline := time.Now().Add(90 * time.Second)
	for !finished() {
		if time.Now().After(deadline) {
			s.t.Fatalf("fan did not finish within 90s; the screen:\n%s", s.run("capture-pane", "-p"))
		}
		screen := strings.Split(strings.TrimRight(s.run("capture-pane", "-p"), "\n"), "\n")
		if last := strings.TrimRight(screen[len(screen)-1], " "); bar.MatchString(last) && !strings.Contains(last, notYet) {
			sawBar = last
		}
		time.Sleep(20 * time.Millisecond)
	}
	if sawBar == "" {
		s.t.Error("the progress bar was never seen on the terminal")
	} else {
		s.t.Logf("bar seen: %s", sawBar)
	}
}
