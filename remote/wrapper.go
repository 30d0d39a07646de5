package remote

import (
	"strings"
)

// job is what the wrapper needs to run one job on its host.
type job struct {
	nonce string
	env   []string // NAME=value, NAME a shell variable name
	funcs []string // BASH_FUNC_name%%=() {...}: bash functions (--env name)
	dir   string   // the directory to run in (made if missing); "" is the home
	temp  string   // run in this fresh directory under ~/.parallel/tmp (--workdir ...)
	keep  bool     // keep temp when the job ends (files are to come back from it)
	shell string   // the shell that runs line: sh, bash, ...
	line  string   // the job's command line
	stdin bool     // the job reads ssh's stdin (pipe mode); else /dev/null
}

// script is the POSIX sh program that runs j on its host. It
//
//   - keeps ssh's stdin as fd 3 and gives the job /dev/null (or, in pipe
//     mode, ssh's stdin);
//   - starts the job in a process group of its own (setsid, or perl's
//     setpgrp where setsid is missing), with the job's variables and
//     bash functions (which env passes, as sh cannot name them), in its
//     directory: a fresh one under ~/.parallel/tmp for --workdir ...,
//     removed when the job has ended;
//   - in argument mode, watches ssh's stdin, the job's lifeline: fan never
//     writes to it, so its end means that fan, or the connection, is gone,
//     and the job's group is terminated (TERM, then KILL after a second);
//   - has the job's own process say on stderr that it started and in
//     which group, before it runs the command (so nothing the job writes
//     comes before that line);
//   - waits for the job, kills what is left in its group (sleep 1000 &),
//     says on stderr how the job ended, and exits with its status.
//
// Once the job and the watcher are started it ignores SIGPIPE, so that the
// sweep still happens when the connection is gone.
func (j *job) script() string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	w(`exec 3<&0 </dev/null`)
	w(`if command -v setsid >/dev/null 2>&1; then set -- setsid`)
	w(`elif command -v perl >/dev/null 2>&1; then set -- perl -e 'setpgrp(0,0); exec {$ARGV[0]} @ARGV; print STDERR "$ARGV[0]: $!\n"; exit 127' --`)
	w(`else echo 'fan: this host has neither setsid nor perl, one of which fan needs to run jobs in a process group of their own' >&2; exit 255; fi`)
	for _, kv := range j.env {
		name, value, _ := strings.Cut(kv, "=")
		w(`export `, name, `=`, quote(value))
	}
	// The start line, with the group of the process that prints it; none
	// (0) where the wrapper prints it for a job that could not start.
	start := `printf '\037%s P %d\n' ` + j.nonce + ` "$$" >&2`
	noStart := `printf '\037%s P 0\n' ` + j.nonce + ` >&2`
	if j.dir != "" {
		d := quote(j.dir)
		// Its failure is the job's: reported after the start line, with
		// mkdir's or cd's own message.
		w(`if ! { mkdir -p -- `, d, ` && cd -- `, d, `; } 2>/dev/null; then `, noStart,
			`; mkdir -p -- `, d, ` && cd -- `, d, `; printf '\037%s E 1\n' `, j.nonce, ` >&2; exit 1; fi`)
	}
	if j.temp != "" {
		w(`if ! { `, tempDir(j.temp), `; } 2>/dev/null; then `, noStart,
			`; echo "fan: cannot make a temporary directory in $HOME/.parallel/tmp" >&2; printf '\037%s E 1\n' `, j.nonce, ` >&2; exit 1; fi`)
	}
	// Exported bash functions go in through env, as arguments, after the
	// sh below: a shell drops variables whose names are no identifiers
	// (BASH_FUNC_name%%) from the environment it passes on.
	funcs := ""
	if len(j.funcs) > 0 {
		f := make([]string, len(j.funcs))
		for i, kv := range j.funcs {
			f[i] = quote(kv)
		}
		funcs = `env ` + strings.Join(f, " ") + ` `
	}
	in := `0<&3`
	if !j.stdin {
		in = `0</dev/null`
	}
	// The job's own process says that it started, before it runs the
	// command: a command that writes to stderr at once (a shell's "not
	// found") would otherwise race the wrapper's start line and be taken
	// for what came before it. $$ is the job's process group: setsid,
	// perl and env exec, and so does this sh.
	w(`"$@" sh -c `, quote(start+`; exec "$@"`), ` sh `, funcs, quote(j.shell), ` -c `, quote(j.line), ` `, in, ` 3<&- &`)
	w(`p=$!`)
	if !j.stdin {
		w(`{ while read -r l; do :; done; kill -s TERM -- -$p; kill -s CONT -- -$p; sleep 1; kill -s KILL -- -$p; } <&3 >/dev/null 2>&1 &`)
		w(`w=$!`)
	}
	w(`exec 3<&-`)
	w(`trap '' PIPE`)
	w(`wait "$p" 2>/dev/null; s=$?`) // dash says "Segmentation fault": not the job's words
	w(`kill -s KILL -- -"$p" 2>/dev/null`)
	if j.temp != "" && !j.keep {
		w(`cd / && rm -rf -- "$d"`)
	}
	if !j.stdin {
		w(`kill -s KILL "$w" 2>/dev/null`)
	}
	w(`printf '\037%s E %d\n' `, j.nonce, ` "$s" >&2`)
	w(`exit "$s"`)
	return b.String()
}

// tempDir is the sh line that makes the temporary directory name (a job's
// fresh --workdir ...: GNU parallel's place for them), sets d to it and
// goes there.
func tempDir(name string) string {
	return `d="$HOME/.parallel/tmp/"` + quote(name) + ` && mkdir -p -- "$d" && cd -- "$d"`
}
