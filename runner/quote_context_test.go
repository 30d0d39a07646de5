package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fan/input"
)

// TestMarkQuotes: the quoting the template's text puts each token in.
func TestMarkQuotes(t *testing.T) {
	for _, c := range []struct {
		line string
		want []quoteCtx // per token, in order
		esc  []bool
	}{
		{`echo {}`, []quoteCtx{unquoted}, []bool{false}},
		{`echo '{}' "{}"`, []quoteCtx{inSingle, inDouble}, nil},
		{`echo "it's {}" '"{}"'`, []quoteCtx{inDouble, inSingle}, nil},
		{`echo "a\"{}" 'b\'{}`, []quoteCtx{inDouble, unquoted}, nil},
		{`echo "$(f {} "{}")" {}`, []quoteCtx{unquoted, inDouble, unquoted}, nil},
		{`echo "$(f $(g) {})" "{}"`, []quoteCtx{unquoted, inDouble}, nil},
		{`echo "$( (a) {})"`, []quoteCtx{unquoted}, nil},
		{`echo \{} \\{} "\{}"`, []quoteCtx{unquoted, unquoted, inDouble}, []bool{true, false, true}},
		{`echo '\{}'`, []quoteCtx{inSingle}, []bool{false}},
	} {
		parts := parseParts(c.line, "{}")
		if err := markQuotes(parts); err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		var got []quoteCtx
		var esc []bool
		for _, p := range parts {
			if p.tok != nil {
				got, esc = append(got, p.tok.ctx), append(esc, p.tok.escaped)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: contexts %v, want %v", c.line, got, c.want)
		}
		if c.esc != nil && !slices.Equal(esc, c.esc) {
			t.Errorf("%s: escaped %v, want %v", c.line, esc, c.esc)
		}
	}
	for _, line := range []string{"echo `f {}`", "echo \"`f {}`\""} {
		if err := markQuotes(parseParts(line, "{}")); !errors.Is(err, errBackquote) {
			t.Errorf("%s: %v, want errBackquote", line, err)
		}
	}
}

// TestQuotedTemplatesKeepData renders hostile items into templates that put
// {} inside quotes, after a backslash and in a command substitution, runs
// them with /bin/sh and requires the program to get exactly the words the
// template means, the item's bytes among them: never code, never changed.
func TestQuotedTemplatesKeepData(t *testing.T) {
	prog := argvProgram(t)
	cases := []struct {
		words []string
		want  func(item string) []string
	}{
		{[]string{prog, `"{}"`}, func(s string) []string { return []string{s} }},
		{[]string{prog, `'{}'`}, func(s string) []string { return []string{s} }},
		{[]string{prog, `"x{}y"`, `'x{}y'`}, func(s string) []string { return []string{"x" + s + "y", "x" + s + "y"} }},
		{[]string{prog, `"it's {}"`}, func(s string) []string { return []string{"it's " + s} }},
		{[]string{prog, `'say "{}"'`}, func(s string) []string { return []string{`say "` + s + `"`} }},
		{[]string{prog, `\{}`}, func(s string) []string { return []string{s} }},
		{[]string{prog, `"\{}"`}, func(s string) []string { return []string{s} }},
		{[]string{prog, `"$(printf %s {})"`}, func(s string) []string { return []string{strings.TrimRight(s, "\n")} }},
		{[]string{prog, `"$(printf %s "{}")"`}, func(s string) []string { return []string{strings.TrimRight(s, "\n")} }},
	}
	for _, c := range cases {
		tmpl := NewTemplate(TemplateOptions{Words: c.words})
		if tmpl.Err() != nil || tmpl.direct() {
			t.Fatalf("%q: error %v, direct %v; want a shell template", c.words, tmpl.Err(), tmpl.direct())
		}
		for _, s := range nastyStrings {
			cmd := tmpl.Render(&input.Item{Seq: 1, Args: []string{s}}, 1)
			out, err := exec.Command(cmd.Path, cmd.Args[1:]...).Output()
			if err != nil {
				t.Fatalf("%q, item %q: %v (line %s)", c.words, s, err, cmd.Args[2])
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			if want := c.want(s); !equalArgs(got, want) {
				t.Errorf("template %q, item %q:\ngot  %q\nwant %q\nline %s", c.words, s, got, want, cmd.Args[2])
			}
		}
	}
}

// TestQuotingBeyondScan: where the template holds what markQuotes does not
// follow (a comment or a here-document with a quote in it, a case pattern
// in $(...)), values are quoted as bare words, and no item runs as code.
func TestQuotingBeyondScan(t *testing.T) {
	dir := t.TempDir()
	for _, line := range []string{
		"echo x # don't\necho {}",
		"cat <<EOF >/dev/null\nit's\nEOF\necho {}",
		`echo "$(case q in q) echo {};; esac)"`,
	} {
		tmpl := NewTemplate(TemplateOptions{Words: []string{line}})
		for _, s := range nastyStrings {
			cmd := tmpl.Render(&input.Item{Seq: 1, Args: []string{"a;touch pwned;" + s}}, 1)
			c := exec.Command(cmd.Path, cmd.Args[1:]...)
			c.Dir = dir
			c.Run()
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Fatalf("template %q, item %q ran as code: %s", line, s, cmd.Args[2])
			}
		}
	}
}
