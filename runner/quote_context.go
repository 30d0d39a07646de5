package runner

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/fan-run/fan/input"
)

// Where a replacement string stands in the template decides how its values
// are quoted: a value quoted for a bare word and dropped inside "..." would
// have its $(...) run; inside '...' a quote in it would end the
// template's. The shell parser (shellparse.go) finds the place; place turns
// it into a quoting, and quoting.append writes each value so that the
// shell reads it back byte for byte and never as code. Where no quoting
// can promise that for every value, the template is refused when it is
// built (placeError); where it depends on the value, the job is
// (quoting.refusal).

// quoteCtx is the shell's reading of the text a value lands in.
type quoteCtx uint8

const (
	ctxBare          quoteCtx = iota // a word: plain values bare, others in '...'
	ctxQuoted                        // a pattern (case, [[ == ]], ${v#...}): always in '...'
	ctxSingle                        // inside '...'
	ctxDouble                        // inside "..."
	ctxParamDouble                   // a word of ${v:-...} inside "...": as in "...", and } too
	ctxPatternDouble                 // a pattern of ${v#...} inside "...": all punctuation escaped
	ctxHeredoc                       // a here-document's body, its delimiter unquoted
	ctxLiteral                       // a here-document's body, its delimiter quoted: no quoting at all
	ctxComment                       // a comment: nothing is read, but a newline would end it
	ctxArith                         // arithmetic, which evaluates names and subscripts: plain words only
)

// quoting is how the values of one replacement string are written.
type quoting struct {
	ctx quoteCtx
	// escaped: an unpaired backslash stands right before the replacement
	// string. A newline goes before its first value, so that the pair is a
	// line continuation, which the shell removes, rather than an escape of
	// the value's first byte (which could end its quoting).
	escaped bool
	// lines are the here-documents the values land in, whose end a line
	// of a value must not fake.
	lines []hereLine
	// inner, when set, is how the values are quoted first, for a shell
	// that reads the template's text again (the script of sh -c, eval).
	inner *quoting
}

// The reasons a template is refused (placeError.why).
const (
	whyBackquote = "stands inside `...`, which cannot be quoted safely (write $(...) instead)"
	whyDollar    = "stands inside $'...' or $\"...\", which shells read differently (use '...' or \"...\")"
	whyName      = "stands where the shell reads a name, not a value (after a $, write ${name} or \"$name\" apart from it; a function or loop variable cannot come from an item)"
	whyDelimiter = "is a here-document's delimiter, which cannot come from an item"
)

// place works out the quoting of the placeholder at s from the nodes that
// hold it, from the file down to the leaf (a Lit, SglQuoted or Comment).
// It returns why no quoting is safe there instead, when none is.
func place(stack []syntax.Node, src string, s span, prefix string) (*quoting, string) {
	q := &quoting{ctx: ctxBare}
	dq := false // inside "..." since the last command substitution
	for i := 0; i+1 < len(stack); i++ {
		child := stack[i+1]
		switch n := stack[i].(type) {
		case *syntax.CmdSubst:
			if n.Backquotes {
				return nil, whyBackquote
			}
			q.ctx, dq = ctxBare, false
		case *syntax.ProcSubst:
			q.ctx, dq = ctxBare, false
		case *syntax.DblQuoted:
			if n.Dollar {
				return nil, whyDollar
			}
			if q.ctx == ctxParamDouble || q.ctx == ctxPatternDouble {
				// bash would brace-expand a value there ("${v:-"{a,b}"}")
				return nil, "stands in \"...\" inside \"${...}\", which bash reads differently from other shells (leave out the inner quotes: fan quotes the value there)"
			}
			if q.ctx != ctxArith {
				q.ctx = ctxDouble
			}
			dq = true
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			q.ctx = ctxArith
		case *syntax.ParamExp:
			if why := q.paramPart(n, child, dq); why != "" {
				return nil, why
			}
		case *syntax.Redirect:
			switch {
			case n.Hdoc != nil && child == syntax.Node(n.Hdoc):
				h, why := newHereLine(n, src, s, prefix)
				if why != "" {
					return nil, why
				}
				q.lines = append(q.lines, h)
				q.ctx, dq = ctxHeredoc, false
				if h.quoted {
					q.ctx = ctxLiteral
				}
			case child == syntax.Node(n.Word) && (n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc):
				return nil, whyDelimiter
			case n.N != nil && child == syntax.Node(n.N):
				return nil, whyName
			}
		case *syntax.CaseItem:
			if _, pattern := child.(*syntax.Word); pattern && q.ctx != ctxArith {
				q.ctx = ctxQuoted
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				q.ctx = ctxArith // bash evaluates both sides, subscripts and all
			case syntax.TsMatchShort, syntax.TsMatch, syntax.TsNoMatch, syntax.TsReMatch:
				if child == syntax.Node(n.Y) && q.ctx != ctxArith {
					q.ctx = ctxQuoted
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				q.ctx = ctxArith // a name whose subscript bash evaluates
			}
		case *syntax.Assign:
			if n.Index != nil && child == syntax.Node(n.Index) {
				q.ctx = ctxArith
			}
		case *syntax.ArrayElem:
			if n.Index != nil && child == syntax.Node(n.Index) {
				q.ctx = ctxArith
			}
		case *syntax.FuncDecl, *syntax.WordIter, *syntax.CoprocClause:
			if _, name := child.(*syntax.Lit); name {
				return nil, whyName
			}
		case *syntax.File, *syntax.Stmt, *syntax.CallExpr, *syntax.Word, *syntax.Subshell, *syntax.Block,
			*syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.BinaryCmd, *syntax.CaseClause,
			*syntax.TestClause, *syntax.DeclClause, *syntax.ArrayExpr, *syntax.TimeClause,
			*syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm, *syntax.ParenTest:
		default:
			return nil, fmt.Sprintf("stands in shell syntax fan does not quote for (%s; move it into a plain word or quotes)", strings.TrimPrefix(fmt.Sprintf("%T", n), "*syntax."))
		}
	}
	switch leaf := stack[len(stack)-1].(type) {
	case *syntax.Comment:
		q.ctx = ctxComment
	case *syntax.SglQuoted:
		if leaf.Dollar {
			return nil, whyDollar
		}
		switch q.ctx {
		case ctxBare, ctxQuoted:
			q.ctx = ctxSingle
		case ctxArith:
		default:
			return nil, "stands inside '...' inside \"${...}\", where shells disagree on whether those quotes quote (leave them out)"
		}
	case *syntax.Lit:
		if q.ctx == ctxBare && s.to < len(src) && (src[s.to] == '<' || src[s.to] == '>') {
			q.ctx = ctxQuoted // a value of digits there would be a file descriptor
		}
		if q.ctx != ctxLiteral {
			n := 0
			for j := s.from - 1; j >= int(leaf.Pos().Offset()) && src[j] == '\\'; j-- {
				n++
			}
			q.escaped = n%2 == 1
		}
	}
	return q, ""
}

// paramPart sets q for a value in a part of the parameter expansion n
// (child): a word, a pattern, a subscript. It returns why no quoting is
// safe there, when none is.
func (q *quoting) paramPart(n *syntax.ParamExp, child syntax.Node, dq bool) string {
	switch {
	case n.Param != nil && child == syntax.Node(n.Param), n.NestedParam != nil && child == syntax.Node(n.NestedParam),
		n.Flags != nil && child == syntax.Node(n.Flags):
		return whyName
	case n.Index != nil && child == syntax.Node(n.Index),
		n.Slice != nil && (n.Slice.Offset != nil && child == syntax.Node(n.Slice.Offset) || n.Slice.Length != nil && child == syntax.Node(n.Slice.Length)):
		q.ctx = ctxArith
		return ""
	}
	switch {
	case q.ctx == ctxArith:
		return "" // its values must be plain words, which need no quoting
	case q.ctx == ctxHeredoc:
		return "stands in a ${...} inside a here-document, where shells disagree on quotes (set a variable before the here-document and use that)"
	case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps:
		return whyName
	case n.Repl != nil && n.Repl.With != nil && child == syntax.Node(n.Repl.With) && dq:
		return "stands in the replacement of \"${v/.../...}\", which bash versions quote differently (leave that ${...} outside double quotes)"
	}
	pattern := n.Exp != nil && n.Exp.Op >= syntax.RemSmallSuffix || n.Repl != nil && child == syntax.Node(n.Repl.Orig)
	switch {
	case dq && pattern: // ${v#...}, ${v%...}, ${v^...}, ${v/.../}
		q.ctx = ctxPatternDouble
	case dq: // ${v:-...}
		q.ctx = ctxParamDouble
	case pattern:
		q.ctx = ctxQuoted
	default:
		q.ctx = ctxBare // also the replacement of ${v/.../...}
	}
	return ""
}

// append appends v quoted for q; first says it is the replacement
// string's first value (the one an escape's newline goes before).
func (q *quoting) append(b []byte, v string, first bool) []byte {
	if q.inner != nil {
		v = string(q.inner.append(nil, v, first))
	}
	if first && q.escaped {
		b = append(b, '\n')
	}
	switch q.ctx {
	case ctxQuoted:
		return appendQuoted(b, v)
	case ctxSingle:
		return appendEscaped(b, v, "'", `'\'`) // end the quote, a quoted quote, reopen
	case ctxDouble:
		return appendEscaped(b, v, "$`\"\\", `\`)
	case ctxParamDouble, ctxPatternDouble:
		return appendParamDouble(b, v, q.ctx == ctxPatternDouble)
	case ctxHeredoc:
		return appendEscaped(b, v, "$`\\", `\`)
	case ctxLiteral, ctxComment:
		return append(b, v...)
	}
	return appendQuote(b, v) // ctxBare; ctxArith, whose values refusal has found plain
}

// appendParamDouble appends v as a word of a parameter expansion inside
// "...". A ' would pair with another for bash's parser, so it goes in a
// "..." of its own (which also keeps it from bash's brace expansion);
// $ ` " \ } are escaped, as are, in a pattern, all other ASCII punctuation:
// there \c matches c, and a value's leading # % / ~ ^ , must neither join
// the operator (a value %x after ${v% would make ${v%%x}) nor expand (~).
func appendParamDouble(b []byte, v string, pattern bool) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\'':
			b = append(b, `"'"`...)
			continue
		case strings.IndexByte("$`\"\\}", c) >= 0,
			pattern && c > ' ' && c < 0x7f && !isAlnum(c):
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return b
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// appendEscaped appends s with esc before each byte of special.
func appendEscaped(b []byte, s, special, esc string) []byte {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(special, s[i]) >= 0 {
			b = append(b, esc...)
		}
		b = append(b, s[i])
	}
	return b
}

// quotedLen is the length of v as append writes it, with the newline of
// an escape.
func (q *quoting) quotedLen(v string) int {
	if q.ctx == ctxBare && q.inner == nil && !q.escaped {
		return quotedLen(v)
	}
	return len(q.append(nil, v, true))
}

// strict reports whether some value could be refused (refusal).
func (q *quoting) strict() bool {
	return q.ctx == ctxArith || q.ctx == ctxComment || len(q.lines) > 0 || q.inner != nil && q.inner.strict()
}

// refusal returns why v cannot be written where q stands, or "": a value
// in arithmetic that is not a plain word, a newline in a comment, a line
// that would end a here-document. alone says v is the only value of its
// replacement string in the job (with several, the text around each one is
// not known).
func (q *quoting) refusal(v string, alone bool) string {
	if q.inner != nil {
		if why := q.inner.refusal(v, alone); why != "" {
			return why
		}
		v = string(q.inner.append(nil, v, false))
	}
	switch {
	case q.ctx == ctxArith && !isPlain(v):
		return "stands in arithmetic, where only a plain word (letters, digits and _ - . / , : @ + %) is data, and this value is not one"
	case q.ctx == ctxComment && strings.IndexByte(v, '\n') >= 0:
		return "stands in a comment, which the newline in this value would end (move it out of the comment)"
	}
	if len(q.lines) == 0 {
		return ""
	}
	r := string((&quoting{ctx: q.ctx}).append(nil, v, false))
	for _, h := range q.lines {
		if h.fakedBy(r, alone) {
			return fmt.Sprintf("would end its here-document early: this value makes a line that can read %q, the delimiter (pick a delimiter no item holds)", h.delim)
		}
	}
	return ""
}

// refusal returns why one of the job's values cannot be written where its
// replacement string stands (quoting.refusal), as the job's start error.
func (t *Template) refusal(item *input.Item, slot *Slot) error {
	for _, p := range t.parts {
		// A dry run's ${PARALLEL_SSHHOST} is written as shell text,
		// unquoted, whatever its context (renderParts): no value to check.
		if p.tok == nil || !p.tok.q.strict() || p.tok.what == hostText {
			continue
		}
		vals := p.tok.values(item, slot)
		for _, v := range vals {
			if why := p.tok.q.refusal(v, len(vals) == 1); why != "" {
				return &StartError{Name: "job " + strconv.FormatInt(item.Seq, 10), Status: 126, Reason: tokenName(p.tok) + " " + why}
			}
		}
	}
	return nil
}

// tokenName is how messages name a replacement string.
func tokenName(t *token) string {
	if t.raw == "" {
		return "the item (appended, as the command has no {})"
	}
	return t.raw
}

// quotedLenIn is the length of s as a value of tok in a shell line, with
// the newline of an escape.
func quotedLenIn(s string, tok *token) int { return tok.q.quotedLen(s) }
