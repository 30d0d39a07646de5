package runner

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A here-document ends at the first line of its body that reads as its
// delimiter, before anything in the body is expanded: a value with the
// right line in it would end the body early, and the rest of the body
// would run as commands. No escape can hide such a line from every shell
// (in a body with a quoted delimiter there is no escape at all), so a job
// whose value would make one is refused instead.

// hereLine is the line of a here-document's body a replacement string
// stands in.
type hereLine struct {
	delim  string // the delimiter, as the shell compares lines with it
	tabs   bool   // <<-: leading tabs are stripped from each line first
	quoted bool   // the delimiter is quoted: the body is read as it is
	// pre and post are the template's text on the line before and after
	// the replacement string; preOpen and postOpen say that more may join
	// them (another value, an escaped newline, an escape before the value).
	pre, post         string
	preOpen, postOpen bool
}

// newHereLine reads the here-document r for the placeholder at s in its
// body.
func newHereLine(r *syntax.Redirect, src string, s span, prefix string) (hereLine, string) {
	h := hereLine{tabs: r.Op == syntax.DashHdoc}
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			h.quoted = true
		case *syntax.Lit:
			h.quoted = h.quoted || strings.IndexByte(p.Value, '\\') >= 0
		}
	}
	delim, ok := unquoteWord(r.Word, src, true)
	if !ok {
		return h, "stands in a here-document whose delimiter fan cannot read (write it plainly: <<EOF or <<'EOF')"
	}
	h.delim = delim
	start := strings.LastIndexByte(src[:s.from], '\n') + 1
	end := strings.IndexByte(src[s.to:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += s.to
	}
	h.pre, h.post = src[start:s.from], src[s.to:end]
	h.preOpen = strings.Contains(h.pre, prefix) || endsEscaped(src[:s.from])
	h.postOpen = strings.Contains(h.post, prefix)
	if !h.quoted {
		// A line continuation joins lines before some shells compare.
		h.preOpen = h.preOpen || start > 0 && endsEscaped(src[:start-1])
		h.postOpen = h.postOpen || endsEscaped(h.post)
	}
	return h, ""
}

// endsEscaped reports whether s ends with an unpaired backslash.
func endsEscaped(s string) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// fakedBy reports whether r, a value as written into the body, could make
// a line that reads as the delimiter. alone says the text around r on its
// line is h's; otherwise any text may join it there.
func (h *hereLine) fakedBy(r string, alone bool) bool {
	segs := strings.Split(r, "\n")
	for k, line := range segs {
		first, last := k == 0, k == len(segs)-1
		leftOpen := first && (h.preOpen || !alone)
		rightOpen := last && (h.postOpen || !alone)
		if first && !leftOpen {
			line = h.pre + line
		}
		if last && !rightOpen {
			line += h.post
		}
		if h.tabs {
			line = strings.TrimLeft(line, "\t")
		}
		var hit bool
		switch {
		case leftOpen && rightOpen:
			hit = strings.Contains(h.delim, line)
		case leftOpen:
			hit = strings.HasSuffix(h.delim, line)
		case rightOpen:
			hit = strings.HasPrefix(h.delim, line)
		default:
			hit = line == h.delim
		}
		if hit {
			return true
		}
	}
	return false
}
