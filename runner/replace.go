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
	allArgs what = iota // {} and -I STR: every argument of the job
	posArg              // {n}: argument or column n; {-n}: the n'th from the last
	jobSeq              // {#}
	jobSlot             // {%}
)

// token is one parsed replacement string.
type token struct {
	what what
	n    int // for posArg: 1-based from the first, or -1 for the last, -2 ...
	mod  modifier
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

// parseParts splits a template into literal text and replacement strings.
// replace is the string that stands for every argument ({} or -I's).
func parseParts(s, replace string) []part {
	var parts []part
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
			if t, n := parseBrace(s[i:], replace); n > 0 {
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
	return parts
}

// parseBrace parses the replacement string at the start of s ("{#}", "{3/.}",
// "{-1}", ...) and returns it with its length, or a length of 0 when s does
// not start with one. A bare "{}" counts only when it is the replace string.
func parseBrace(s, replace string) (*token, int) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return nil, 0
	}
	body := s[1:end]
	switch body {
	case "#":
		return &token{what: jobSeq}, end + 1
	case "%":
		return &token{what: jobSlot}, end + 1
	}
	neg := strings.HasPrefix(body, "-")
	if neg {
		body = body[1:]
	}
	digits := 0
	for digits < len(body) && '0' <= body[digits] && body[digits] <= '9' {
		digits++
	}
	mod, ok := modifiers[body[digits:]]
	if !ok || (digits == 0 && (neg || mod == modNone)) {
		return nil, 0
	}
	if digits == 0 {
		return &token{what: allArgs, mod: mod}, end + 1
	}
	n, err := strconv.Atoi(body[:digits])
	if err != nil || n == 0 {
		return nil, 0 // {0} and {-0} are literal text
	}
	if neg {
		n = -n
	}
	return &token{what: posArg, n: n, mod: mod}, end + 1
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
func (t *token) values(item *input.Item, slot int) []string {
	if t.what == allArgs && t.mod == modNone {
		return item.Args
	}
	return t.appendValues(nil, item, slot)
}

// appendValues appends what t stands for in a job to dst: values without a
// slice of its own, for the renderer's hot path.
func (t *token) appendValues(dst []string, item *input.Item, slot int) []string {
	switch t.what {
	case jobSeq:
		return append(dst, strconv.FormatInt(item.Seq, 10))
	case jobSlot:
		return append(dst, strconv.Itoa(slot))
	case posArg:
		a, ok := t.arg(item.Args)
		if !ok {
			// No such argument or column: nothing at all, not an empty
			// word, as in GNU parallel ({2} of a last -n 2 job with one
			// item, {3} of a record with two columns).
			return dst
		}
		return append(dst, apply(t.mod, a))
	}
	if t.mod == modNone {
		return append(dst, item.Args...)
	}
	for _, a := range item.Args {
		dst = append(dst, apply(t.mod, a))
	}
	return dst
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
func renderParts(b []byte, w []part, item *input.Item, slot, i int, quote bool) []byte {
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
			if quote {
				b = p.tok.q.append(b, v, j == 0)
			} else {
				b = append(b, v...)
			}
		}
	}
	return b
}
