package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fan-run/fan/input"
)

// argvProgram writes a script that prints its arguments, each ended by a
// NUL byte, and returns its path.
func argvProgram(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "argv")
	script := "#!/bin/sh\nfor a; do printf '%s\\0' \"$a\"; done\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRenderBothPaths renders a table of hostile items through a template
// that execs directly and through the same template forced through the
// shell (behind "true &&"), runs the shell line with /bin/sh, and requires the
// program to get the same argv, byte for byte.
func TestRenderBothPaths(t *testing.T) {
	prog := argvProgram(t)
	templates := [][]string{
		{prog, "{}"},
		{prog, "pre{}post", "{.}", "{/}", "{//}", "{/.}"},
		{prog, "{1}", "{2}", "x{2}y", "{3}"},
		{prog, "{-1}", "{-2}", "x{-2}y", "{-1.}", "{-2/}", "{-5}"},
		{prog, "{#}-{%}", "{}"},
		{prog},
	}
	items := []input.Item{{Seq: 7, Args: []string{"a", "b"}}}
	for _, s := range nastyStrings {
		items = append(items, input.Item{Seq: 1, Args: []string{s}})
		items = append(items, input.Item{Seq: 2, Args: []string{s, s + "/x.y"}})
	}
	for _, words := range templates {
		direct := NewTemplate(TemplateOptions{Words: words})
		shell := NewTemplate(TemplateOptions{Words: append([]string{"true", "&&"}, words...)})
		if !direct.direct() {
			t.Fatalf("%q: not rendered for direct exec", words)
		}
		if shell.direct() {
			t.Fatalf("true && %q: rendered for direct exec", words)
		}
		for _, item := range items {
			dc := direct.Render(&item, Slot{N: 3})
			sc := shell.Render(&item, Slot{N: 3})
			if dc.viaShell() || !sc.viaShell() {
				t.Fatalf("%q %q: direct command through a shell (%v) or shell command without (%v)", words, item.Args, dc.viaShell(), !sc.viaShell())
			}
			if dc.Path != prog || dc.Args[0] != prog {
				t.Fatalf("direct command %q %q, want program %s", dc.Path, dc.Args, prog)
			}
			out, err := exec.Command(sc.Path, sc.Args[1:]...).Output()
			if err != nil {
				t.Fatalf("%s %q: %v", sc.Path, sc.Args, err)
			}
			var got []string
			if len(out) > 0 {
				got = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			}
			want := dc.Args[1:]
			if !equalArgs(got, want) {
				t.Errorf("template %q, item %q:\ndirect argv %q\nshell argv  %q\nshell line  %s", words, item.Args, want, got, sc.Args[2])
			}
		}
	}
}

func equalArgs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal([]byte(a[i]), []byte(b[i])) {
			return false
		}
	}
	return true
}

// TestDirectDetection: which templates exec their program directly.
func TestDirectDetection(t *testing.T) {
	for _, c := range []struct {
		words  []string
		direct bool
	}{
		{[]string{"ls", "{}"}, true},
		{[]string{"ls"}, true},
		{[]string{"ls", "-l", "{}", "{#}"}, true},
		{[]string{"ls", "{}", "|", "wc"}, false},
		{[]string{"ls {} > out"}, false},
		{[]string{"ls", "$HOME"}, false},
		{[]string{"ls", "*.go"}, false},
		{[]string{"ls", "'a b'"}, false},
		{[]string{"ls", "a\\b"}, false},
		{[]string{"ls", "~"}, false},
		{[]string{"cd", "{}"}, false},
		{[]string{"printf", "%s", "{}"}, false},
		{[]string{"X=1", "ls"}, false},
		{[]string{"{}"}, false},
		{nil, false},
		{[]string{"echo", "{}"}, true}, // a twin: direct for plain items
	} {
		if got := NewTemplate(TemplateOptions{Words: c.words}).direct(); got != c.direct {
			t.Errorf("%q: direct %v, want %v", c.words, got, c.direct)
		}
	}
}

// TestTwinBuiltins: echo takes the direct path only where /bin/echo and
// the shell's echo cannot differ.
func TestTwinBuiltins(t *testing.T) {
	tp := NewTemplate(TemplateOptions{Words: []string{"echo", "{}"}})
	for item, shell := range map[string]bool{"a": false, "a b": false, "-n": true, "a\\tb": true, "x-y": false} {
		c := tp.Render(&input.Item{Seq: 1, Args: []string{item}}, Slot{N: 1})
		if c.viaShell() != shell {
			t.Errorf("echo %q: through the shell %v, want %v", item, c.viaShell(), shell)
		}
	}
}

func TestRenderShellLine(t *testing.T) {
	for _, c := range []struct {
		words []string
		opt   TemplateOptions
		args  []string
		want  string
	}{
		{words: []string{"echo", "{}", "|", "cat"}, args: []string{"a b"}, want: "echo 'a b' | cat"},
		{words: []string{"echo $(( {} * 2 ))"}, args: []string{"21"}, want: "echo $(( 21 * 2 ))"},
		{words: []string{"echo", "{}", ";"}, args: []string{"a", "b c"}, want: "echo a 'b c' ;"},
		{words: []string{"echo", "{2}", ";"}, args: []string{"a"}, want: "echo  ;"},
		{words: []string{"echo", "{-1}", ";"}, args: []string{"a", "b c"}, want: "echo 'b c' ;"},
		{words: []string{"echo", "{-2}", "x{-5}y", "{-5}", ";"}, args: []string{"a", "b"}, want: "echo a xy  ;"},
		{words: []string{"echo", "XX", "{-1/}", ";"}, opt: TemplateOptions{Syntax: Syntax{Replace: "XX"}}, args: []string{"a", "d/b"}, want: "echo a d/b b ;"},
		{words: []string{"echo", "{}", ";"}, args: []string{""}, want: "echo '' ;"},
		{words: []string{"echo", "XX", "{}", ";"}, opt: TemplateOptions{Syntax: Syntax{Replace: "XX"}}, args: []string{"a"}, want: "echo a {} ;"},
		{words: []string{"echo", ">"}, args: []string{"f"}, want: "echo > f"},
		{words: nil, args: []string{"echo $HOME | wc"}, want: "echo $HOME | wc"},
		// -X (and -N) repeat a whole shell word: a quoted blank is inside
		// it, and each value is quoted for where it stands.
		{words: []string{"echo", "'a {}'", ";"}, opt: TemplateOptions{Context: true}, args: []string{"x", "$(y)"},
			want: "echo 'a x' 'a $(y)' ;"},
		{words: []string{"echo", `"a {}" b\ {}`, ";"}, opt: TemplateOptions{Context: true}, args: []string{"x", "$y"},
			want: `echo "a x" "a \$y" b\ x b\ '$y' ;`},
		{words: []string{"echo", "$(printf %s {})", ";"}, opt: TemplateOptions{Context: true}, args: []string{"x", "y z"},
			want: "echo $(printf %s x) $(printf %s 'y z') ;"},
		// -q: each word whole, its replacement strings outside the quotes.
		{words: []string{"perl", "-e", "echo got {}"}, opt: TemplateOptions{Quote: true, Context: true}, args: []string{"a", "$(b)"},
			want: "perl -e 'echo got 'a 'echo got ''$(b)'"},
		// sh -c is taken as -q takes it, and a value in its script is
		// quoted for the shell that reads the script too.
		{words: []string{"sh", "-c", "echo got {}"}, args: []string{"$(b)"},
			want: `sh -c 'echo got '''\''$(b)'\'''`},
		{words: []string{"sh", "-c", `echo "$1"`, "_"}, args: []string{"a b"},
			want: `sh -c 'echo "$1"' _ 'a b'`},
		{words: []string{"printf", `[%s]\n`, "{}", "{}*"}, opt: TemplateOptions{Quote: true}, args: []string{"x", "y z"},
			want: `printf '[%s]\n' x 'y z' x 'y z''*'`},
	} {
		o := c.opt
		o.Words = c.words
		cmd := NewTemplate(o).Render(&input.Item{Seq: 1, Args: c.args}, Slot{N: 1})
		if !cmd.viaShell() || cmd.String() != c.want || cmd.Args[2] != c.want || cmd.Path != "/bin/sh" {
			t.Errorf("%q with %q: %q %q, want /bin/sh -c %q", c.words, c.args, cmd.Path, cmd.Args, c.want)
		}
	}
}

func TestRenderShellOption(t *testing.T) {
	cmd := NewTemplate(TemplateOptions{Words: []string{"echo {} | cat"}, Shell: "/bin/bash"}).Render(&input.Item{Seq: 1, Args: []string{"a"}}, Slot{N: 1})
	if cmd.Path != "/bin/bash" || cmd.Args[0] != "/bin/bash" || cmd.Args[1] != "-c" {
		t.Errorf("--shell /bin/bash: %q %q", cmd.Path, cmd.Args)
	}
}

func TestMissingProgram(t *testing.T) {
	cmd := NewTemplate(TemplateOptions{Words: []string{"no-such-program-fan-test", "{}"}}).Render(&input.Item{Seq: 1, Args: []string{"a"}}, Slot{N: 1})
	se, ok := cmd.Err.(*StartError)
	if !ok || se.Status != 127 || !strings.Contains(se.Error(), "no-such-program-fan-test") {
		t.Fatalf("missing program: error %v, want a StartError with status 127 naming it", cmd.Err)
	}
}

// TestRenderNegativePositions: {-n} is a replacement string like {n}, so
// the arguments are not appended, and under -X a word holding it is given
// once while a word holding {} is repeated.
func TestRenderNegativePositions(t *testing.T) {
	item := &input.Item{Seq: 1, Args: []string{"a", "b", "d/c.x"}}
	for _, c := range []struct {
		opt  TemplateOptions
		want []string
	}{
		{TemplateOptions{Words: []string{"ls", "{-1}"}}, []string{"ls", "d/c.x"}},
		{TemplateOptions{Words: []string{"ls", "{-1.}", "{-1/}", "{-1//}", "{-1/.}", "{-3}"}}, []string{"ls", "d/c", "c.x", "d", "c", "a"}},
		{TemplateOptions{Words: []string{"ls", "-{-2}-", "{-9}"}}, []string{"ls", "-b-"}},
		{TemplateOptions{Words: []string{"ls", "x{}y", "{-1/}", "x{-2}y"}, Context: true}, []string{"ls", "xay", "xby", "xd/c.xy", "c.x", "xby"}},
		{TemplateOptions{Words: []string{"ls", "{}{-1/}"}, Context: true}, []string{"ls", "ac.x", "bc.x", "d/c.xc.x"}},
	} {
		cmd := NewTemplate(c.opt).Render(item, Slot{N: 1})
		if cmd.viaShell() || !equalArgs(cmd.Args[1:], c.want[1:]) {
			t.Errorf("%q (-X %v) of %q: %q, want %q", c.opt.Words, c.opt.Context, item.Args, cmd.Args, c.want)
		}
	}
}

// TestTextNegativePositions: --tagstring and --results names take {-n}.
func TestTextNegativePositions(t *testing.T) {
	item := &input.Item{Seq: 1, Args: []string{"a", "d/b.c"}}
	for _, c := range []struct{ s, replace, want string }{
		{"{-1}", "", "d/b.c"},
		{"out/{-2}/{-1/.}", "", "out/a/b"},
		{"[{-3}|{-5}]", "XX", "[d/b.c|]"},
	} {
		tx := NewText(c.s, Syntax{Replace: c.replace})
		if got := tx.Render(item, Slot{N: 1}); got != c.want || !tx.Varies() {
			t.Errorf("NewText(%q, %q): %q (varies %v), want %q", c.s, c.replace, got, tx.Varies(), c.want)
		}
	}
}

// ParseText reports a --plus expression a text cannot use; the text then
// renders the token as the plain argument.
func TestParseText(t *testing.T) {
	sx := Syntax{Plus: true}
	if _, err := ParseText("d-{/(/x}-e", sx); err == nil {
		t.Error("ParseText of a bad expression: no error")
	}
	if tx, err := ParseText("d-{/a/x}-e {#}", sx); err != nil || !tx.Varies() {
		t.Errorf("ParseText of good ones: %v (varies %v)", err, tx.Varies())
	}
}
