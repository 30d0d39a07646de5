package cmd

import (
	"os"
	"time"

	"fan/output"
)

// terminal is what fan shows on stderr besides the jobs' output: a progress
// display and colors.
type terminal struct {
	progress output.ProgressMode
	palette  output.Palette
	auto     bool // the bar was not asked for: wait before showing it
}

// terminal checks the progress and color flags and decides, for stderr,
// whether a bar is shown and whether messages are colored. getenv is
// os.Getenv in production.
func (o *Options) terminal(stderr *os.File, getenv func(string) string) (terminal, error) {
	mode, err := output.ParseColorMode(o.Color)
	if err != nil {
		return terminal{}, usageErrorf("--color: %v", err)
	}
	if o.Bar && o.NoBar {
		return terminal{}, usageErrorf("--bar and --no-bar cannot be used together (pick one)")
	}
	t := terminal{palette: output.NewPalette(mode, stderr, getenv)}
	switch {
	case o.ETA:
		t.progress = output.ProgressETA
	case o.Progress:
		t.progress = output.ProgressGNU
	case o.Bar:
		t.progress = output.ProgressBar
	case o.NoBar, o.Ungroup, o.DryRun, o.Xargs:
		// -u: jobs write straight to the terminal, where a bar would
		// garble their lines; --dry-run: nothing to wait for; --xargs:
		// xargs draws nothing.
	case output.AutoBar(stderr, getenv):
		t.progress = output.ProgressBar
		t.auto = true
	}
	return t, nil
}

// meter is the progress display for the sink, or nil for none.
func (t terminal) meter(stderr *os.File, intake *output.Intake, jobs int) output.Meter {
	if t.progress == output.ProgressNone {
		return nil
	}
	p := &output.Progress{W: stderr, Mode: t.progress, Intake: intake, Jobs: jobs}
	if t.auto {
		p.Quiet = 300 * time.Millisecond
	}
	p.Start()
	return p
}
