package cmd

import (
	"strings"

	"github.com/spf13/pflag"
)

// spellings are GNU parallel's other names for flags fan has, taken as
// they are by parallel (its Getopt::Long table), so that scripts written
// for it run unchanged.
var spellings = map[string]string{
	"jl": "joblog", "result": "results", "res": "results",
	"resumefailed": "resume-failed", "keeporder": "keep-order",
	"line-buffered": "line-buffer", "linebuffer": "line-buffer", "linebuffered": "line-buffer",
	"tag-string": "tagstring", "term-seq": "termseq", "ctag-string": "ctagstring",
	"maxprocs": "max-procs", "maxchars": "max-chars", "argfile": "arg-file",
	"norunifempty": "no-run-if-empty", "processslotvar": "process-slot-var",
	"maxargs": "max-args", "maxreplaceargs": "max-replace-args", "maxlines": "max-lines",
	"col-sep": "colsep", "showlimits": "show-limits", "xapply": "link",
	"dryrun": "dry-run", "dr": "dry-run", "argsep": "arg-sep", "argfilesep": "arg-file-sep",
	"willcite": "will-cite", "nn": "no-notice", "nonotice": "no-notice",
	"halt-on-error": "halt", "tempdir": "tmpdir", "wd": "workdir", "work-dir": "workdir",
	"spreadstdin": "pipe", "pipe-part": "pipepart", "block-size": "block", "blocksize": "block",
	"slf": "sshloginfile", "tf": "transferfile", "bf": "basefile",
	"semaphore-name": "id", "semaphorename": "id", "st": "semaphore-timeout", "semaphoretimeout": "semaphore-timeout",
	"roundrobin": "round-robin", "round": "round-robin", "regex": "regexp",
}

// spellingOver is spelling for the flag set f as it is now, quicker for
// the names of its flags: setting it normalises every flag's name, and
// spelling goes through every flag for each.
func spellingOver(f *pflag.FlagSet) func(*pflag.FlagSet, string) pflag.NormalizedName {
	names := map[string]bool{}
	f.VisitAll(func(fl *pflag.Flag) { names[fl.Name] = true })
	return func(f *pflag.FlagSet, name string) pflag.NormalizedName {
		if _, other := spellings[name]; names[name] && !other {
			return pflag.NormalizedName(name)
		}
		return spelling(f, name)
	}
}

// spelling is the flag set's normalising function: it takes GNU
// parallel's other names for a flag (spellings) and, as GNU getopt_long
// and Perl's Getopt::Long do for xargs and parallel, any unambiguous
// beginning of a long name (--keep for --keep-order, --max-a for
// --max-args). An ambiguous or unknown name is left as it is, for the
// parser to refuse; so is one that also begins an option of parallel's or
// xargs's that fan lacks (lacking): --retry is not taken for
// --retry-delay, since parallel's --retry-failed begins so too.
func spelling(f *pflag.FlagSet, name string) pflag.NormalizedName {
	if real, ok := spellings[name]; ok {
		return pflag.NormalizedName(real)
	}
	// f.Lookup would call this function again: the flags are visited.
	matches := 0
	match := name
	f.VisitAll(func(fl *pflag.Flag) {
		switch {
		case matches < 0:
		case fl.Name == name:
			matches, match = -1, name // exact
		case name != "" && strings.HasPrefix(fl.Name, name):
			matches++
			match = fl.Name
		}
	})
	if matches > 1 || matches == 1 && elsewhereBegins(name, match) {
		return pflag.NormalizedName(name) // ambiguous
	}
	return pflag.NormalizedName(match)
}
