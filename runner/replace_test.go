package runner

import (
	"testing"

	"fan/input"
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
	} {
		parts := parseParts(c.s, c.replace)
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
		{token{what: jobSeq}, []string{"42"}},
		{token{what: jobSlot}, []string{"5"}},
	} {
		got := c.tok.values(item, 5)
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
