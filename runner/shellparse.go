package runner

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A template is read once, when it is built, by a real shell parser
// (mvdan.cc/sh, with bash's grammar, which covers sh's and dash's). Each
// replacement string is first swapped for a placeholder word of letters
// and digits, which parses as plain text wherever it stands; the syntax
// tree then says where each one is (quote_context.go turns that into the
// quoting of its values) and where the template's words end (-X, sizes).
// Nothing else in fan decides what a shell word is.

// span is where a placeholder stands in the text given to the parser; a
// zero span is a placeholder that is not in it.
type span struct{ from, to int }

func (s span) in(n syntax.Node) bool {
	return s.to > 0 && int(n.Pos().Offset()) <= s.from && s.to <= int(n.End().Offset())
}

// shellText is a template's text as the parser reads it.
type shellText struct {
	src    string
	prefix string   // how every placeholder starts; the template's own text never holds it
	spans  []span   // spans[k]: where placeholder k stands in src
	names  []string // names[k]: the replacement string it stands for, as written
	// verbatim[k]: placeholder k stands for shell text written as it is,
	// never quoted (a dry run's ${PARALLEL_SSHHOST}): it has no value to
	// keep data, so any place takes it, as GNU parallel writes it there.
	verbatim []bool
}

// newShellText builds the parser's text of parts: the literal text as it
// is, each token as placeholder k (k counting tokens from 0). Tokens of
// the same verbatim text share the placeholder of the first, as the text
// is the same for the shell (a here-document's delimiter and its end).
func newShellText(parts []part) *shellText {
	st := &shellText{prefix: placeholderPrefix(parts)}
	var b strings.Builder
	var texts map[string]int
	for _, p := range parts {
		if p.tok == nil {
			b.WriteString(p.lit)
			continue
		}
		k, verbatim := len(st.spans), p.tok.what == hostText
		if verbatim {
			if first, ok := texts[p.tok.text]; ok {
				k = first
			} else if texts == nil {
				texts = map[string]int{p.tok.text: k}
			} else {
				texts[p.tok.text] = k
			}
		}
		from := b.Len()
		b.WriteString(st.placeholder(k))
		st.spans = append(st.spans, span{from, b.Len()})
		st.names = append(st.names, tokenName(p.tok))
		st.verbatim = append(st.verbatim, verbatim)
	}
	st.src = b.String()
	return st
}

func (st *shellText) placeholder(k int) string { return st.prefix + strconv.Itoa(k) + "Q" }

// placeholderPrefix returns a word start that the template's text does not
// hold, not even once quotes and backslashes are taken out of it (as they
// are from the script of sh -c before it is read again).
func placeholderPrefix(parts []part) string {
	var text strings.Builder
	for _, p := range parts {
		if p.tok == nil {
			text.WriteString(strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(p.lit))
		}
		text.WriteByte(' ')
	}
	prefix := "Zfan"
	for strings.Contains(text.String(), prefix) {
		prefix += "z"
	}
	return prefix
}

// find returns the spans of the placeholders in s, a text made from the
// template's (the script of a sh -c).
func (st *shellText) find(s string) []span {
	spans := make([]span, len(st.spans))
	for i := 0; ; {
		j := strings.Index(s[i:], st.prefix)
		if j < 0 {
			return spans
		}
		from := i + j
		i = from + len(st.prefix)
		d := i
		for d < len(s) && '0' <= s[d] && s[d] <= '9' {
			d++
		}
		k, err := strconv.Atoi(s[i:d])
		if err == nil && d < len(s) && s[d] == 'Q' && k < len(spans) {
			spans[k] = span{from, d + 1}
			i = d + 1
		}
	}
}

// placeError is a template whose replacement string cannot be quoted
// safely where it stands.
type placeError struct {
	name string // the replacement string, as written
	why  string
}

func (e *placeError) Error() string { return e.name + " " + e.why }

// parse reads src, which holds the placeholders at spans. It returns how
// the values of each placeholder are quoted and, for the template's own
// text, the bytes of src that are inside a word (blanks there do not
// separate words). The text of nodes is taken from src by their offsets,
// never from the parser's values, which see a letter for every byte that
// is not UTF-8 (validUTF8).
func (st *shellText) parse(spans []span, src string) ([]*quoting, []bool, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).
		Parse(strings.NewReader(validUTF8(src)), "")
	if err != nil {
		return nil, nil, st.refuse(spans, "cannot be placed: the shell parser stops at %s (check the command's quotes and brackets)", st.unplace(err.Error()))
	}
	qs := make([]*quoting, len(spans))
	inWord := make([]bool, len(src))
	var stack []syntax.Node
	var scripts [][]*syntax.Word
	var perr error
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *syntax.Word, *syntax.Comment:
			for i := int(n.Pos().Offset()); i < int(n.End().Offset()) && i < len(src); i++ {
				inWord[i] = true
			}
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if ws := scriptWords(n); ws != nil {
				scripts = append(scripts, ws)
			}
		case *syntax.Lit, *syntax.SglQuoted, *syntax.Comment:
			for k, s := range spans {
				if qs[k] != nil || !s.in(n) || !strings.Contains(leafText(n), src[s.from:s.to]) {
					continue
				}
				q, why := place(stack, src, s, st.prefix)
				if st.verbatim[k] {
					q, why = &quoting{}, ""
				}
				if why != "" && perr == nil {
					perr = &placeError{st.names[k], why}
				}
				qs[k] = q
			}
		}
		return true
	})
	if perr != nil {
		return nil, nil, perr
	}
	for k, s := range spans {
		if s.to > 0 && qs[k] == nil && st.verbatim[k] {
			qs[k] = &quoting{} // text where no leaf holds it: an end of a here-document
		}
		if s.to > 0 && qs[k] == nil {
			return nil, nil, &placeError{st.names[k], "stands where fan cannot tell how the shell reads it (move it into a plain word or quotes)"}
		}
	}
	for _, ws := range scripts {
		if err := st.parseScript(ws, spans, qs, src); err != nil {
			return nil, nil, err
		}
	}
	return qs, inWord, nil
}

// validUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by a letter, which the parser requires (a shell takes such a
// byte as a letter too), keeping every offset.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			b[i] = 'x'
		}
		i += n
	}
	return string(b)
}

// leafText is the text of a node that a placeholder can stand in.
func leafText(n syntax.Node) string {
	switch n := n.(type) {
	case *syntax.Lit:
		return n.Value
	case *syntax.SglQuoted:
		return n.Value
	case *syntax.Comment:
		return n.Text
	}
	return ""
}

// refuse is a placeError for the first placeholder of spans (the template
// as a whole is at fault).
func (st *shellText) refuse(spans []span, format string, args ...any) error {
	name := "{}"
	for k, s := range spans {
		if s.to > 0 {
			name = st.names[k]
			break
		}
	}
	return &placeError{name, fmt.Sprintf(format, args...)}
}

// unplace writes the placeholders in a parser's message back as the
// replacement strings they stand for, on one line.
func (st *shellText) unplace(msg string) string {
	for k := len(st.spans) - 1; k >= 0; k-- {
		msg = strings.ReplaceAll(msg, st.placeholder(k), st.names[k])
	}
	return strings.ReplaceAll(msg, "\n", `\n`)
}

// isShell reports whether word names, by its basename, a program whose -c
// script is shell text that fan quotes values for, as it does for its own
// shell.
func isShell(word string) bool {
	switch word[strings.LastIndexByte(word, '/')+1:] {
	case "sh", "bash", "dash", "zsh", "ksh":
		return true
	}
	return false
}

// runsScript reports whether the command words are a shell's -c with its
// script: they are kept whole, as -q keeps them (SPEC: "sh -c").
func runsScript(words []string) bool {
	return len(words) >= 3 && isShell(words[0]) && words[1] == "-c"
}

// scriptWords returns, for a command that hands text to a shell to read
// again, the words of that text: the script of "sh -c SCRIPT" (after a
// wrapper such as timeout or env, and other options of the shell), or
// the arguments of eval.
func scriptWords(c *syntax.CallExpr) []*syntax.Word {
	if len(c.Args) > 1 && c.Args[0].Lit() == "eval" {
		return c.Args[1:]
	}
	for k, w := range c.Args {
		if lit := w.Lit(); lit == "" || !isShell(lit) {
			continue
		}
		ws, script := c.Args[k+1:], false
		for len(ws) > 0 {
			o := ws[0].Lit()
			if len(o) < 2 || o[0] != '-' && o[0] != '+' {
				break
			}
			ws = ws[1:]
			if o == "--" {
				break
			}
			if strings.HasPrefix(o, "--") {
				continue
			}
			script = script || o[0] == '-' && strings.IndexByte(o, 'c') > 0
			if last := o[len(o)-1]; (last == 'o' || last == 'O') && len(ws) > 0 {
				ws = ws[1:] // -o pipefail
			}
		}
		if script && len(ws) > 0 {
			return ws[:1]
		}
		return nil
	}
	return nil
}

// parseScript places the placeholders that stand in text a shell of the
// template reads again (ws, the script of a sh -c or the arguments of an
// eval): their values are quoted for that script first (qs[k].inner), then
// for where the script's text stands in the template. A script that is
// one replacement string and nothing else is the item itself.
func (st *shellText) parseScript(ws []*syntax.Word, spans []span, qs []*quoting, src string) error {
	var held []int // the placeholders of values in the script
	for k, s := range spans {
		for _, w := range ws {
			if s.in(w) && !st.verbatim[k] {
				held = append(held, k)
			}
		}
	}
	if len(held) == 0 {
		return nil
	}
	texts := make([]string, len(ws))
	for i, w := range ws {
		t, ok := unquoteWord(w, src, false)
		if !ok {
			return &placeError{st.names[held[0]], "stands in the script of a sh -c or eval that is not plain quoted text, so fan cannot tell how that shell reads it (pass it as an argument instead: sh -c '... \"$1\" ...' _ " + st.names[held[0]] + ")"}
		}
		texts[i] = t
	}
	script := strings.Join(texts, " ")
	if len(held) == 1 && script == st.placeholder(held[0]) {
		// The whole script is the item (sh -c {}, eval {}, or sh -c with
		// the item appended): it runs as a script, as under xargs and GNU
		// parallel, and as items do when there is no command.
		return nil
	}
	inner, _, err := st.parse(st.find(script), script)
	if err != nil {
		if pe, ok := err.(*placeError); ok {
			pe.why += " (in the script of a sh -c or eval)"
		}
		return err
	}
	for _, k := range held {
		if inner[k] == nil {
			return &placeError{st.names[k], "stands in the script of a sh -c or eval where fan cannot find it again (pass it as an argument instead)"}
		}
		qs[k].inner = inner[k]
	}
	return nil
}

// unquoteWord returns the text a word stands for when it holds no
// expansion: its quotes and backslashes removed. For the script of a sh -c,
// pathname and brace expansion must not apply either (glob false); a
// here-document's delimiter takes an expansion's text as it is (glob true).
func unquoteWord(w *syntax.Word, src string, delim bool) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !delim && strings.ContainsAny(p.Value, "*?[{~") {
				return "", false
			}
			unescape(&b, src[p.Pos().Offset():p.End().Offset()], "")
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(src[p.Left.Offset()+1 : p.Right.Offset()])
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					if !delim {
						return "", false
					}
					b.WriteString(src[q.Pos().Offset():q.End().Offset()])
					continue
				}
				unescape(&b, src[lit.Pos().Offset():lit.End().Offset()], "$`\"\\\n")
			}
		default:
			if !delim {
				return "", false
			}
			b.WriteString(src[p.Pos().Offset():p.End().Offset()])
		}
	}
	return b.String(), true
}

// unescape writes s without the backslashes that escape the next byte:
// every one when only is "" (outside quotes), else those before a byte of
// only (inside double quotes). An escaped newline is removed with its
// backslash, as a line continuation.
func unescape(b *strings.Builder, s, only string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (only == "" || strings.IndexByte(only, s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
}

// place reads the template's parts with the shell parser once: it sets on
// every token how its values are quoted, or t.bad when one cannot be
// placed, and returns the template's words.
func (t *Template) place() [][]part {
	st := newShellText(t.parts)
	qs, inWord, err := st.parse(st.spans, st.src)
	t.bad = err
	k := 0
	for _, p := range t.parts {
		if p.tok == nil {
			continue
		}
		p.tok.q = &quoting{} // a template with an error is never run
		if err == nil {
			p.tok.q = qs[k]
			t.strict = t.strict || qs[k].strict()
		}
		k++
	}
	return st.splitWords(t.parts, inWord)
}

// splitWords splits parts into the template's words at the blanks that
// stand outside every word the parser found (inWord): `'a {}'` is one
// word, which -X repeats whole. Without inWord (a template the parser
// could not read), every blank splits.
func (st *shellText) splitWords(parts []part, inWord []bool) [][]part {
	var words [][]part
	var cur []part
	at, k := 0, 0
	for _, p := range parts {
		if p.tok != nil {
			cur = append(cur, p)
			at = st.spans[k].to
			k++
			continue
		}
		from := 0
		for i := 0; i < len(p.lit); i++ {
			if c := p.lit[i]; c != ' ' && c != '\t' || inWord != nil && inWord[at+i] {
				continue
			}
			if i > from {
				cur = append(cur, part{lit: p.lit[from:i]})
			}
			if len(cur) > 0 {
				words = append(words, cur)
				cur = nil
			}
			from = i + 1
		}
		if from < len(p.lit) {
			cur = append(cur, part{lit: p.lit[from:]})
		}
		at += len(p.lit)
	}
	if len(cur) > 0 {
		words = append(words, cur)
	}
	return words
}
