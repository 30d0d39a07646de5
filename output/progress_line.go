package output

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"
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

// barRenderer draws --bar's line: the share done, a bar, done/total, the
// rate and the elapsed time and ETA, after a description that counts
// failures:
//
//	fan: 2 failed  62% |█████████████████████████           | (124/200, 48 jobs/s) [2s:1s]
//
// The layout is the one schollz/progressbar draws, which fan used until
// its imports (net/http and crypto, for a status server fan has no use
// for) were measured to cost 3 ms of every run's start-up; see
// BENCHMARKS.md. Its clock starts at the first drawing once something was
// read, and its width is fixed then, so that resizing does not jump.
type barRenderer struct {
	start time.Time
	width int
	name  string // what the line starts with: fan, and the limit when it changes
}

// line renders the bar at now for done of read items. With streaming
// input the total grows as more is read; when the jobs have caught up with
// the input the line says so instead.
func (b *barRenderer) line(now time.Time, done, read int64, ended bool, failed int64, cols int) string {
	desc := cmp.Or(b.name, "fan")
	if failed > 0 {
		desc = fmt.Sprintf("%s: %d failed", desc, failed)
	}
	if read == 0 {
		return desc + "  waiting for input"
	}
	if done >= read {
		if ended {
			return fmt.Sprintf("fan: %d/%d done", done, read)
		}
		return fmt.Sprintf("%s  %d done, waiting for input", desc, done)
	}
	if b.start.IsZero() {
		b.start = now
		b.width = min(max(cols-70, 10), 40)
	}
	if done == 0 {
		// No rate or ETA to show yet.
		return fmt.Sprintf("%s  0/%d done", desc, read)
	}
	elapsed := now.Sub(b.start)
	rate := float64(done) / max(elapsed.Seconds(), 1e-3) // jobs per second
	left := time.Duration(float64(read-done) / rate * float64(time.Second))
	filled := int(int64(b.width) * done / read)
	return fmt.Sprintf("%s %3d%% |%s%s| (%d/%d, %s) [%s:%s]",
		desc, done*100/read,
		strings.Repeat("█", filled), strings.Repeat(" ", b.width-filled),
		done, read, rateText(rate), elapsed.Truncate(time.Second), left.Truncate(time.Second))
}

// rateText says how many jobs end per second, or per minute or hour when
// that is less than one.
func rateText(perSecond float64) string {
	switch {
	case perSecond >= 1:
		return fmt.Sprintf("%.0f jobs/s", perSecond)
	case perSecond*60 >= 1:
		return fmt.Sprintf("%.0f jobs/min", perSecond*60)
	}
	return fmt.Sprintf("%.0f jobs/hr", perSecond*3600)
}
