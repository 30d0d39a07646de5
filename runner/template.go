package runner

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fan-run/fan/input"
)

// TemplateOptions describe a command template.
type TemplateOptions struct {
	// Syntax is which replacement strings the template knows, as the
	// other texts of a run (--tagstring ...) know them.
	Syntax
	// Words are the command words; they are joined with single spaces. No
	// words means each item is itself a command line.
	Words []string
	// Shell runs jobs that need a shell; "" means /bin/sh.
	Shell string
	// Argv is xargs's way (--xargs): each word is one argument as given,
	// never a shell command line; only Replace, when set, is replaced in
	// them (and then the arguments are not appended).
	Argv bool
	// Context is GNU parallel's -X: a word that holds {} besides other
	// text is repeated for each argument.
	Context bool
	// Quote is GNU parallel's -q: each word of the command stays one word
	// as given, shell characters and all; replacement strings in it still
	// work. A command that is a shell's -c (sh -c SCRIPT ..., also bash,
	// dash, zsh, ksh) is always taken so.
	Quote bool
	// InDir says that jobs run in a directory of their own (--workdir):
	// they always take the shell path, so that the shell finds their
	// program there, as under GNU parallel's "cd DIR; command".
	InDir bool
	// NoAppend: a template without a replacement string is run as it is,
	// with no argument appended (pipe mode, where jobs read their input
	// on stdin, as in GNU parallel).
	NoAppend bool
	// Block says that a job's arguments are the name of its block's file
	// (--cat, --fifo). A dry run then writes the strings that stand for
	// them as GNU parallel does, $PARALLEL_TMP, the variable that names
	// the file in the job, for no file exists.
	Block bool
	// Functions are the shell functions exported to the jobs (bash's
	// export -f): a template whose program is one runs through the shell,
	// as one whose program is a builtin does.
	Functions map[string]bool
}

// Template is a command template parsed once and rendered per job. It is
// safe for concurrent use.
type Template struct {
	shell string
	raw   bool     // no command: the item is the command line, unquoted
	parts []part   // the whole template, rendered into a shell command line
	words [][]part // the template split into argv words; nil when a shell is needed
	path  string   // the program of words[0], resolved once
	twin  bool     // the program is also a shell builtin (echo, true, false)
	look  error    // why the program could not be resolved
	bad   error    // why the template cannot be used at all (Err)
	split [][]part // the template's words, as the shell parser splits them
	// strict: some replacement string stands where a value can be
	// refused (in arithmetic, a comment, a here-document).
	strict bool

	argvMode   bool     // --xargs: words are argv, never a shell line
	appendArgs bool     // --xargs without -I: the last word is the arguments
	context    bool     // -X: repeat a word holding {} for each argument
	lwords     [][]part // the template's words for rendering a line with -X
}

// Err reports a template that cannot be used: one that puts a replacement
// string where no quoting keeps its values data, or that the shell parser
// cannot read (then no value has a known place).
func (t *Template) Err() error { return t.bad }

// shellChars are the characters that make a template need a shell when they
// appear in its literal text (replacement values are quoted, never parsed).
const shellChars = "|&;<>()$`\\\"'*?[]#~{}!\n"

// isShellWord reports whether w is a reserved word or builtin of sh, dash
// or bash: a template whose program is one of these runs through the
// shell. A switch rather than a set: it costs nothing at start-up.
func isShellWord(w string) bool {
	switch w {
	case "!", "{", "}", "[[", "]]", "case", "do", "done", "elif", "else",
		"esac", "fi", "for", "function", "if", "in", "select", "then", "time",
		"until", "while", "coproc", ".", ":", "[", "alias", "bg", "bind",
		"break", "builtin", "caller", "cd", "command", "compgen", "complete",
		"continue", "declare", "dirs", "disown", "echo", "enable", "eval",
		"exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help",
		"history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
		"printf", "pushd", "pwd", "read", "readarray", "readonly", "return",
		"set", "shift", "shopt", "source", "suspend", "test", "times", "trap",
		"true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait":
		return true
	}
	return false
}

// isTwin reports whether w is a builtin whose external program behaves the
// same as long as no argument starts with '-' or holds a backslash.
func isTwin(w string) bool { return w == "echo" || w == "true" || w == "false" }

// NewTemplate parses a command template. When the template holds no shell
// syntax and its program is not a shell builtin, jobs exec the program
// directly; its path is looked up once, here. The shell parser reads it
// once, here too (place).
func NewTemplate(o TemplateOptions) *Template {
	t := &Template{shell: o.Shell, context: o.Context}
	if t.shell == "" {
		t.shell = "/bin/sh"
	}
	if o.Argv {
		return t.parseArgv(o.Words, o.Replace)
	}
	sx := o.Syntax
	sx.Replace = sx.replaceOf()
	if len(o.Words) == 0 {
		t.raw = true
		t.parts = []part{{tok: &token{what: allArgs}}}
		return t
	}
	words := o.Words
	if o.Quote || runsScript(o.Words) {
		words = make([]string, len(o.Words))
		for i, w := range o.Words {
			words[i] = quoteWord(w, sx)
		}
	}
	line := strings.Join(words, " ")
	var bad error
	t.parts, bad = parseParts(line, sx)
	if !hasToken(t.parts) && !o.NoAppend {
		t.parts = append(t.parts, part{lit: " "}, part{tok: &token{what: allArgs}})
	}
	if o.Block && sx.DryRun {
		blockVar(t.parts, o.Quote)
	}
	t.split = t.place()
	if bad != nil && t.bad == nil {
		t.bad = bad
	}
	if i := strings.Index(line, "{="); i >= 0 && strings.Contains(line[i+2:], "=}") {
		// Left alone, it would run as text, with the item appended.
		t.bad = errors.New("{= ... =} is GNU parallel's Perl expression, which fan does not run (use the shell: $(printf %s {} | sed ...))")
	}
	if t.context {
		t.lwords = t.split
	}
	prog := t.split[0]
	if len(prog) != 1 || prog[0].tok != nil || strings.ContainsRune(prog[0].lit, '=') {
		return t // program from a replacement string, or an assignment
	}
	for _, p := range t.parts {
		if p.tok == nil && strings.ContainsAny(p.lit, shellChars) || p.tok != nil && p.tok.what == hostText {
			return t
		}
	}
	name := prog[0].lit
	if o.InDir || !strings.Contains(name, "/") && o.Functions[name] {
		return t
	}
	if !strings.Contains(name, "/") && isShellWord(name) {
		if !isTwin(name) {
			return t
		}
		t.twin = true
	}
	t.words = t.split
	t.path, t.look = lookPath(name)
	return t
}

// blockVar turns the replacement strings in parts that stand for a job's
// arguments into the text $PARALLEL_TMP, written as it is (quoted with -q,
// as GNU parallel writes it then): what a dry run of --cat or --fifo shows
// for the name of a block's file.
func blockVar(parts []part, quote bool) {
	text := "$PARALLEL_TMP"
	if quote {
		text = "'$PARALLEL_TMP'"
	}
	for _, p := range parts {
		if p.tok != nil && (p.tok.what == allArgs || p.tok.what == posArg) && p.tok.skips == nil {
			*p.tok = token{what: hostText, text: text, q: p.tok.q, raw: p.tok.raw}
		}
	}
}

// quoteWord quotes a command word for the shell as -q wants it: its text
// stays one word as given, and its replacement strings stay outside the
// quotes, so that {} still gives one word per argument.
func quoteWord(w string, sx Syntax) string {
	var b []byte
	parts, _ := parseParts(w, sx) // the line is parsed again, errors and all
	for _, p := range parts {
		if p.tok != nil {
			b = append(b, p.tok.raw...)
		} else {
			b = appendQuote(b, p.lit)
		}
	}
	if len(b) == 0 {
		return "''"
	}
	return string(b)
}

// defaultPath is where sh looks for programs when PATH is unset (dash's
// default), so that a job finds the same program on both paths.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// lookPath resolves a program the way a shell does, and turns a failure into
// the error and exit status a shell would give.
func lookPath(name string) (string, error) {
	if _, set := os.LookupEnv("PATH"); !set && !strings.Contains(name, "/") {
		for _, dir := range filepath.SplitList(defaultPath) {
			if path, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
				return path, nil
			}
		}
	}
	path, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrDot) {
		return filepath.Join(".", path), nil
	}
	if err == nil {
		return path, nil
	}
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR) || onPathNotExecutable(name) {
		return "", &StartError{Name: name, Status: 126, Reason: "permission denied"}
	}
	return "", &StartError{Name: name, Status: 127, Reason: "command not found"}
}

// onPathNotExecutable reports whether a file name is on PATH but cannot
// be run: a shell then says "permission denied" (126), not "not found".
func onPathNotExecutable(name string) bool {
	if strings.Contains(name, "/") {
		return false
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Render builds the command of one job, which runs in slot: its number
// is {%}, and its host {host} and {sshlogin} (--plus).
func (t *Template) Render(item *input.Item, slot Slot) Command {
	if t.words != nil {
		argv := t.argv(item, &slot)
		if !t.twin || plainArgs(argv[1:]) {
			return Command{Path: t.path, Args: argv, Err: t.look}
		}
	}
	if t.strict {
		if err := t.refusal(item, &slot); err != nil {
			// What --dry-run shows of it fails, and says why.
			line := "false # fan: " + strings.ReplaceAll(err.Error(), "\n", " ")
			return Command{Path: t.shell, Args: []string{t.shell, "-c", line}, line: line, Err: err}
		}
	}
	line := string(t.line(item, &slot))
	return Command{Path: t.shell, Args: []string{t.shell, "-c", line}, line: line}
}

// argv renders the template's words. A replacement string with several
// values ({} with -n 2) spreads over several words, as the quoted values
// would in a shell.
func (t *Template) argv(item *input.Item, slot *Slot) []string {
	argv := make([]string, 0, len(t.words)+len(item.Args))
	var buf [128]byte // a word assembled from parts; string() copies it out
	cur := buf[:0]
	for _, w := range t.words {
		if len(w) == 1 {
			if w[0].tok == nil {
				argv = append(argv, w[0].lit)
			} else {
				argv = w[0].tok.appendValues(argv, item, slot)
			}
			continue
		}
		if t.context && hasAllArgs(w) {
			argv = appendContext(argv, w, item, slot)
			continue
		}
		cur = cur[:0]
		for _, p := range w {
			if p.tok == nil {
				cur = append(cur, p.lit...)
				continue
			}
			for j, v := range p.tok.values(item, slot) {
				if j > 0 {
					argv = append(argv, string(cur))
					cur = cur[:0]
				}
				cur = append(cur, v...)
			}
		}
		argv = append(argv, string(cur))
	}
	return argv
}

// line renders the template as a shell command line, quoting every value.
func (t *Template) line(item *input.Item, slot *Slot) []byte {
	if t.lwords != nil {
		return t.contextLine(item, slot)
	}
	return renderParts(make([]byte, 0, 64), t.parts, item, slot, -1, !t.raw)
}

// plainArgs reports whether a builtin twin behaves the same as its external
// program with these arguments.
func plainArgs(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.IndexByte(a, '\\') >= 0 {
			return false
		}
	}
	return true
}
