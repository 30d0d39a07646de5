package runner

import (
	"errors"
	"strings"
)

// Where a replacement string stands in the shell quoting of the template's
// own text. fan quotes every value for the place it lands in, so that an
// item stays data even where the template puts {} inside quotes: a value
// quoted for a bare word and dropped inside "..." would have its $(...)
// run, and inside '...' a quote in it would end the user's.

// quoteCtx is the quoting the template's text opens around a token.
type quoteCtx uint8

const (
	unquoted    quoteCtx = iota // a bare word (also inside $(...), even within "...")
	inSingle                    // inside '...'
	inDouble                    // inside "..."
	inBackquote                 // inside `...`, where backslashes are undone before parsing
)

// errBackquote is a template with a replacement string inside `...`:
// fan has no quoting for it that keeps every value data.
var errBackquote = errors.New("a replacement string inside `...` cannot be quoted safely (write $(...) instead)")

// quoteFrame is one level of nested quoting while the template is scanned.
type quoteFrame struct {
	ctx    quoteCtx
	closer byte // what ends the frame: '\'', '"', ')' for $(...), '`'; 0 at the top
	depth  int  // parentheses open inside a $(...) frame
}

// markQuotes records on each token of parts the quoting it stands in, and
// whether an unpaired backslash right before it would escape its first
// character. It follows '...', "...", backslashes, $(...) and `...`. It is
// not a shell parser: in a template with what it does not follow (a
// comment or a here-document, whose quotes are text, or a case pattern,
// whose ')' is not a $(...)'s), it places nothing and every value is
// quoted as a bare word, as before it. A token inside `...` is
// errBackquote.
func markQuotes(parts []part) error {
	if beyondScan(parts) {
		return nil
	}
	sc := newShellScan()
	for _, p := range parts {
		if p.tok == nil {
			sc.text(p.lit, nil)
			continue
		}
		top := sc.stack[len(sc.stack)-1]
		p.tok.ctx, p.tok.escaped = top.ctx, sc.escaped
		sc.passToken()
	}
	return sc.err
}

// shellScan follows the quoting of a template's text as markQuotes needs
// it, and tells where a word ends (splitWords).
type shellScan struct {
	stack   []quoteFrame
	escaped bool  // the next byte is escaped by a backslash
	err     error // errBackquote, once a token stood inside `...`
}

func newShellScan() *shellScan { return &shellScan{stack: []quoteFrame{{ctx: unquoted}}} }

// passToken moves over a replacement string: its value is data, which
// changes no quoting, and ends a backslash's escape.
func (sc *shellScan) passToken() {
	sc.escaped = false
	for _, f := range sc.stack {
		if f.ctx == inBackquote {
			sc.err = errBackquote
		}
	}
}

// atBlank reports whether a blank here separates words: it stands outside
// every quote, substitution and escape.
func (sc *shellScan) atBlank(c byte) bool {
	return (c == ' ' || c == '\t') && len(sc.stack) == 1 && !sc.escaped
}

// text moves over literal text. blank, when set, is called with the index
// of every blank that separates words.
func (sc *shellScan) text(s string, blank func(i int)) {
	for i := 0; i < len(s); i++ {
		if blank != nil && sc.atBlank(s[i]) {
			blank(i)
			continue
		}
		if sc.escaped {
			sc.escaped = false
			continue
		}
		top := &sc.stack[len(sc.stack)-1]
		c := s[i]
		if top.ctx == inSingle {
			if c == '\'' {
				sc.stack = sc.stack[:len(sc.stack)-1]
			}
			continue
		}
		switch {
		case c == '\\':
			sc.escaped = true
		case c == top.closer && (c != ')' || top.depth == 0):
			sc.stack = sc.stack[:len(sc.stack)-1]
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			sc.stack = append(sc.stack, quoteFrame{ctx: unquoted, closer: ')'})
			i++
		case c == '`':
			sc.stack = append(sc.stack, quoteFrame{ctx: inBackquote, closer: '`'})
		case top.ctx == inDouble:
		case c == '\'':
			sc.stack = append(sc.stack, quoteFrame{ctx: inSingle, closer: '\''})
		case c == '"':
			sc.stack = append(sc.stack, quoteFrame{ctx: inDouble, closer: '"'})
		case c == '(' && top.closer == ')':
			top.depth++
		case c == ')' && top.closer == ')':
			top.depth--
		}
	}
}

// beyondScan reports whether the template's text holds what markQuotes
// does not follow: '#' (a comment may start there), "<<" (a
// here-document) or the word "case".
func beyondScan(parts []part) bool {
	for _, p := range parts {
		if p.tok != nil {
			continue
		}
		if strings.Contains(p.lit, "#") || strings.Contains(p.lit, "<<") {
			return true
		}
		for _, w := range strings.FieldsFunc(p.lit, func(r rune) bool { return !isWordRune(r) }) {
			if w == "case" {
				return true
			}
		}
	}
	return false
}

func isWordRune(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// appendUnescape appends, for a token after an unpaired backslash, a
// newline: the pair becomes a line continuation, which the shell removes,
// rather than escaping the first character of the value (which could end
// its quoting). It goes before the first value only.
func appendUnescape(b []byte, tok *token) []byte {
	if tok.escaped {
		b = append(b, '\n')
	}
	return b
}

// appendQuoteIn appends s to b quoted for where tok stands (see markQuotes).
func appendQuoteIn(b []byte, s string, tok *token) []byte {
	switch tok.ctx {
	case inSingle:
		for i := 0; i < len(s); i++ {
			if s[i] == '\'' {
				b = append(b, `'\''`...) // end the quote, a quoted quote, reopen
			} else {
				b = append(b, s[i])
			}
		}
		return b
	case inDouble:
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '$', '`', '"', '\\':
				b = append(b, '\\')
			}
			b = append(b, s[i])
		}
		return b
	}
	return appendQuote(b, s)
}

// quotedLenIn is the length of s as appendQuoteIn writes it, with the
// newline of appendUnescape when it applies.
func quotedLenIn(s string, tok *token) int {
	n := len(appendUnescape(nil, tok))
	if tok.ctx == unquoted {
		return n + quotedLen(s)
	}
	return n + len(appendQuoteIn(nil, s, tok))
}
