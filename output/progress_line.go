package output

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// etaLine is --eta's line, as GNU parallel's: seconds left, jobs left, the
// average wall time per job, then --progress's fields. While the input is
// still being read, jobs left is what is read and not done, marked "+".
func (p *Progress) etaLine(now time.Time, done, read int64, ended bool) string {
	avg := 0.0
	if done > 0 {
		avg = now.Sub(p.start).Seconds() / float64(done)
	}
	left := read - done
	more := ""
	if !ended {
		more = "+"
	}
	eta := int64(math.Round(avg * float64(left)))
	return fmt.Sprintf("ETA: %ds Left: %d%s AVG: %.2fs  %s", eta, left, more, avg, p.localLine(now, done, read))
}

// localLine is --progress's line, as GNU parallel's for its one computer:
// jobs running, jobs completed, the percentage of jobs started there (always
// 100%: fan runs jobs on this computer only) and the average seconds per
// job. Running jobs are the items read and not done, at most the job slots.
func (p *Progress) localLine(now time.Time, done, read int64) string {
	running, jobs := read-done, p.Jobs
	if p.Limit != nil {
		jobs = p.Limit()
	}
	if jobs > 0 {
		running = min(running, int64(jobs))
	}
	avg := 0.0
	if done > 0 {
		avg = now.Sub(p.start).Seconds() / float64(done)
	}
	return fmt.Sprintf("local:%d/%d/100%%/%.1fs ", running, done, avg)
}

func numCPU() int { return runtime.NumCPU() }

func jobsText(jobs int) string {
	if jobs == 0 {
		return "unlimited"
	}
	return strconv.Itoa(jobs)
}

// barRenderer draws --bar's line with schollz/progressbar: the share done,
// a bar, done/total, the rate and the elapsed time and time left, after a
// description that counts failures:
//
//	fan: 2 failed  62% |█████████████████████████           | (124/200, 48 jobs/s) [2s:1s]
//
// progressbar only renders: its writer is io.Discard and the line is taken
// with String, so that the sink, the one writer of stderr, draws it (and
// clears it before any output). The bar is made at the first drawing once
// something was read, which starts its clock, and its width is fixed then,
// so that resizing does not jump.
type barRenderer struct {
	bar  *progressbar.ProgressBar
	name string // what the line starts with: fan, and the limit when it changes
}

// line renders the bar for done of read items, on a terminal cols wide.
// With streaming input the total is what has been read so far and grows as
// more is read. progressbar marks a bar finished for good once done
// reaches its total, so it is fed only while done < read: when the jobs
// have caught up with the input the line says so instead.
func (b *barRenderer) line(done, read int64, ended bool, failed int64, cols int) string {
	desc := b.desc(failed)
	if read == 0 {
		return desc + "  waiting for input"
	}
	if done >= read {
		if ended {
			return fmt.Sprintf("fan: %d/%d done", done, read)
		}
		return fmt.Sprintf("%s  %d done, waiting for input", desc, done)
	}
	if b.bar == nil {
		b.bar = progressbar.NewOptions64(read,
			progressbar.OptionSetWriter(io.Discard),
			progressbar.OptionSetWidth(min(max(cols-70, 10), 40)),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("jobs"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetSpinnerChangeInterval(0), // no goroutine of its own
		)
	}
	if done == 0 {
		// No rate or time left to show yet: progressbar would say 0s.
		return fmt.Sprintf("%s  0/%d done", desc, read)
	}
	b.bar.Describe(desc)
	if b.bar.GetMax64() != read {
		b.bar.ChangeMax64(read)
	}
	_ = b.bar.Set64(done) // it renders; an error is only a misuse of it
	return strings.TrimRight(strings.TrimLeft(b.bar.String(), "\r"), " ")
}

// desc is what a bar line starts with: fan, the limit when it changes
// (name), and how many jobs failed.
func (b *barRenderer) desc(failed int64) string {
	desc := cmp.Or(b.name, "fan")
	if failed > 0 {
		desc = fmt.Sprintf("%s: %d failed", desc, failed)
	}
	return desc
}
