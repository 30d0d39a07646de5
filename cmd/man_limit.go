package cmd

import (
	"fmt"

	"github.com/fan-run/fan/runner"
)

// manJobs is the man page's section on how many jobs run at once: the
// default, -j auto's contract (its defaults come from the runner's
// constants, so that the page cannot drift from them), procfiles, the
// gates and the status signals.
func manJobs() string {
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
	return fmt.Sprintf(`.SH JOBS AT ONCE
The default \fB\-j\fR is the number of CPUs fan may use: those of its
affinity mask, lowered by the CPU quota of its cgroup and every cgroup
above it (v2 \fBcpu.max\fR, v1 \fBcpu.cfs_quota_us\fR/\fBcpu.cfs_period_us\fR;
the smallest, rounded up, at least 1).
\fB\-j\fR \fIN\fB%%\fR, \fB+\fR\fIN\fR and \fB\-\fR\fIN\fR count from it.
.TP
.BR "\-j auto" "[:\fIMIN\fB:\fIMAX\fR]"
adapts the limit between \fIMIN\fR (default 1) and \fIMAX\fR (default
%d per CPU), starting at the default above.
Every %v it reads the pressure stall counters (PSI, the "some" totals) of
fan's cgroup v2 where the kernel gives them, else \fB/proc/pressure\fR, as
the share of the interval stalled, and the jobs finished and failed.
It raises the limit by one while jobs wait for a slot, CPU, memory and IO
pressure are all below %s and the last raise made jobs finish at least
%s faster (judged once a round of jobs has ended; one that did not is taken
back, and none is tried for %v); it multiplies the limit by %g when memory
or IO pressure passes %s or the share of failing jobs jumps by 50 points.
After each change it holds for %v.
In a memory\-limited cgroup it starts no job while the room left is less
than a job was seen to use.
It never kills a job to shrink: running jobs finish.
With \fB\-t\fR each change is a line on stderr; where the kernel has no
PSI, fan says so once and keeps the starting limit.
.TP
.BI "\-j " FILE
reads the limit from \fIFILE\fR (any count \fB\-j\fR takes) whenever a job
ends and at least every second; an empty, unreadable or invalid read keeps
the last good count.
A value that is a job count is a count: \fB\-j ./4\fR reads the file \fB4\fR.
.TP
.BR \-\-load " and " \-\-memfree
hold every start back while the machine is busy; below half of
\fB\-\-memfree\fR the youngest job is stopped with the termseq and put back
in the queue, counted neither as failed nor as retried.
.TP
.B SIGUSR1
prints a status report on stderr (the counts, the limit and why, the
read\-ahead and the running jobs); the run goes on.
Under \fB\-\-xargs\fR it raises the limit by one instead, and
.B SIGUSR2
lowers it by one (not below 1), as GNU xargs does.
`, runner.AutoMaxPerCPU, runner.AutoInterval, pct(runner.AutoLowMark), pct(runner.AutoGain-1),
		runner.AutoPlateau*runner.AutoCooldown, runner.AutoCut, pct(runner.AutoHighMark), runner.AutoCooldown)
}
