package cmd

// manSections are the man page's sections after OPTIONS, in roff: the
// replacement strings, pipe mode, exit statuses (mirroring exit.go), the signal
// protocol and the environment. EXAMPLES and SEE ALSO follow.
const manSections = `.SH REPLACEMENT STRINGS
In the command template, these are replaced by parts of the item (with
\fB\-n\fR, of all the job's items; with several input sources or
\fB\-\-colsep\fR, use the numbered forms).
When the command runs through a shell, every substituted value that holds a
character special to the shell is quoted, so an item is data, never code.
A template with no replacement string gets the item appended as its last
argument.
.TP
.B {}
the item
.TP
.B {.}
the item without its extension
.TP
.B {/}
the item's basename
.TP
.B {//}
the item's dirname
.TP
.B {/.}
the basename without its extension
.TP
.B {#}
the job number, 1 for the first item, in input order (also \fBFAN_SEQ\fR)
.TP
.B {%}
the job slot, 1 to the number of jobs (also \fBFAN_SLOT\fR)
.TP
.BR {\fIn\fB} ", " {\fIn\fB.} ", " {\fIn\fB/} ", " {\fIn\fB//} ", " {\fIn\fB/.}
the same for input source, argument or column \fIn\fR
.TP
.BR {\-\fIn\fB} ", " {\-\fIn\fB.} ", " {\-\fIn\fB/} ", " {\-\fIn\fB//} ", " {\-\fIn\fB/.}
the same for argument or column \fIn\fR counted from the last: {\-1} is the last
.PP
\fB\-I\fR \fISTR\fR uses \fISTR\fR instead of {} for the whole item.
\fB\-\-plus\fR adds GNU parallel's further strings ({..}, {+.}, {##},
{0#}, {:\-STR}, {/RE/STR} and the rest: see docs/reference.md), among them
{host} and {sshlogin}, the host and the login the job runs on (as
\fBPARALLEL_SSHHOST\fR and \fBPARALLEL_SSHLOGIN\fR; \fB:\fR on this
machine; written as those variables by \fB\-\-dry\-run\fR, which chooses
no host), and {hgrp} and {agrp}, which give nothing (fan has no host
groups).
.SH PIPE MODE
With \fB\-\-pipe\fR, stdin (or the file of \fB\-a\fR) is cut into blocks of
about \fB\-\-block\fR bytes at record boundaries (\fB\-\-recend\fR, a newline
by default; \fB\-\-recstart\fR; \fB\-\-regexp\fR; \fB\-N\fR records per job;
\fB\-L\fR lines per record; \fB\-0\fR NUL records), and each block is one
job's stdin; \fB\-\-header\fR repeats the input's header at the start of
every block. \fB\-\-pipepart \-a\fR \fIFILE\fR cuts a file on disk, each job
reading its byte range straight from the file. A record longer than the
block is never split. A block whose job failed for good, or that was read
but not started (Ctrl-C, \fB\-\-halt\fR), is written byte for byte, in input
order, to the \fB\-\-failures\fR file, so that feeding that file to the
same command reprocesses exactly those records. The progress bar counts bytes read and
blocks done.
.PP
.nf
zcat big.log.gz | fan \-\-pipe \-\-block 10M \-k gzip > big.log.gz.new
fan \-\-pipepart \-a orders.csv \-\-header : \-\-block 10M 'python3 sum.py'
.fi
.SH EXIT STATUS
.TP
.B 0
every job succeeded
.TP
.BR 1 " to " 100
that many jobs failed (a job that timed out or was killed counts as failed)
.TP
.B 101
more than 100 jobs failed
.TP
.B 130
a signal (SIGINT, SIGTERM or SIGHUP) cut the run short, even when the
drain let every job finish
.TP
.B 141
stdout was closed (as in \fBfan ... | head \-1\fR): fan stopped starting
jobs, ended the running ones and left quietly
.TP
.B 255
fan's own error: a usage error, or an input file, the joblog or the
failures file could not be used (said in one line on stderr, before any
job started); or, during the run, bad input further on, a failed write of
fan's own output, or a full temporary directory (running jobs are
stopped); or the joblog or the failures file could not be written (no new
job starts, running ones finish, and what the file lacks is listed on
stderr)
.PP
With \fB\-\-halt now,fail=1\fR, the status is the failing job's own; with
\fB\-\-halt\fR \fIN\fR\fB%\fR, the percentage of jobs that failed; with
\fB\-\-halt ...,success=\fR\fIN\fR, 0.
With \fB\-\-xargs\fR, the statuses are xargs's: 123 when a job failed, 124,
125, 126, 127, and 1 for other errors.
With \fB\-\-onall\fR or \fB\-\-nonall\fR, the failures counted are hosts
where something failed, not jobs. With \fB\-\-semaphore \-\-fg\fR, the
status is the command's own (128+N for a signal N), and 1 when a negative
\fB\-\-semaphore\-timeout\fR gave up.
.SH SIGNALS
fan drains gracefully: nothing that was read is silently lost.
Jobs are not in the terminal's foreground process group, so Ctrl\-C reaches
fan alone and fan decides.
.TP
.B first SIGINT, SIGTERM or SIGHUP
fan stops reading input and starts no new job; running jobs finish and
their output is written.
Every item that was read but not run goes to the \fB\-\-failures\fR file.
One line on stderr says so; it speaks of Ctrl\-C only when stderr is a
terminal, and otherwise names the signal.
A drain that SIGTERM began lasts 10 seconds at most, well within the grace
period of a supervisor (systemd, Kubernetes, Slurm) that sends SIGKILL
next; after SIGINT or SIGHUP it has no limit.
\fB\-\-drain\-timeout\fR, when given, sets the limit for all three.
.TP
.B second signal, or the drain's time running out
running jobs are terminated with the \fB\-\-termseq\fR sequence (sent to
each job's whole process group) and counted as failed; fan exits 130.
.TP
.B third signal
fan kills every job's process group with SIGKILL and exits at once.
.TP
.B SIGTSTP (Ctrl\-Z)
fan sends SIGTSTP to every running job's process group and stops itself;
SIGCONT (\fBfg\fR, \fBbg\fR) continues the jobs with it.
Time spent suspended does not count against \fB\-\-timeout\fR.
.TP
.B before the run has begun
while fan waits to open its input, to read a \fB\-\-header\fR or to reach
its hosts, no job is running: SIGINT, SIGTERM and SIGHUP end fan at once,
killed by the signal (SIGINT or SIGHUP that fan was started with ignored
stays ignored); Ctrl\-Z stops it; SIGUSR1 is ignored.
No job starts before fan watches every one of these signals.
.PP
Any mix of SIGINT, SIGTERM and SIGHUP counts press by press, but a signal
within 200 ms of the previous one is the same press:
\fBtimeout\fR(1) sends SIGTERM to fan and then to its process group.
The exit status is 130 whenever a signal cut the run short, even when the
drain completed.
With \fB\-\-joblog\fR, \fB\-\-resume\fR runs exactly what an interrupted
run left.
A closed stdout (SIGPIPE) ends the run quietly, with status 141; running
jobs are stopped with the termseq.
No process of any job survives fan, whichever way it ends, except when fan
itself is killed with SIGKILL: then the kernel ends each job's main process,
but not what a shell job started beneath it (run fan in a cgroup of its
own, as \fBsystemd\-run \-\-scope\fR or a container makes, to reach those
too).
What survives never writes into a later run's files: its next write to a
grouped job's stdout or stderr, a pipe only the dead fan read, kills it
with SIGPIPE.
The joblog, the failures file and \fB\-\-results\fR rows are written a
whole record at a time, so after SIGKILL none holds a torn line, and
\fB\-\-joblog\fR \fIJ\fR \fB\-\-resume\fR runs only the jobs that had not
finished.
.SH ENVIRONMENT
.TP
.B FAN_SEQ
set in each job's environment to its job number, as {#}
.TP
.B FAN_SLOT
set in each job's environment to its job slot, as {%}
.TP
.BR PARALLEL_SEQ ", " PARALLEL_JOBSLOT
the same as FAN_SEQ and FAN_SLOT, under GNU parallel's names
.TP
.BR PARALLEL_SSHLOGIN ", " PARALLEL_SSHHOST
set in each job's environment to the login it runs on, without N/, and
that login's host alone, as GNU parallel sets them; ":" for this machine
.TP
.B NO_COLOR
when set and not empty, fan's messages are not colored, unless
\fB\-\-color=always\fR (see https://no\-color.org)
.TP
.B TERM
when \fBdumb\fR, no progress bar is shown and nothing is colored unless a
flag asks for it
.TP
.B CI
when set and not empty (as CI services do), no progress bar is shown unless
\fB\-\-bar\fR asks for one
.TP
.B TMPDIR
where the output of running jobs is kept until it is written, past the
1 MiB a job (64 MiB in all) kept in memory (in files removed as they are
made); /tmp when unset
.TP
.B PATH
where the job command's program is looked for (once, before the first job),
and where the shell completions find command names
.TP
.B PARALLEL_SHELL
the shell for jobs that need one, as in GNU parallel, when \fB\-\-shell\fR
is not given (not with \fB\-\-xargs\fR)
.TP
.BR BASH_FUNC_ \fIname\fB%%
a bash function exported with \fBexport \-f\fR: jobs that need a shell then
run in bash, so that they can call it
.TP
.B PARALLEL_SSH
the ssh command for \fB\-S\fR when \fB\-\-ssh\fR is not given, as in GNU
parallel
.TP
.B HOME
where \fB..\fR (~/.parallel/sshloginfile) is, for \fB\-\-sshloginfile\fR
and \fB\-S\fR, unless PARALLEL_HOME is set
.TP
.BR SLURM_ARRAY_TASK_ID ", " SLURM_ARRAY_TASK_MIN ", " SLURM_ARRAY_TASK_COUNT
which shard of how many this is, for \fB\-\-shard auto\fR in a Slurm job
array
.TP
.B JOB_COMPLETION_INDEX
which shard this is, for \fB\-\-shard auto/N\fR in a Kubernetes Indexed Job
.TP
.B FAN_WINDOW
how many finished results \fB\-k\fR may hold while an earlier job runs
(default 4096); for tests
.TP
.B FAN_OUTPUT_HOLD
how many bytes of finished jobs' output may wait to be written, without
\fB\-k\fR, before fan starts no more jobs (default 64 MiB); for tests
.TP
.B GOMAXPROCS
how many threads may run fan's own code at once, as for any Go program;
when unset and at most 16 jobs can run at once (\fB\-j\fR, or the MAX of
\fB\-j auto\fR, fitted to the open-file and process limits), fan adds one
to the Go runtime's
default for each job running at once, so that the waits for its jobs keep
the runtime's monitor thread idle
.TP
.B FAN_OPTS
default options, read before the command line (and before \fB\-J\fR
profiles), split into words as a shell does
.TP
.B PARALLEL
default options as GNU parallel reads them, only when the value starts with
\fB\-\fR (PARALLEL=4, exported for make or MPI, is ignored); below
FAN_OPTS
.TP
.B PARALLEL_HOME
where the config file, profiles, semaphores and \fB..\fR's sshloginfile
are; ~/.parallel when unset
`

// manSeeAlso ends the man page.
const manSeeAlso = `.SH FILES
.TP
.B ~/.parallel/config
default options, one or more a line (# starts a comment line), below
$PARALLEL and FAN_OPTS; not read when \fB\-J\fR names a profile
.TP
.B ~/.parallel/PROFILE
the default options of \fB\-J PROFILE\fR, above $PARALLEL and FAN_OPTS;
words after the options go in front of the command
.TP
.B ~/.parallel/semaphores/id\-NAME/
the slot files of \fB\-\-semaphore \-\-id NAME\fR, each held by an flock
while a command holds the slot
.SH SEE ALSO
.BR xargs (1),
.BR parallel (1),
.BR sh (1)
.PP
fan's README, which has worked tasks and tables for moving over from xargs
and GNU parallel.
`
