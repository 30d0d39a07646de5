package runner

import (
	"strconv"
	"strings"

	"github.com/fan-run/fan/input"
)

// modifier is what a replacement string does to its value: {.} {/} {//} {/.}.
type modifier uint8

const (
	modNone    modifier = iota
	modExt              // {.}  without extension
	modBase             // {/}  basename
	modDir              // {//} dirname
	modBaseExt          // {/.} basename without extension
)

// what a replacement string stands for.
type what uint8

const (
	allArgs    what = iota // {} and -I STR: every argument of the job
	posArg                 // {n}: argument or column n; {-n}: the n'th from the last
	jobSeq                 // {#}
	jobSlot                // {%}
	jobTotal               // {##} (--plus): the number of jobs
	seqPadded              // {0#} (--plus): {#} padded with zeros to the width of {##}
	slotPadded             // {0%} (--plus): {%} padded with zeros to the width of -j
	jobHost                // {host} (--plus): the host the job runs on
	jobLogin               // {sshlogin} (--plus): the login the job runs through
	noValue                // {hgrp} and {agrp} (--plus): fan has no host groups
	hostText               // {host} {sshlogin} {hgrp} {agrp} in a dry run: shell text, written as it is
)

// token is one parsed replacement string.
type token struct {
	what what
	n    int // for posArg: 1-based from the first, or -1 for the last, -2 ...
	mod  modifier
	// fn, when set, is the --plus transformation of the value, after mod.
	fn func(string) string
	// counts gives jobTotal, seqPadded and slotPadded their numbers.
	counts *Counts
	// skips, when set, tells from a job's arguments that the job is not
	// to run at all ({choose_k}, {uniq} of --plus).
	skips func(args []string) bool
	// text is a hostText token's text.
	text string
	// q is how a shell line quotes the token's values (place); nil where
	// no shell reads them.
	q   *quoting
	raw string // the replacement string as written
}

// part is a piece of a template: literal text, or a token when tok is set.
type part struct {
	lit string
	tok *token
}

var modifiers = map[string]modifier{"": modNone, ".": modExt, "/": modBase, "//": modDir, "/.": modBaseExt}

// Syntax is which replacement strings a template or text knows.
type Syntax struct {
	// Replace stands for every argument of a job; "" means "{}" (-I).
	Replace string
	// Plus adds GNU parallel's --plus replacement strings.
	Plus bool
	// Names are the columns that --header named: {name} is {n}, and so
	// are {name.} {name/} {name//} {name/.}.
	Names map[string]int
	// Counts gives {##}, {0#} and {0%} their numbers; it may be shared by
	// several templates and texts. Nil is none: those strings are then
	// literal text.
	Counts *Counts
	// DryRun: the jobs are only shown, and run on no host. {host},
	// {sshlogin}, {hgrp} and {agrp} (--plus) are then what GNU parallel
	// writes for them, ${PARALLEL_SSHHOST} and so on, which the shell
	// expands when the line is run (by fan or GNU parallel, which set
	// the first two).
	DryRun bool
}

// Counts are the numbers of a run that --plus's {##}, {0#} and {0%} stand
// for. Set them before any job is rendered; they are read concurrently
// after that.
type Counts struct {
	// Total returns the number of jobs, all of the input read ({##}).
	Total func() int64
	// Jobs is the number of job slots (-j; 0 for no limit).
	Jobs int
	// used: a replacement string needs Total.
	used bool
}

// NeedsTotal reports whether a replacement string parsed with these Counts
// stands for the number of jobs, which must then be counted (the whole
// input read) before the first job starts, as GNU parallel does.
func (c *Counts) NeedsTotal() bool { return c != nil && c.used }

func (c *Counts) total() int64 {
	if c.Total == nil {
		return 0
	}
	return c.Total()
}

// replaceOf is the string for every argument of sx: {} unless -I gave one.
func (sx Syntax) replaceOf() string {
	if sx.Replace == "" {
		return "{}"
	}
	return sx.Replace
}

// parseParts splits a template into literal text and replacement strings.
// sx.Replace is the string that stands for every argument ({} or -I's).
// A --plus replacement string that cannot be used (a bad regular
// expression) is returned as the error, with the parts.
func parseParts(s string, sx Syntax) ([]part, error) {
	replace := sx.Replace
	var parts []part
	var bad error
	lit := 0
	emit := func(i, n int, t *token) {
		if i > lit {
			parts = append(parts, part{lit: s[lit:i]})
		}
		t.raw = s[i : i+n]
		parts = append(parts, part{tok: t})
		lit = i + n
	}
	for i := 0; i < len(s); {
		if replace != "" && strings.HasPrefix(s[i:], replace) {
			emit(i, len(replace), &token{what: allArgs})
			i = lit
			continue
		}
		if s[i] == '{' {
			t, n, err := parseBrace(s[i:], sx)
			if err != nil && bad == nil {
				bad = err
			}
			if n > 0 {
				emit(i, n, t)
				i = lit
				continue
			}
		}
		i++
	}
	if lit < len(s) {
		parts = append(parts, part{lit: s[lit:]})
	}
	return parts, bad
}

// parseBrace parses the replacement string at the start of s ("{#}", "{3/.}",
// "{-1}", ...) and returns it with its length, or a length of 0 when s does
// not start with one. A bare "{}" counts only when it is the replace string.
// The error is a --plus string that looks like one but cannot be used.
func parseBrace(s string, sx Syntax) (*token, int, error) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return nil, 0, nil
	}
	body := s[1:end]
	switch body {
	case "#":
		return &token{what: jobSeq}, end + 1, nil
	case "%":
		return &token{what: jobSlot}, end + 1, nil
	}
	if t := named(body, sx.Names); t != nil {
		return t, end + 1, nil
	}
	if sx.Plus {
		if t := plusCount(body, sx); t != nil {
			return t, end + 1, nil
		}
	}
	neg := strings.HasPrefix(body, "-")
	if neg {
		body = body[1:]
	}
	digits := 0
	for digits < len(body) && '0' <= body[digits] && body[digits] <= '9' {
		digits++
	}
	t := &token{what: allArgs}
	if digits > 0 {
		n, err := strconv.Atoi(body[:digits])
		if err != nil || n == 0 {
			return nil, 0, nil // {0} and {-0} are literal text
		}
		if neg {
			n = -n
		}
		t.what, t.n = posArg, n
	} else if neg {
		return nil, 0, nil
	}
	rest := body[digits:]
	if mod, ok := modifiers[rest]; ok && (digits > 0 || mod != modNone) {
		t.mod = mod
		return t, end + 1, nil
	}
	if !sx.Plus {
		return nil, 0, nil
	}
	if fn, ok := plusFixed[rest]; ok {
		t.fn = fn
		return t, end + 1, nil
	}
	fn, ok, err := plusPattern(rest, s[:end+1])
	if !ok {
		return nil, 0, nil
	}
	t.fn = fn
	return t, end + 1, err
}

// named parses {name} and its modified forms for a column named by
// --header, or returns nil.
func named(body string, names map[string]int) *token {
	if len(names) == 0 {
		return nil
	}
	for _, suffix := range []string{"", ".", "/", "//", "/."} {
		name, ok := strings.CutSuffix(body, suffix)
		if n, known := names[name]; ok && known {
			return &token{what: posArg, n: n, mod: modifiers[suffix]}
		}
	}
	return nil
}

// plusCount parses --plus's strings of the run rather than of a value
// ({##}, {0#}, {0%}, {slot}, {host}, {sshlogin} ...), or returns nil.
func plusCount(body string, sx Syntax) *token {
	c := sx.Counts
	switch body {
	case "slot":
		return &token{what: jobSlot}
	case "host", "sshlogin", "hgrp", "agrp":
		h := hostStrings[body]
		if sx.DryRun {
			return &token{what: hostText, text: h.gnu}
		}
		return &token{what: h.what}
	case "choose_k":
		return &token{what: allArgs, skips: notIncreasing}
	case "uniq":
		return &token{what: allArgs, skips: repeats}
	case "##", "0#", "0%":
		if c == nil {
			return nil
		}
		w := map[string]what{"##": jobTotal, "0#": seqPadded, "0%": slotPadded}[body]
		c.used = c.used || w != slotPadded
		return &token{what: w, counts: c}
	}
	return nil
}

// hostStrings are --plus's strings of where a job runs: what each stands
// for, and the variable GNU parallel writes for it, unquoted, for its
// jobs' shell to expand (fan's dry run writes it too). {hgrp} and {agrp}
// are the host groups of the job's host and of its arguments: GNU
// parallel gives nothing for them without --hostgroups, which fan lacks.
var hostStrings = map[string]struct {
	what what
	gnu  string
}{
	"host":     {jobHost, "${PARALLEL_SSHHOST}"},
	"sshlogin": {jobLogin, "${PARALLEL_SSHLOGIN}"},
	"hgrp":     {noValue, "${PARALLEL_HOSTGROUPS}"},
	"agrp":     {noValue, "${PARALLEL_ARGHOSTGROUPS}"},
}

// hasToken reports whether any part is a replacement string.
func hasToken(parts []part) bool {
	for _, p := range parts {
		if p.tok != nil {
			return true
		}
	}
	return false
}

// values returns what t stands for in a job: one value, or one per argument
// for {} and its modified forms.
func (t *token) values(item *input.Item, slot *Slot) []string {
	if t.what == allArgs && t.mod == modNone && t.fn == nil {
		return item.Args
	}
	return t.appendValues(nil, item, slot)
}

// appendValues appends what t stands for in a job to dst: values without a
// slice of its own, for the renderer's hot path.
func (t *token) appendValues(dst []string, item *input.Item, slot *Slot) []string {
	switch t.what {
	case jobSeq:
		return append(dst, strconv.FormatInt(item.Seq, 10))
	case jobSlot:
		return append(dst, strconv.Itoa(slot.N))
	case jobTotal:
		return append(dst, strconv.FormatInt(t.counts.total(), 10))
	case seqPadded:
		return append(dst, padded(item.Seq, t.counts.total()))
	case slotPadded:
		return append(dst, padded(int64(slot.N), int64(t.counts.Jobs)))
	case jobHost:
		return append(dst, slot.addr())
	case jobLogin:
		return append(dst, slot.Login())
	case noValue:
		return dst
	case hostText:
		return append(dst, t.text)
	case posArg:
		a, ok := t.arg(item.Args)
		if !ok {
			// No such argument or column: nothing at all, not an empty
			// word, as in GNU parallel ({2} of a last -n 2 job with one
			// item, {3} of a record with two columns).
			return dst
		}
		return append(dst, t.apply(a))
	}
	if t.mod == modNone && t.fn == nil {
		return append(dst, item.Args...)
	}
	for _, a := range item.Args {
		dst = append(dst, t.apply(a))
	}
	return dst
}

// padded writes n with leading zeros to the width of most (at least 1
// digit), as GNU parallel's {0#} and {0%}.
func padded(n, most int64) string {
	width := len(strconv.FormatInt(max(most, 1), 10))
	s := strconv.FormatInt(n, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// apply computes the value t stands for from an argument: its modifier,
// then its --plus transformation.
func (t *token) apply(v string) string {
	v = apply(t.mod, v)
	if t.fn != nil {
		v = t.fn(v)
	}
	return v
}

// arg returns the argument a posArg token names, and false when the job
// has no such argument. {n} counts from the first, {-n} from the last. For
// {-n} beyond the first argument GNU parallel's Perl index goes negative
// and counts from the last once more: of two arguments, {-3} is the last
// and {-4} the first; only {-5} and beyond are nothing. fan does the same,
// so that the two run the same commands.
func (t *token) arg(args []string) (string, bool) {
	i := t.n - 1
	if t.n < 0 {
		i = len(args) + t.n
		if i < 0 {
			i += len(args)
		}
	}
	if i < 0 || i >= len(args) {
		return "", false
	}
	return args[i], true
}

// apply computes a modified value the way GNU parallel does.
func apply(m modifier, v string) string {
	switch m {
	case modExt:
		return trimExt(v)
	case modBase:
		return basename(v)
	case modDir:
		return dirname(v)
	case modBaseExt:
		return trimExt(basename(v))
	}
	return v
}

// basename removes everything up to the last slash ("a/b/" gives "").
func basename(v string) string {
	return v[strings.LastIndexByte(v, '/')+1:]
}

// trimExt removes the last extension of the last path element: ".x" after
// the last dot that follows the last slash ("a.tar.gz" gives "a.tar",
// ".bashrc" gives "").
func trimExt(v string) string {
	dot := strings.LastIndexByte(v, '.')
	if dot < 0 || strings.IndexByte(v[dot:], '/') >= 0 {
		return v
	}
	return v[:dot]
}

// dirname is POSIX dirname(1): trailing slashes are ignored, "a" gives ".",
// "/a" gives "/".
func dirname(v string) string {
	if v == "" {
		return "."
	}
	v = strings.TrimRight(v, "/")
	if v == "" {
		return "/"
	}
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return "."
	}
	v = strings.TrimRight(v[:i], "/")
	if v == "" {
		return "/"
	}
	return v
}

// renderParts appends parts rendered for a job to b: literal text as it
// is, each replacement string's values separated by spaces and, when quote
// is set, quoted for a shell. With i >= 0, {} stands for argument i alone
// (-X); with i < 0, for every argument.
func renderParts(b []byte, w []part, item *input.Item, slot *Slot, i int, quote bool) []byte {
	for _, p := range w {
		if p.tok == nil {
			b = append(b, p.lit...)
			continue
		}
		vals := p.tok.values(item, slot)
		if p.tok.what == allArgs && i >= 0 {
			vals = vals[i : i+1]
		}
		for j, v := range vals {
			if j > 0 {
				b = append(b, ' ')
			}
			if quote && p.tok.what != hostText {
				b = p.tok.q.append(b, v, j == 0)
			} else {
				b = append(b, v...)
			}
		}
	}
	return b
}
