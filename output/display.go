package output

import (
	"os"
	"time"
)

// Display is what fan shows on stderr besides the jobs' output: a progress
// display, and whether its own messages are colored.
type Display struct {
	Progress ProgressMode
	Palette  Palette
	// Auto says that the bar was not asked for: it waits a moment before
	// it shows, so that a short run draws nothing.
	Auto bool
}

// DisplayFlags are the flags that decide the Display.
type DisplayFlags struct {
	Color                     ColorMode // --color
	Bar, NoBar, ETA, Progress bool      // --bar, --no-bar, --eta, --progress
	// Plain shows no bar unless one is asked for: with -u jobs write
	// straight to the terminal, where a bar would garble their lines;
	// a dry run has nothing to wait for; xargs draws nothing.
	Plain bool
}

// NewDisplay decides, for stderr, whether a progress display is shown and
// whether messages are colored. getenv is os.Getenv in production.
func NewDisplay(f DisplayFlags, stderr *os.File, getenv func(string) string) Display {
	d := Display{Palette: NewPalette(f.Color, stderr, getenv)}
	switch {
	case f.ETA:
		d.Progress = ProgressETA
	case f.Progress:
		d.Progress = ProgressGNU
	case f.Bar:
		d.Progress = ProgressBar
	case f.NoBar, f.Plain:
	case AutoBar(stderr, getenv):
		d.Progress, d.Auto = ProgressBar, true
	}
	return d
}

// Meter starts the progress display and returns it for the sink, or
// returns nil when there is none. jobs is the number of job slots.
func (d Display) Meter(stderr *os.File, intake *Intake, jobs int) Meter {
	if d.Progress == ProgressNone {
		return nil
	}
	p := &Progress{W: stderr, Mode: d.Progress, Intake: intake, Jobs: jobs}
	if d.Auto {
		p.Quiet = 300 * time.Millisecond
	}
	p.Start()
	return p
}
