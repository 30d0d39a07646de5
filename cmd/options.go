package cmd

import (
	"regexp"
	"time"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// Options is everything fan was asked to do: each flag parsed into a typed
// value as it was read, and the positional arguments (the command and the
// ::: and :::: sources), grouped by the stage that uses them, and what cmd
// itself needs. Nothing changes it after parsing: check validates it and
// derives what the stages are built from (Config).
type Options struct {
	Input  InputOptions
	Runner RunnerOptions
	Output OutputOptions
	Remote RemoteOptions
	Sem    SemaphoreOptions

	// Xargs is --xargs: be GNU xargs.
	Xargs bool
	// Completion is --completion SHELL: print its completion script.
	Completion string
	// Profiles are the -J profiles and Plain is --plain: read (or not)
	// before the flags are parsed (config.go).
	Profiles []string
	Plain    bool
	// ShowLimits is --show-limits: print the command-size limits.
	ShowLimits bool
	// DrainTimeout is --drain-timeout: how long a drain may last before
	// the running jobs are terminated; 0 is forever.
	DrainTimeout time.Duration

	// given records which of the flags whose meaning depends on others
	// were given, and in which order: under --xargs the last of -n, -L
	// and -I wins, as in xargs (see addXargsFlags).
	given map[string]int
}

// InputOptions are the flags of the input stage: where items come from,
// how they are split, and how many go in each job.
type InputOptions struct {
	ArgFiles []string       // -a
	Null     bool           // -0
	Colsep   *regexp.Regexp // --colsep, or nil
	// Delimiter is -d as given: under --xargs, which may come later on
	// the line, it is read as xargs reads it.
	Delimiter string
	// Trim is --trim, or nil when not given (--colsep then trims both
	// ends).
	Trim         *input.Trim
	NoRunIfEmpty bool   // -r
	MaxArgs      int    // -n
	MaxReplace   int    // -N: -n, and words holding {} are repeated as with -X
	ArgSep       string // --arg-sep (:::)
	ArgFileSep   string // --arg-file-sep (::::)
	Link         bool   // --link
	PackContext  bool   // -X
	PackMulti    bool   // -m
	MaxLines     int    // -L
	MaxChars     int    // -s
	Exact        bool   // -x
	EOF          string // -E
	// Sources are the ::: lists and :::: files of the positional
	// arguments (the -a files are in ArgFiles).
	Sources []input.SourceSpec
	Shard   ShardSpec // --shard
	Shuf    bool      // --shuf: run the jobs in a random order
	// Pipe mode: the flags of --pipe and --pipepart.
	Pipe PipeOptions
}

// PipeOptions are the flags of pipe mode: stdin (or a file, --pipepart)
// is cut into blocks, each given to a job on its stdin.
type PipeOptions struct {
	Pipe       bool    // --pipe, --spreadstdin
	PipePart   bool    // --pipepart: cut the -a file without reading it through fan
	Block      int64   // --block; 0 when not given; negative: blocks per job slot (--pipepart)
	RecStart   *string // --recstart, nil when not given
	RecEnd     *string // --recend, nil when not given
	Regexp     bool    // --regexp
	Header     string  // --header
	Cat        bool    // --cat: {} is a file holding the block
	Fifo       bool    // --fifo: {} is a FIFO the block is written into
	RoundRobin bool    // --round-robin
	Tee        bool    // --tee: every job gets all of the input
}

// on reports whether pipe mode is asked for: --cat and --fifo ask for it
// too, as in GNU parallel (they have no meaning without it).
func (p *PipeOptions) on() bool { return p.Pipe || p.PipePart || p.Cat || p.Fifo }

// RunnerOptions are the flags of the runner stage: how each job's command
// is built, and how many jobs run, timed, retried and stopped.
type RunnerOptions struct {
	// Command is the command template's words.
	Command        []string
	Replace        string // -I
	Quote          bool   // -q
	Plus           bool   // --plus: GNU parallel's further replacement strings
	Nice           int    // --nice: the jobs' nice value; 0 leaves it
	WorkDir        string // --workdir
	Shell          string // --shell
	DryRun         bool   // --dry-run
	Jobs           Jobs   // -j, -P
	Load           Jobs   // --load: most processes runnable
	MemFree        int64  // --memfree: least memory available; 0: none
	TermSeq        runner.TermSeq
	Timeout        runner.Timeout
	Retries        int
	RetryDelay     time.Duration
	Delay          time.Duration
	Halt           runner.Halt
	ProcessSlotVar string // --process-slot-var
}

// OutputOptions are the flags of the output stage: how job output reaches
// stdout and stderr, the books kept of a run, and what fan shows on the
// terminal.
type OutputOptions struct {
	KeepOrder  bool   // -k
	Group      bool   // --group (true; false is refused)
	Ungroup    bool   // -u
	LineBuffer bool   // --line-buffer
	Tag        bool   // --tag
	TagString  string // --tagstring, its escapes read
	CTag       bool   // --ctag: --tag in color
	CTagString string // --ctagstring: --tagstring in color
	Verbose    bool   // -t
	Results    string // --results
	TmpDir     string // --tmpdir
	Files      bool   // --files: keep each job's stdout in a file, print its name
	Failures   string // --failures
	Joblog     Joblog // --joblog
	Resume     bool   // --resume
	// ResumeFailed is --resume-failed.
	ResumeFailed bool
	Display      output.DisplayFlags // --color, --bar, --no-bar, --eta, --progress
	Quiet        bool                // --quiet
}
