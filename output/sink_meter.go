package output

import (
	"os"
	"time"
)

// Meter is a progress display that shares the terminal with the sink. The
// sink is the only writer of stdout and stderr, so it drives the display
// from its own goroutine: Hide before it writes anything, Update with the
// counts after each result and whenever Tick fires, and Done once at the
// end, before Run returns (so the summary line is written on a clean
// line). *Progress is the implementation.
type Meter interface {
	// Hide clears the display, if it is shown, before the sink writes to
	// dst (which may be another file than the display's, or the same
	// terminal).
	Hide(dst *os.File)
	// Wrote tells, after each write to dst, whether it ended a line: a
	// display drawn on the same screen after job output that did not would
	// overwrite that output's last line, so it waits for a line's end.
	Wrote(dst *os.File, endsLine bool)
	// Update records the counts so far and redraws the display when due.
	Update(Stats)
	// Tick is a channel that fires when the display wants redrawing even
	// without a new result; nil for never.
	Tick() <-chan time.Time
	// Done clears the display for good.
	Done()
}

func (s *Sink) meterHide(dst *os.File) {
	if s.Meter != nil {
		s.Meter.Hide(dst)
	}
}

func (s *Sink) meterUpdate() {
	if s.Meter != nil {
		s.Meter.Update(s.stats)
	}
}

func (s *Sink) meterTick() <-chan time.Time {
	if s.Meter == nil {
		return nil
	}
	return s.Meter.Tick()
}

func (s *Sink) meterDone() {
	if s.Meter != nil {
		s.Meter.Done()
	}
}
