package runner

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
)

// GNU parallel's --plus replacement strings. Each is a transformation of
// one value (the item, or with a leading number the argument or column
// n, as {2..} or {1:-none}), or a number of the run ({##} and the
// zero-padded {0#} and {0%}). The bash-like forms take Perl regular
// expressions in GNU parallel; fan reads them as Go's (RE2), which agree on
// everything but backreferences and lookaround.

// plusFixed are the forms of --plus that take no text of their own.
var plusFixed = map[string]func(string) string{
	"+/":   dirOrNothing,
	"+.":   func(v string) string { return extensions(v, 1) },
	"+..":  func(v string) string { return extensions(v, 2) },
	"+...": func(v string) string { return extensions(v, 3) },
	"..":   func(v string) string { return trimExts(v, 2) },
	"...":  func(v string) string { return trimExts(v, 3) },
	"/..":  func(v string) string { return trimExts(basename(v), 2) },
	"/...": func(v string) string { return trimExts(basename(v), 3) },
}

// dirOrNothing is {+/}: v up to its last slash, or "" when it has none.
func dirOrNothing(v string) string {
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return ""
	}
	return v[:i]
}

// extensionRun matches n extensions at the end of a path's last element.
func extensionRun(n int) string {
	return `\.(` + strings.TrimSuffix(strings.Repeat(`[^/.]*\.`, n), `\.`) + `)$`
}

// extRuns are extensionRun(1..3), compiled when first used: most runs use
// none, and every regular expression compiled at start-up delays every run.
var extRuns = sync.OnceValue(func() [4]*regexp.Regexp {
	return [4]*regexp.Regexp{nil, regexp.MustCompile(extensionRun(1)), regexp.MustCompile(extensionRun(2)), regexp.MustCompile(extensionRun(3))}
})

// extensions returns the last n extensions of v without their first dot
// ({+..} of a.b.c is b.c), or "" when v has fewer.
func extensions(v string, n int) string {
	if n == 1 {
		// GNU parallel's {+.} is everything after the last dot, slashes
		// and all.
		i := strings.LastIndexByte(v, '.')
		if i < 0 {
			return ""
		}
		return v[i+1:]
	}
	if m := extRuns()[n].FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return ""
}

// trimExts removes the last n extensions of v ({..} of a.b.c is a), and
// nothing when it has fewer.
func trimExts(v string, n int) string {
	if loc := extRuns()[n].FindStringIndex(v); loc != nil {
		return v[:loc[0]]
	}
	return v
}

// plusRegexp compiles a --plus form's regular expression, telling which
// replacement string it came from when it does not compile.
func plusRegexp(expr, raw string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		why := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			why = se.Code.String()
		}
		return nil, fmt.Errorf("%s is not a regular expression fan can read: %s (fan reads Go's RE2 syntax)", raw, why)
	}
	return re, nil
}

// plusPattern parses the bash-like forms of --plus ({:-str}, {:n},
// {:n:m}, {#re}, {##re}, {%re}, {%%re}, {/re/str}, {/#re/str},
// {/%re/str}, {//re/str}, {^re}, {^^re}, {,re}, {,,re}) from body, the
// text between the braces after any position. ok is false when body is
// none of them.
func plusPattern(body, raw string) (fn func(string) string, ok bool, err error) {
	if def, found := strings.CutPrefix(body, ":-"); found && def != "" {
		// Perl's ||=: an empty value and "0" are both false.
		return func(v string) string {
			if v == "" || v == "0" {
				return def
			}
			return v
		}, true, nil
	}
	if rest, found := strings.CutPrefix(body, ":"); found {
		return substring(rest)
	}
	type form struct {
		prefix string
		build  func(re string) (func(string) string, error)
	}
	edit := func(expr string, f func(re *regexp.Regexp, v string) string) func(string) (func(string) string, error) {
		return func(re string) (func(string) string, error) {
			r, err := plusRegexp(strings.ReplaceAll(expr, "RE", re), raw)
			if err != nil {
				return nil, err
			}
			return func(v string) string { return f(r, v) }, nil
		}
	}
	caseOf := func(expr string, all bool, to func(string) string) func(string) (func(string) string, error) {
		return edit(expr, func(r *regexp.Regexp, v string) string {
			if all {
				return r.ReplaceAllStringFunc(v, to)
			}
			return spliceFirst(r, v, to)
		})
	}
	// The longer prefix first: {##re} is not {#re} of #re.
	forms := []form{
		{"##", edit(`^(?:RE)`, func(r *regexp.Regexp, v string) string { return spliceFirst(r, v, nothing) })},
		{"#", func(re string) (func(string) string, error) {
			return edit(`^(?:`+ungreedy(re)+`)`, func(r *regexp.Regexp, v string) string { return spliceFirst(r, v, nothing) })(re)
		}},
		{"%%", edit(`(?:RE)$`, func(r *regexp.Regexp, v string) string { return spliceFirst(r, v, nothing) })},
		{"%", func(re string) (func(string) string, error) {
			return edit(`^(.*)(?:`+ungreedy(re)+`)$`, func(r *regexp.Regexp, v string) string {
				if m := r.FindStringSubmatchIndex(v); m != nil {
					return v[:m[3]]
				}
				return v
			})(re)
		}},
		{"^^", caseOf(`RE`, true, strings.ToUpper)},
		{"^", caseOf(`^(?:RE)`, false, strings.ToUpper)},
		{",,", caseOf(`RE`, true, strings.ToLower)},
		{",", caseOf(`^(?:RE)`, false, strings.ToLower)},
	}
	if fn, ok, err := plusSubstitute(body, raw); ok {
		return fn, ok, err
	}
	for _, f := range forms {
		re, found := strings.CutPrefix(body, f.prefix)
		if !found || re == "" || f.prefix == "#" && re[0] == '#' {
			continue
		}
		fn, err := f.build(re)
		return fn, true, err
	}
	return nil, false, nil
}

// plusSubstitute parses {/re/str} (the first match), {//re/str} (every
// one), {/#re/str} (at the start) and {/%re/str} (at the end).
func plusSubstitute(body, raw string) (func(string) string, bool, error) {
	rest, found := strings.CutPrefix(body, "/")
	if !found {
		return nil, false, nil
	}
	expr, all := `RE`, false
	switch {
	case strings.HasPrefix(rest, "/"):
		rest, all = rest[1:], true
	case strings.HasPrefix(rest, "#"):
		rest, expr = rest[1:], `^(?:RE)`
	case strings.HasPrefix(rest, "%"):
		rest, expr = rest[1:], `(?:RE)$`
	}
	re, with, found := strings.Cut(rest, "/")
	if !found || re == "" {
		return nil, false, nil
	}
	r, err := plusRegexp(strings.ReplaceAll(expr, "RE", re), raw)
	if err != nil {
		return nil, true, err
	}
	if all {
		return func(v string) string { return r.ReplaceAllLiteralString(v, with) }, true, nil
	}
	return func(v string) string { return spliceFirst(r, v, func(string) string { return with }) }, true, nil
}

func nothing(string) string { return "" }

// spliceFirst replaces the first match of r in v with what to makes of it.
func spliceFirst(r *regexp.Regexp, v string, to func(string) string) string {
	loc := r.FindStringIndex(v)
	if loc == nil {
		return v
	}
	return v[:loc[0]] + to(v[loc[0]:loc[1]]) + v[loc[1]:]
}

// substring parses the n or n:m of {:n} (the value from byte n on) and
// {:n:m} (m bytes from byte n), as bash's ${v:n} and ${v:n:m}.
func substring(spec string) (func(string) string, bool, error) {
	from, count, two := strings.Cut(spec, ":")
	n, err := strconv.Atoi(from)
	if err != nil || n < 0 || from[0] == '+' {
		return nil, false, nil
	}
	m := -1
	if two {
		if m, err = strconv.Atoi(count); err != nil || m < 0 || count[0] == '+' {
			return nil, false, nil
		}
	}
	return func(v string) string {
		if n > len(v) {
			return ""
		}
		v = v[n:]
		if m >= 0 && m < len(v) {
			v = v[:m]
		}
		return v
	}, true, nil
}

// ungreedy makes every quantifier of a regular expression lazy, as GNU
// parallel does for {#re} and {%re} (the shortest match, as bash's ${v#p}).
func ungreedy(re string) string {
	var b strings.Builder
	class, escaped, found := false, false, false
	for _, c := range re {
		if found {
			if c != '?' {
				b.WriteByte('?')
			}
			found = false
		}
		b.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '[':
			class = true
		case class:
			class = c != ']'
		case c == '*' || c == '+' || c == '}':
			found = true
		}
	}
	if found {
		b.WriteByte('?')
	}
	return b.String()
}

// notIncreasing is {choose_k}'s test: the job runs only when its arguments
// are in strictly increasing order (byte-wise), so that of the product of
// a list with itself k times each k-subset runs once.
func notIncreasing(args []string) bool {
	for i := 1; i < len(args); i++ {
		if args[i-1] >= args[i] {
			return true
		}
	}
	return false
}

// repeats is {uniq}'s test: the job runs only when no two of its
// arguments are equal.
func repeats(args []string) bool {
	seen := make(map[string]bool, len(args))
	for _, a := range args {
		if seen[a] {
			return true
		}
		seen[a] = true
	}
	return false
}

// Skips reports whether the job with these arguments is not to run at
// all: the template holds --plus's {choose_k} or {uniq} and the
// arguments fail its test. The job's number is used up all the same, as
// in GNU parallel.
func (t *Template) Skips(args []string) bool {
	for _, p := range t.parts {
		if p.tok != nil && p.tok.skips != nil && p.tok.skips(args) {
			return true
		}
	}
	return false
}

// Filters reports whether Skips may skip a job.
func (t *Template) Filters() bool {
	for _, p := range t.parts {
		if p.tok != nil && p.tok.skips != nil {
			return true
		}
	}
	return false
}
