package output

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// ProgressMode is what fan shows about a run's progress on stderr.
type ProgressMode int

// The progress displays.
const (
	ProgressNone ProgressMode = iota
	ProgressBar               // --bar: a bar with done/total, failures, rate and ETA
	ProgressETA               // --eta: GNU parallel's "ETA: ... Left: ... AVG: ..." line
	ProgressGNU               // --progress: GNU parallel's "local:running/done/%/avg" line
)

// AutoBar reports whether a bar is shown when no flag asks for one: only
// when f is a terminal, TERM is not dumb and CI is unset, so that pipes,
// files, dumb terminals and CI logs never get one. getenv is os.Getenv in
// production.
func AutoBar(f *os.File, getenv func(string) string) bool {
	return isTerminal(f) && getenv("TERM") != "dumb" && getenv("CI") == ""
}

// Intake counts the items read from the input, for the progress display:
// the input stage adds to Read as it reads, and Ended is set when the input
// is over. Until then the total is what has been read so far. Bytes adds
// up what the items read hold in memory (input.Item.Held), for the status
// report. Safe for concurrent use.
type Intake struct {
	Read  atomic.Int64
	Bytes atomic.Int64
	Ended atomic.Bool
	// Pipe says that the input is a byte stream cut into blocks (pipe
	// mode): the bar then shows Offset, how much of it was read so far, of
	// Size, its size when that was known before the run (a file; else 0).
	// Blocks says each item is one block (not --round-robin, whose jobs
	// share the blocks).
	Pipe, Blocks bool
	Offset       atomic.Int64
	Size         int64
}

// Progress draws a one-line progress display on a terminal (or, when asked
// for, on any file) and implements the sink's Meter: the sink, the single
// writer of stdout and stderr, calls Hide before it writes anything, and
// Update after each result and on each Tick. The line is drawn at most
// every Every, and Done clears it. Progress is not safe for concurrent use:
// only the sink's goroutine calls it.
type Progress struct {
	// W is where the line is drawn (fan's stderr).
	W *os.File
	// Mode is which display to draw.
	Mode ProgressMode
	// Intake tells how many items were read, and whether that is all.
	Intake *Intake
	// Jobs is the number of job slots (0: no limit), for --eta and
	// --progress.
	Jobs int
	// Limit, when set, gives the number of job slots now, which changes
	// while jobs run (-j auto, a procfile): --eta and --progress count
	// with it, and --bar shows it. It must be safe to call from the
	// sink's goroutine.
	Limit func() int
	// Every is the least time between two draws (default 200ms).
	Every time.Duration
	// Quiet is how long after Start nothing is drawn, so that a run that
	// ends at once does not flash a bar.
	Quiet time.Duration
	// LineEvery is, for --eta and --progress on a W that is not a
	// terminal (a log, a pipe), the least time between two lines (default
	// 1s): there each drawing is a line of its own, written only when the
	// counts changed, rather than a redraw joined to the last by \r.
	LineEvery time.Duration

	start  time.Time
	ticker *time.Ticker
	last   time.Time // when the line was last drawn
	shown  int       // width of the line on screen; 0: nothing shown
	stats  Stats
	header bool // the --eta/--progress header is out
	bar    *barRenderer
	ttys   map[*os.File]bool
	tty    bool // W is a terminal: lines are erased with ANSI codes
	// lines: each drawing is a line of its own (--eta, --progress off a
	// terminal); counts is what the last one showed, as done and read.
	lines  bool
	counts [2]int64
	// midLine: output on the screen stopped in the middle of a line, which
	// drawing (from the line's start) would overwrite; nothing is drawn
	// until a line ends.
	midLine bool
}

// Start begins the display's clock. It is called once, before the first
// result, by whoever creates the Progress.
func (p *Progress) Start() {
	if p.Every <= 0 {
		p.Every = 200 * time.Millisecond
	}
	if p.LineEvery <= 0 {
		p.LineEvery = time.Second
	}
	p.start = time.Now()
	p.tty = isTerminal(p.W)
	p.lines = !p.tty && (p.Mode == ProgressETA || p.Mode == ProgressGNU)
	p.ticker = time.NewTicker(max(p.Every/4, time.Millisecond))
}

// Tick implements Meter: a channel on which the sink is woken to redraw the
// line while no result arrives (the ETA and elapsed time still move).
func (p *Progress) Tick() <-chan time.Time {
	if p.ticker == nil {
		return nil
	}
	return p.ticker.C
}

// Hide implements Meter: it clears the line, if it is shown and dst is W
// or a terminal, so that what the sink writes next starts on a clean line.
// Output to a pipe or a file leaves the line alone.
func (p *Progress) Hide(dst *os.File) {
	if p.shown == 0 || !p.onScreen(dst) {
		return
	}
	p.clear()
}

// Wrote implements Meter.
func (p *Progress) Wrote(dst *os.File, endsLine bool) {
	if p.onScreen(dst) {
		p.midLine = !endsLine
	}
}

// onScreen reports whether writing to dst lands where the display is
// drawn: dst is the display's own file, the same open file (2>&1 into a
// pipe or a log), or a terminal.
func (p *Progress) onScreen(dst *os.File) bool {
	if dst == p.W || dst == nil {
		return true
	}
	if p.ttys == nil {
		p.ttys = map[*os.File]bool{}
	}
	tty, ok := p.ttys[dst]
	if !ok {
		tty = isTerminal(dst) || sameFile(dst, p.W)
		p.ttys[dst] = tty
	}
	return tty
}

func (p *Progress) clear() {
	if p.shown == 0 {
		return
	}
	if p.tty {
		// Erase the whole line: also what the terminal echoed after
		// the bar, such as ^C.
		p.write("\r" + eraseLine)
	} else {
		p.write("\r" + strings.Repeat(" ", p.shown) + "\r")
	}
	p.shown = 0
}

// eraseLine is the ANSI code that erases from the cursor to the end of the
// line.
const eraseLine = "\x1b[K"

// Update implements Meter: it records the counts and redraws the line if
// the last draw is older than Every, or, if the line was hidden for output
// since, older than a quarter of that.
func (p *Progress) Update(s Stats) {
	p.stats = s
	now := time.Now()
	if p.last.IsZero() && now.Sub(p.start) < p.Quiet {
		return
	}
	if p.lines {
		if now.Sub(p.last) >= p.LineEvery && p.countsNow() != p.counts {
			p.draw(now)
		}
		return
	}
	due := p.Every
	if p.shown == 0 {
		// Hidden for output: back soon, but not after every result of a
		// stream, which would make it flicker.
		due = p.Every / 4
	}
	if now.Sub(p.last) < due {
		return // the next tick redraws it
	}
	p.draw(now)
}

// Done implements Meter: the run is over. The bar is cleared; --eta and
// --progress leave their final line, as GNU parallel does, followed by a
// newline.
func (p *Progress) Done() {
	if p.ticker != nil {
		p.ticker.Stop()
	}
	if p.Mode == ProgressETA || p.Mode == ProgressGNU {
		if p.midLine {
			p.write("\n") // the final line is kept: it starts a line of its own
			p.midLine = false
		}
		p.draw(time.Now())
		if !p.lines {
			p.write("\n")
		}
		p.shown = 0
		return
	}
	p.clear()
}

func (p *Progress) draw(now time.Time) {
	if p.midLine {
		return // it would overwrite the output's unfinished line
	}
	cols := p.columns()
	if (p.Mode == ProgressETA || p.Mode == ProgressGNU) && !p.header {
		p.clear()
		p.header = true
		p.write(fmt.Sprintf("Computers / CPU cores / Max jobs to run\n1:local / %d / %s\n\n"+
			"Computer:jobs running/jobs completed/%%of started jobs/Average seconds to complete\n",
			numCPU(), jobsText(p.Jobs)))
	}
	if p.lines {
		p.counts = p.countsNow()
		p.write(strings.TrimRight(p.line(now, cols), " ") + "\n")
		p.last = now
		return
	}
	line := truncate(p.line(now, cols), cols-1)
	width := utf8.RuneCountInString(line)
	pad := ""
	switch {
	case p.tty:
		pad = eraseLine
	case p.shown > width:
		pad = strings.Repeat(" ", p.shown-width)
	}
	p.write("\r" + line + pad)
	p.shown = max(width, 1)
	p.last = now
}

// countsNow is the jobs done and the items read so far. Jobs done are
// those that ran (or an earlier run did); items a drain kept from starting
// are not done, nor left to do: they leave the total.
func (p *Progress) countsNow() [2]int64 {
	s := p.stats
	done := s.OK + s.Failed + s.Skipped
	return [2]int64{done, max(p.Intake.Read.Load()-s.NotStarted, done)}
}

// line is the display's text for the counts so far.
func (p *Progress) line(now time.Time, cols int) string {
	s := p.stats
	c := p.countsNow()
	done, read := c[0], c[1]
	ended := p.Intake.Ended.Load()
	switch p.Mode {
	case ProgressETA:
		return p.etaLine(now, done, read, ended)
	case ProgressGNU:
		return p.localLine(now, done, read)
	}
	if p.bar == nil {
		p.bar = &barRenderer{}
	}
	p.bar.name = "fan"
	if p.Limit != nil {
		p.bar.name = fmt.Sprintf("fan (%s at once)", jobsText(p.Limit()))
	}
	if in := p.Intake; in.Pipe {
		unit := "jobs"
		if in.Blocks {
			unit = "blocks"
		}
		return p.bar.pipeLine(now, pipeCounts{done: done, read: read, bytes: in.Offset.Load(), size: in.Size, unit: unit, since: p.start}, ended, s.Failed, cols)
	}
	return p.bar.line(done, read, ended, s.Failed, cols)
}

// write puts text on the terminal; a failure to draw progress is not worth
// stopping the run for, so errors are ignored.
func (p *Progress) write(text string) {
	_, _ = p.W.WriteString(text)
}

// columns is the terminal's width, or 80 when W is not a terminal.
func (p *Progress) columns() int {
	if w, _, err := term.GetSize(int(p.W.Fd())); err == nil && w > 10 {
		return w
	}
	return 80
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n, 0)])
}

// sameFile reports whether a and b are the same open file, as with 2>&1.
func sameFile(a, b *os.File) bool {
	if a == nil || b == nil {
		return false
	}
	sa, err := a.Stat()
	if err != nil {
		return false
	}
	sb, err := b.Stat()
	return err == nil && os.SameFile(sa, sb)
}
