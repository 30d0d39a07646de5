package output

import (
	"github.com/fan-run/fan/input"

	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// pipeCounts is what the bar shows in pipe mode: done of read jobs (or
// blocks, the unit), and bytes of the input read since the run began at
// since, of size (0: unknown).
type pipeCounts struct {
	done, read  int64
	bytes, size int64
	unit        string
	since       time.Time
}

// pipeLine renders the bar in pipe mode, where jobs read blocks of a byte
// stream: the bytes read and the blocks done, the rate in bytes since the
// run began, and, when the input's size is known (a file), the share done,
// a bar as wide as the terminal leaves room for, and the ETA:
//
//	fan  37% |███████      | 760M of 2G read, 70/76 blocks done, 210.3M/s [3s:5s]
//	fan: 1 failed  760M read, 70/76 blocks done, 210.3M/s [3s]
//
// The share done is the share read, times the share of the blocks read
// that are done (blocks are about the same size).
//
// This bar is drawn here rather than by progressbar, as barRenderer.line
// draws argument mode's: progressbar shows one count against one total,
// and this line has two (bytes read of the input's size, blocks done of
// those read) and a share done that combines them. The description both
// start with is barRenderer.desc.
func (b *barRenderer) pipeLine(now time.Time, c pipeCounts, ended bool, failed int64, cols int) string {
	desc := b.desc(failed)
	if c.read == 0 && c.bytes == 0 {
		return desc + "  waiting for input"
	}
	read := input.SizeText(c.bytes) + " read"
	if c.size > 0 {
		read = input.SizeText(c.bytes) + " of " + input.SizeText(c.size) + " read"
	}
	blocks := fmt.Sprintf("%d/%d %s done", c.done, c.read, c.unit)
	if c.done >= c.read {
		if ended {
			return fmt.Sprintf("%s  %s, %s", desc, read, blocks)
		}
		return fmt.Sprintf("%s  %s, %s, waiting for input", desc, read, blocks)
	}
	elapsed := now.Sub(c.since)
	rate := input.SizeText(int64(float64(c.bytes)/max(elapsed.Seconds(), 1e-3))) + "/s"
	if c.size <= 0 || c.done == 0 {
		return fmt.Sprintf("%s  %s, %s, %s [%s]", desc, read, blocks, rate, elapsed.Truncate(time.Second))
	}
	frac := min(float64(c.bytes)/float64(c.size), 1) * float64(c.done) / float64(c.read)
	left := time.Duration(float64(elapsed) * (1 - frac) / max(frac, 1e-9))
	head := fmt.Sprintf("%s %3d%% ", desc, int(frac*100))
	text := fmt.Sprintf("%s, %s, %s [%s:%s]", read, blocks, rate, elapsed.Truncate(time.Second), left.Truncate(time.Second))
	width := min(cols-1-utf8.RuneCountInString(head+text)-3, 40)
	if width < 5 {
		return head + " " + text // no room for a bar
	}
	filled := int(float64(width) * frac)
	return head + "|" + strings.Repeat("█", filled) + strings.Repeat(" ", width-filled) + "| " + text
}
