package runner

import (
	"strings"

	"github.com/fan-run/fan/input"
)

// Size tells how a job's command grows with its arguments, for packing
// (--xargs, -X, -m): base is the size of the command with no argument, and
// cost is what one more argument adds (first: it is the job's first). Under
// Argv sizes count as xargs does (each argument's length plus one); else
// as GNU parallel does, the length of the shell command line plus one.
// Values of {n}, {#}, {%}, {host} and {sshlogin} are counted generously
// (in a word with {}, which -X repeats, {host} and {sshlogin}), so a
// command is never larger than its size says. A dry run's {host} and
// {sshlogin} are the text it writes, ${PARALLEL_SSHHOST}: counted as GNU
// parallel counts them, once more for each argument after the first.
func (t *Template) Size() (base int, cost func(arg string, first bool) int) {
	if t.argvMode {
		return t.argvSize()
	}
	if t.raw {
		return 1, func(a string, first bool) int { return len(a) + sep(first, 1) }
	}
	words := t.split
	var sites [][]part // where each argument lands: a context word, or {}
	var all []*token   // {} and its modified forms outside context words
	var pos []*token   // {n}: it may be any argument
	again := 0         // what each argument after the first adds (hostAgain)
	for _, w := range words {
		if t.context && hasAllArgs(w) {
			sites = append(sites, w)
			continue
		}
		again += t.hostAgain(w)
		for _, p := range w {
			switch {
			case p.tok == nil:
			case p.tok.what == allArgs:
				all = append(all, p.tok)
			case p.tok.what == posArg:
				pos = append(pos, p.tok)
			case p.tok.what == jobHost || p.tok.what == jobLogin:
				base += hostRoom
			case p.tok.what == hostText: // its text: in the line and again
			default:
				base += 20 // {#} and {%}: room for any number
			}
		}
	}
	none := input.Item{}
	base += len(t.line(&none, &Slot{})) + 1
	for _, w := range sites {
		// A job without arguments (-n 0) has each context word once; the
		// cost below counts it per argument instead.
		base -= len(renderParts(nil, w, &none, &Slot{}, -1, true))
	}
	k := len(sites) + len(all)
	return base, func(a string, first bool) int {
		c := sep(first, k)
		if len(sites) > 0 { // an item made only where there are context words
			// A context word repeats per argument its {host} and
			// {sshlogin} too: they are counted at their largest. ({#}
			// and {%} count one digit there, as GNU parallel packs.)
			one := input.Item{Args: []string{a}}
			for _, w := range sites {
				c += len(renderParts(nil, w, &one, &roomySlot, 0, true))
			}
		}
		for _, t := range all {
			c += quotedLenIn(t.apply(a), t)
		}
		for _, t := range pos {
			c += quotedLenIn(t.apply(a), t) + 1
		}
		if !first {
			c += again
		}
		return c
	}
}

// hostAgain is what the word w, not a context word, adds to a dry run's
// command for each argument after the first, as GNU parallel counts its
// size: {host} and the like (${PARALLEL_SSHHOST} there) are expressions
// of the argument to it, each counted per argument with a blank, though
// the line holds them once. Under -X it counts, instead, each run of
// text between blanks that holds them, and a blank, per argument.
func (t *Template) hostAgain(w []part) int {
	n := 0
	run, held := 0, false // the text since the last blank; it holds one
	end := func() {
		if held && t.context {
			n += run + 1
		}
		run, held = 0, false
	}
	for _, p := range w {
		switch {
		case p.tok == nil:
			for i := 0; i < len(p.lit); i++ {
				if c := p.lit[i]; c == ' ' || c == '\t' || c == '\n' {
					end()
				} else {
					run++
				}
			}
		case p.tok.what == hostText:
			run, held = run+len(p.tok.text), true
			if !t.context {
				n += len(p.tok.text) + 1
			}
		}
	}
	end()
	return n
}

// hostRoom is the room Size leaves for a {host} or {sshlogin}: the host
// is chosen when the job starts, after its arguments were packed, and may
// change as --sshloginfile does. A DNS name is at most 253 bytes; a login
// with a user, port and ssh command of its own longer than this, with -X
// or -m, may make a job's command too long.
const hostRoom = 512

// roomySlot stands for any slot where its host and login are counted at
// their largest, hostRoom bytes.
var roomySlot = Slot{Host: strings.Repeat("h", hostRoom), Addr: strings.Repeat("h", hostRoom)}

// argvSize is Size under Argv: each word and each argument counts its
// length plus one (its NUL), as in xargs.
func (t *Template) argvSize() (int, func(string, bool) int) {
	words := t.words
	if t.appendArgs {
		words = words[:len(words)-1]
	}
	base, k := 0, 0
	for _, w := range words {
		base++
		for _, p := range w {
			if p.tok == nil {
				base += len(p.lit)
			} else {
				k++
			}
		}
	}
	if t.appendArgs {
		return base, func(a string, _ bool) int { return len(a) + 1 }
	}
	return base, func(a string, _ bool) int { return k * len(a) }
}

// sep is the blank before an argument: none for the first at each site.
func sep(first bool, k int) int {
	if first {
		return 0
	}
	return k
}

// quotedLen is the length of a value as a shell word.
func quotedLen(s string) int {
	if isPlain(s) {
		return len(s)
	}
	return len(appendQuoted(nil, s))
}
