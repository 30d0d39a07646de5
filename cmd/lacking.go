package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// lacking says, for each option of GNU parallel (and of xargs) that fan
// does not have, what to do instead: a user typing one from memory gets a
// line naming it and a way forward, not "unknown flag". A key is an
// option's name without its dashes, a single letter for a short option.
// An entry whose option fan has since gained is never reached.
var lacking = map[string]string{
	// Replacement strings under other names: fan's cannot be renamed.
	"basenamereplace":          "use {/}: fan's replacement strings keep their names (-I renames {} only)",
	"bnr":                      "use {/}: fan's replacement strings keep their names (-I renames {} only)",
	"basenameextensionreplace": "use {/.}: fan's replacement strings keep their names (-I renames {} only)",
	"bner":                     "use {/.}: fan's replacement strings keep their names (-I renames {} only)",
	"dirnamereplace":           "use {//}: fan's replacement strings keep their names (-I renames {} only)",
	"dnr":                      "use {//}: fan's replacement strings keep their names (-I renames {} only)",
	"extensionreplace":         "use {.}: fan's replacement strings keep their names (-I renames {} only)",
	"er":                       "use {.}: fan's replacement strings keep their names (-I renames {} only)",
	"seqreplace":               "use {#}: fan's replacement strings keep their names (-I renames {} only)",
	"slotreplace":              "use {%}: fan's replacement strings keep their names (-I renames {} only)",
	"rpl":                      "fan has no replacement strings of your own: build the value in the command (sh -c '... \"${1%.gz}\" ...' _ {})",
	"parens":                   "fan has no {= perl =} replacement strings: compute the value in the command, through sh -c",
	"i":                        "it is the old -I {}, and {} works without it (or give -I STR)",
	"l":                        "use -L 1 (or -L N lines per job)",

	// Input.
	"skip-first-line":         "drop the line first: tail -n +2 FILE | fan ...",
	"csv":                     "fan splits columns with --colsep REGEX and has no CSV quoting: convert quoted CSV first (e.g. to TSV, then --colsep '\\t')",
	"filter":                  "fan has no perl filter: filter the input first (awk, grep) and pipe it to fan",
	"xapplyinputsource":       "use --link",
	"linkinputsource":         "use --link",
	"max-line-length-allowed": "fan --show-limits prints the command-line limits",
	"hashbang":                "fan cannot be a #! interpreter: run fan on the file, fan -a FILE ...",
	"shebang":                 "fan cannot be a #! interpreter: run fan on the file, fan -a FILE ...",
	"shebang-wrap":            "fan cannot wrap a script: in the script, run fan -a \"$1\" ... on its input",

	// Execution.
	"memsuspend":                     "fan cannot suspend jobs for memory: -j auto holds starts while memory is short",
	"noswap":                         "fan does not watch swapping: -j auto holds starts while memory is short",
	"limit":                          "fan has no --limit command: lower -j, or use -j auto (or -j FILE, read again as jobs end)",
	"retry-failed":                   "re-run the failures file: fan -a FILE ... (with --failures FILE), or --joblog LOG --resume-failed",
	"interactive":                    "fan never asks before a job: use --dry-run to see the commands first",
	"p":                              "fan never asks before a job: use --dry-run to see the commands first",
	"total-jobs":                     "fan's progress counts the items as it reads them; nothing to give",
	"total":                          "fan's progress counts the items as it reads them; nothing to give",
	"number-of-cpus":                 "fan counts CPUs itself (-j 100% is one job per CPU); nproc prints the count",
	"number-of-cores":                "fan counts CPUs itself (-j 100% is one job per CPU); nproc prints the count",
	"number-of-sockets":              "fan counts CPUs itself (-j 100% is one job per CPU); lscpu prints the sockets",
	"number-of-threads":              "fan counts CPUs itself (-j 100% is one job per CPU); nproc prints the count",
	"use-cpus-instead-of-cores":      "fan counts the CPUs it may use (affinity and cgroup quota): give -j N for another count",
	"use-cores-instead-of-threads":   "fan counts the CPUs it may use (affinity and cgroup quota): give -j N for another count",
	"use-sockets-instead-of-threads": "fan counts the CPUs it may use (affinity and cgroup quota): give -j N for another count",

	// Output.
	"output-as-files":        "use --results DIR: each job's stdout, stderr and exit status are kept in files there",
	"outputasfiles":          "use --results DIR: each job's stdout, stderr and exit status are kept in files there",
	"color-failed":           "fan colors its message about each failed job on a terminal (--color)",
	"cf":                     "fan colors its message about each failed job on a terminal (--color)",
	"colour":                 "use --color",
	"group-by":               "fan has no --group-by: sort the input by the column and cut blocks with --pipe --recstart",
	"bin":                    "fan has no --bin: split the input by the column first (awk), and give each part to fan",
	"latest-line":            "use --line-buffer (whole lines as they come) or the progress bar (--bar)",
	"ll":                     "use --line-buffer (whole lines as they come) or the progress bar (--bar)",
	"tmux":                   "fan has no tmux mode: use --line-buffer --tag to watch every job",
	"tmuxpane":               "fan has no tmux mode: use --line-buffer --tag to watch every job",
	"tmux-pane":              "fan has no tmux mode: use --line-buffer --tag to watch every job",
	"tty":                    "fan's jobs read /dev/null: run an interactive command without fan, or give it input",
	"open-tty":               "fan's jobs read /dev/null: run an interactive command without fan, or give it input",
	"o":                      "fan's jobs read /dev/null: run an interactive command without fan, or give it input",
	"compress":               "fan keeps job output in temporary files uncompressed: point --tmpdir at a disk with room",
	"compress-program":       "fan keeps job output in temporary files uncompressed: point --tmpdir at a disk with room",
	"decompress-program":     "fan keeps job output in temporary files uncompressed: point --tmpdir at a disk with room",
	"use-compress-program":   "fan keeps job output in temporary files uncompressed: point --tmpdir at a disk with room",
	"use-decompress-program": "fan keeps job output in temporary files uncompressed: point --tmpdir at a disk with room",
	"no-keep-order":          "fan's default: drop -k",
	"silent":                 "fan prints no commands unless -t: drop --silent",
	"v":                      "use -t (--verbose): fan prints each command on stderr",
	"block-timeout":          "fan cuts --pipe blocks by size and records only: lower --block",
	"bt":                     "fan cuts --pipe blocks by size and records only: lower --block",
	"remove-rec-sep":         "fan passes --pipe blocks whole: strip the separators in the command (sed, tr)",
	"removerecsep":           "fan passes --pipe blocks whole: strip the separators in the command (sed, tr)",
	"rrs":                    "fan passes --pipe blocks whole: strip the separators in the command (sed, tr)",

	// Remote hosts.
	"controlmaster": "fan shares one ssh connection per host (ControlMaster) already",
	"M":             "fan shares one ssh connection per host (ControlMaster) already",
	"ssh-delay":     "fan starts ssh as jobs start; use --delay D to space the jobs",
	"rsync-opts":    "fan copies files over its own ssh connection, without rsync",
	"hostgroups":    "fan has no host groups: run one fan per group of -S hosts",
	"hgrp":          "fan has no host groups: run one fan per group of -S hosts",
	"record-env":    "fan passes the variables you name with --env VAR",
	"session":       "fan passes the variables you name with --env VAR",

	// SQL, templates, embedding, and GNU parallel's own business.
	"sql":              "fan has no SQL input or output: export the rows to a file and use -a FILE (or --results DIR.csv)",
	"sql-master":       "fan has no SQL input or output: export the rows to a file and use -a FILE (or --results DIR.csv)",
	"sql-worker":       "fan has no SQL input or output: export the rows to a file and use -a FILE (or --results DIR.csv)",
	"sql-and-worker":   "fan has no SQL input or output: export the rows to a file and use -a FILE (or --results DIR.csv)",
	"template":         "fan has no --template: render the file in the command (sed \"s/X/{}/\" FILE > out.{#})",
	"tmpl":             "fan has no --template: render the file in the command (sed \"s/X/{}/\" FILE > out.{#})",
	"embed":            "fan is one static binary: copy it beside your script",
	"shell-completion": "use --completion SHELL (bash, zsh or fish)",
	"shell-quote":      "fan quotes each value for its place in the command itself: nothing to quote by hand",
	"shellquote":       "fan quotes each value for its place in the command itself: nothing to quote by hand",
	"minversion":       "fan --version prints its version",
	"V":                "use --version",
	"gnu":              "fan has GNU parallel's meanings always: drop --gnu",
	"tollef":           "fan has GNU parallel's meanings always: drop --tollef",
	"citation":         "fan prints no citation notice: nothing to silence",
	"bibtex":           "fan prints no citation notice: nothing to silence",
	"ctrl-c":           "fan drains on Ctrl-C: the first stops new jobs, the second stops running ones",
}

// lackingText is the message for an option fan does not have, or "" when
// GNU parallel and xargs do not have it either. name is the option as
// given, without its dashes; a beginning of lacking's long names is taken
// for the one it begins, or for the shortest when that begins all the
// others (--sql for --sql, not --sql-master), as GNU parallel takes an
// abbreviation.
func lackingText(name string, short bool) string {
	return lackingTextOf(name, short, "GNU parallel's")
}

// lackingTextOf is lackingText, for an option of whose's (GNU parallel's,
// or under --xargs, xargs's).
func lackingTextOf(name string, short bool, whose string) string {
	dash := "--"
	if short {
		dash = "-"
	}
	advice, ok := lacking[name]
	if !ok && !short && name != "" {
		var full []string
		for k := range lacking {
			if len(k) > 1 && strings.HasPrefix(k, name) {
				full = append(full, k)
			}
		}
		slices.Sort(full) // the shortest first, of names that begin each other
		for _, k := range full {
			if !strings.HasPrefix(k, full[0]) {
				return ""
			}
		}
		if len(full) == 0 {
			return ""
		}
		name, advice, ok = full[0], lacking[full[0]], true
	}
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s%s is %s, and fan does not have it: %s", dash, name, whose, advice)
}

// lackingFlagText is lackingText for a flag error of pflag's, or "" when
// it is not about an unknown option that GNU parallel or xargs has; xargs
// says that fan runs as xargs (--xargs). A name that begins one of the
// flags of f as well is ambiguous: it is left to the generic message.
func lackingFlagText(err error, xargs bool, f *pflag.FlagSet) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return ""
	}
	ours := false
	f.VisitAll(func(fl *pflag.Flag) { ours = ours || strings.HasPrefix(fl.Name, ne.GetSpecifiedName()) })
	if ours && ne.GetSpecifiedShortnames() == "" {
		return ""
	}
	whose := "GNU parallel's"
	if xargs {
		whose = "xargs's or GNU parallel's"
	}
	return lackingTextOf(ne.GetSpecifiedName(), ne.GetSpecifiedShortnames() != "", whose)
}

// elsewhereBegins reports whether name, which begins fan's flag match and
// no other, also begins a long option of GNU parallel's or xargs's that
// fan lacks (in lacking), so that it is as ambiguous for fan as it is for
// them.
func elsewhereBegins(name, match string) bool {
	for k := range lacking {
		if len(k) > 1 && k != match && strings.HasPrefix(k, name) {
			return true
		}
	}
	return false
}
