package runner

import (
	"strings"
	"testing"

	"github.com/fan-run/fan/input"
)

// The expected values were checked against GNU parallel 20240222's {.} {/}
// {//} {/.}.
func TestModifiers(t *testing.T) {
	for _, c := range []struct{ in, ext, base, dir, baseExt string }{
		{"a.b/c.d.e", "a.b/c.d", "c.d.e", "a.b", "c.d"},
		{"file", "file", "file", ".", "file"},
		{".bashrc", "", ".bashrc", ".", ""},
		{"a/.b", "a/", ".b", "a", ""},
		{"..", ".", "..", ".", "."},
		{"a/", "a/", "", ".", ""},
		{"/", "/", "", "/", ""},
		{"a//b", "a//b", "b", "a", "b"},
		{"", "", "", ".", ""},
		{"./x.y", "./x", "x.y", ".", "x"},
		{"/a", "/a", "a", "/", "a"},
		{"a.b.c/", "a.b.c/", "", ".", ""},
		{"a/b/", "a/b/", "", "a", ""},
		{"//a", "//a", "a", "/", "a"},
		{"a/b//c", "a/b//c", "c", "a/b", "c"},
		{"/a/b.", "/a/b", "b.", "/a", "b"},
		{"a b.c", "a b", "a b.c", ".", "a b"},
		{"a/b.c/d", "a/b.c/d", "d", "a/b.c", "d"},
	} {
		got := [4]string{apply(modExt, c.in), apply(modBase, c.in), apply(modDir, c.in), apply(modBaseExt, c.in)}
		want := [4]string{c.ext, c.base, c.dir, c.baseExt}
		if got != want {
			t.Errorf("%q: {.} {/} {//} {/.} = %q, want %q", c.in, got, want)
		}
	}
}

func TestParseParts(t *testing.T) {
	for _, c := range []struct {
		s, replace string
		want       []string // literal text, or "<tok what n mod>"
	}{
		{"echo {}", "{}", []string{"echo ", "<0 0 0>"}},
		{"{.}{/}{//}{/.}", "{}", []string{"<0 0 1>", "<0 0 2>", "<0 0 3>", "<0 0 4>"}},
		{"{#}{%}", "{}", []string{"<2 0 0>", "<3 0 0>"}},
		{"{12}{3.}{1/}{2//}{4/.}", "{}", []string{"<1 12 0>", "<1 3 1>", "<1 1 2>", "<1 2 3>", "<1 4 4>"}},
		{"{0} {x} { } {./} {", "{}", []string{"{0} {x} { } {./} {"}},
		{"a{}}b", "{}", []string{"a", "<0 0 0>", "}b"}},
		{"XX-{}-{.}", "XX", []string{"<0 0 0>", "-{}-", "<0 0 1>"}},
		{"{in}{in}", "{in}", []string{"<0 0 0>", "<0 0 0>"}},
		{"{-1}{-2.}{-10/}{-1//}{-3/.}", "{}", []string{"<1 -1 0>", "<1 -2 1>", "<1 -10 2>", "<1 -1 3>", "<1 -3 4>"}},
		{"a{-1}b {-01}", "{}", []string{"a", "<1 -1 0>", "b ", "<1 -1 0>"}},
		{"{-} {-.} {-/} {-0} {-00} {--1} {-1x} {- 1} {-1 } {+1} {1-}", "{}", []string{"{-} {-.} {-/} {-0} {-00} {--1} {-1x} {- 1} {-1 } {+1} {1-}"}},
		{"XX {-1} {1}", "XX", []string{"<0 0 0>", " ", "<1 -1 0>", " ", "<1 1 0>"}},
	} {
		parts, _ := parseParts(c.s, Syntax{Replace: c.replace})
		var got []string
		for _, p := range parts {
			if p.tok == nil {
				got = append(got, p.lit)
				continue
			}
			got = append(got, "<"+itoa(int(p.tok.what))+" "+itoa(p.tok.n)+" "+itoa(int(p.tok.mod))+">")
		}
		if len(got) != len(c.want) {
			t.Errorf("parseParts(%q, %q) = %q, want %q", c.s, c.replace, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("parseParts(%q, %q) = %q, want %q", c.s, c.replace, got, c.want)
				break
			}
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	if n < 0 {
		return "-" + itoa(-n)
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestTokenValues(t *testing.T) {
	item := &input.Item{Seq: 42, Args: []string{"d/a.b", "", "c"}}
	for _, c := range []struct {
		tok  token
		want []string
	}{
		{token{what: allArgs}, []string{"d/a.b", "", "c"}},
		{token{what: allArgs, mod: modBase}, []string{"a.b", "", "c"}},
		{token{what: posArg, n: 1, mod: modExt}, []string{"d/a"}},
		{token{what: posArg, n: 2}, []string{""}}, // an empty column is a value
		{token{what: posArg, n: 4}, nil},          // a missing one is none
		{token{what: posArg, n: -1}, []string{"c"}},
		{token{what: posArg, n: -2}, []string{""}},
		{token{what: posArg, n: -3, mod: modBaseExt}, []string{"a"}},
		{token{what: posArg, n: -3, mod: modDir}, []string{"d"}},
		{token{what: posArg, n: -4}, []string{"c"}}, // counted round once more
		{token{what: posArg, n: -7}, nil},
		{token{what: jobSeq}, []string{"42"}},
		{token{what: jobSlot}, []string{"5"}},
	} {
		got := c.tok.values(item, &Slot{N: 5})
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%+v: %q, want %q", c.tok, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%+v: %q, want %q", c.tok, got, c.want)
			}
		}
	}
}

// TestNegativePositions: {-n} counts from the last argument, and where the
// job has fewer than n arguments counts round from the last once more, as
// GNU parallel's Perl index does; beyond twice the arguments it is
// nothing. The values were checked against GNU parallel 20221122 (-n 2
// over three items, and two ::: sources).
func TestNegativePositions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // {-1} {-2} ... {-5}; "-" for none
	}{
		{nil, []string{"-", "-", "-", "-", "-"}}, // -n 0
		{[]string{"c"}, []string{"c", "c", "-", "-", "-"}},
		{[]string{"a", "b"}, []string{"b", "a", "b", "a", "-"}},
		{[]string{"a", "b", "c"}, []string{"c", "b", "a", "c", "b"}},
		// -n 2 of two sources: the arguments of both records, in order.
		{[]string{"a", "1", "a", "2"}, []string{"2", "a", "1", "a", "2"}},
	} {
		item := &input.Item{Seq: 1, Args: c.args}
		for k, want := range c.want {
			tok := token{what: posArg, n: -(k + 1)}
			got := "-"
			if v := tok.appendValues(nil, item, &Slot{N: 1}); len(v) == 1 {
				got = v[0]
			} else if len(v) > 1 {
				got = strings.Join(v, "|")
			}
			if got != want {
				t.Errorf("{-%d} of %q = %q, want %q", k+1, c.args, got, want)
			}
		}
	}
}
