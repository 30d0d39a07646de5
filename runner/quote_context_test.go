package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fan-run/fan/input"
)

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
			cmd := tmpl.Render(&input.Item{Seq: 1, Args: []string{s}}, Slot{N: 1})
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

// TestQuotingAfterHardSyntax: a comment or a here-document with a quote
// in it, or a case pattern in $(...), does not confuse where a later {}
// stands (a hand scanner lost track there), and no item runs as code.
func TestQuotingAfterHardSyntax(t *testing.T) {
	dir := t.TempDir()
	for _, line := range []string{
		"echo x # don't\necho {}",
		"cat <<EOF >/dev/null\nit's\nEOF\necho {}",
		`echo "$(case q in q) echo {};; esac)"`,
	} {
		tmpl := NewTemplate(TemplateOptions{Words: []string{line}})
		for _, s := range nastyStrings {
			cmd := tmpl.Render(&input.Item{Seq: 1, Args: []string{"a;touch pwned;" + s}}, Slot{N: 1})
			c := exec.Command(cmd.Path, cmd.Args[1:]...)
			c.Dir = dir
			c.Run()
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Fatalf("template %q, item %q ran as code: %s", line, s, cmd.Args[2])
			}
		}
	}
}

// contexts returns the quoting context of each token of a template line,
// in order, and whether each is escaped.
func contexts(t *testing.T, line string) ([]quoteCtx, []bool) {
	t.Helper()
	tmpl := NewTemplate(TemplateOptions{Words: []string{line}})
	if err := tmpl.Err(); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	var ctx []quoteCtx
	var esc []bool
	for _, p := range tmpl.parts {
		if p.tok != nil {
			ctx, esc = append(ctx, p.tok.q.ctx), append(esc, p.tok.q.escaped)
		}
	}
	return ctx, esc
}

// TestPlaceQuoting: the context the parser finds for each token.
func TestPlaceQuoting(t *testing.T) {
	for _, c := range []struct {
		line string
		want []quoteCtx // per token, in order
		esc  []bool
	}{
		{`echo {}`, []quoteCtx{ctxBare}, []bool{false}},
		{`echo '{}' "{}"`, []quoteCtx{ctxSingle, ctxDouble}, nil},
		{`echo "it's {}" '"{}"'`, []quoteCtx{ctxDouble, ctxSingle}, nil},
		{`echo "a\"{}" 'b\'{}`, []quoteCtx{ctxDouble, ctxBare}, nil},
		{`echo "$(f {} "{}")" {}`, []quoteCtx{ctxBare, ctxDouble, ctxBare}, nil},
		{`echo "$(f $(g) {})" "{}"`, []quoteCtx{ctxBare, ctxDouble}, nil},
		{`echo "$( (a); f {})"`, []quoteCtx{ctxBare}, nil},
		{`echo \{} \\{} "\{}"`, []quoteCtx{ctxBare, ctxBare, ctxDouble}, []bool{true, false, true}},
		{`echo '\{}'`, []quoteCtx{ctxSingle}, []bool{false}},
		{`echo Zfan0Q 'Zf'an {}`, []quoteCtx{ctxBare}, nil}, // the text holds what a placeholder would
		// What a hand scanner could not follow.
		{`printf "%s\n" "${PWD#/}: {}"`, []quoteCtx{ctxDouble}, nil},
		{`printf "%s\n" "{}" # note {}`, []quoteCtx{ctxDouble, ctxComment}, nil},
		{"cat <<EOF\n{} $(echo {}) \"{}\"\nEOF", []quoteCtx{ctxHeredoc, ctxBare, ctxHeredoc}, nil},
		{"cat <<'EOF'\n{} $(echo {})\nEOF\necho {}", []quoteCtx{ctxLiteral, ctxLiteral, ctxBare}, nil},
		{`case {} in {}|"{}") echo "{}";; esac`, []quoteCtx{ctxBare, ctxQuoted, ctxDouble, ctxDouble}, nil},
		{`f() { echo "{}" {}; }; f`, []quoteCtx{ctxDouble, ctxBare}, nil},
		// Parameter expansions, arithmetic, tests.
		{`: ${v:-{}} "${v:-{}}" ${v:-"{}"} ${v#{}} "${v%{}}" ${v:-'{}'}`,
			[]quoteCtx{ctxBare, ctxParamDouble, ctxDouble, ctxQuoted, ctxPatternDouble, ctxSingle}, nil},
		{`: ${v/{}/{}} "${v/{}/x}" ${a[{}]} ${v:{}:1}`, []quoteCtx{ctxQuoted, ctxBare, ctxPatternDouble, ctxArith, ctxArith}, nil},
		{`echo $(( {} * 2 )) "$(( "{}" ))" $(( $(echo {}) )); (( {} )); let {}`,
			[]quoteCtx{ctxArith, ctxArith, ctxBare, ctxArith, ctxArith}, nil},
		{`[[ {} -eq 1 && {} == {} && -v {} ]]`, []quoteCtx{ctxArith, ctxBare, ctxQuoted, ctxArith}, nil},
		{`a[{}]=x; b={} >{}; echo {}>x`, []quoteCtx{ctxArith, ctxBare, ctxBare, ctxQuoted}, nil},
		{`echo <(echo {}) "$(cat <<X
{}
X
)"`, []quoteCtx{ctxBare, ctxHeredoc}, nil},
	} {
		got, esc := contexts(t, c.line)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: contexts %v, want %v", c.line, got, c.want)
		}
		if c.esc != nil && !slices.Equal(esc, c.esc) {
			t.Errorf("%s: escaped %v, want %v", c.line, esc, c.esc)
		}
	}
}

// TestPlaceScript: a value in the script of sh -c, or of eval, is quoted
// for the shell that reads the script, then for where the script stands.
func TestPlaceScript(t *testing.T) {
	for _, c := range []struct {
		words []string
		inner []quoteCtx // per token: the script's context; ctxLiteral for none
	}{
		{[]string{`sh -c 'echo {} "{}"' _ {}`}, []quoteCtx{ctxBare, ctxDouble, ctxLiteral}},
		{[]string{"sh", "-c", "echo {} '{}'", "_", "{}"}, []quoteCtx{ctxBare, ctxSingle, ctxLiteral}},
		{[]string{`timeout 5 bash -ec "echo '{}'"`}, []quoteCtx{ctxSingle}},
		{[]string{`/bin/dash -o errexit -c 'echo {}'`}, []quoteCtx{ctxBare}},
		{[]string{`eval 'echo {}' "# {}"`}, []quoteCtx{ctxBare, ctxComment}},
		{[]string{`sh script {}`}, []quoteCtx{ctxLiteral}},
		// The script is the item, as the user asked.
		{[]string{"sh", "-c", "{}"}, []quoteCtx{ctxLiteral}},
		{[]string{"bash", "-c"}, []quoteCtx{ctxLiteral}},
		{[]string{`eval "{}"`}, []quoteCtx{ctxLiteral}},
	} {
		tmpl := NewTemplate(TemplateOptions{Words: c.words})
		if err := tmpl.Err(); err != nil {
			t.Fatalf("%q: %v", c.words, err)
		}
		var got []quoteCtx
		for _, p := range tmpl.parts {
			if p.tok == nil {
				continue
			}
			if p.tok.q.inner == nil {
				got = append(got, ctxLiteral)
			} else {
				got = append(got, p.tok.q.inner.ctx)
			}
		}
		if !slices.Equal(got, c.inner) {
			t.Errorf("%q: script contexts %v, want %v", c.words, got, c.inner)
		}
	}
}

// TestPlaceRefused: templates with a replacement string where no quoting
// keeps every value data, or that the parser cannot read, are refused
// when built, with one line naming the replacement string and why.
func TestPlaceRefused(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"echo `f {}`"}, "{} stands inside `...`, which cannot be quoted safely (write $(...) instead)"},
		{[]string{"echo \"`f {}`\""}, "{} stands inside `...`"},
		{[]string{`echo "$(echo `, "`echo {.}`)\""}, "{.} stands inside `...`"},
		{[]string{`echo $'{}'`}, "{} stands inside $'...' or $\"...\""},
		{[]string{`echo $"{}"`}, "{} stands inside $'...' or $\"...\""},
		{[]string{`echo $x{}`}, "{} stands where the shell reads a name"},
		{[]string{`echo ${#}`}, "{#} stands where the shell reads a name"},
		{[]string{`{}() { :; }`}, "{} stands where the shell reads a name"},
		{[]string{`for {} in a; do :; done`}, "{} stands where the shell reads a name"},
		{[]string{"cat <<{}\nx\n{}"}, "{} cannot be placed: the shell parser stops at 1:5: unclosed here-document `{}`"},
		{[]string{"cat <<EOF\n${v:-{}}\nEOF"}, "{} stands in a ${...} inside a here-document"},
		{[]string{`echo "${v/a/{}}"`}, `{} stands in the replacement of "${v/.../...}"`},
		{[]string{`echo "${v:-'{}'}"`}, `{} stands inside '...' inside "${...}"`},
		{[]string{`echo "${v:-"{}"}"`}, `{} stands in "..." inside "${...}"`},
		{[]string{`echo @({})`}, "{} stands in shell syntax fan does not quote for (ExtGlob"},
		{[]string{`echo '{}`}, "{} cannot be placed: the shell parser stops at 1:6: reached EOF without closing quote `'`"},
		{[]string{`echo (`}, "the item (appended, as the command has no {}) cannot be placed"},
		{[]string{`sh -c "echo $x {}"`}, "{} stands in the script of a sh -c or eval that is not plain quoted text"},
		{[]string{`sh -c 'echo "{}'`}, "{} cannot be placed: the shell parser stops at 1:6: reached EOF without closing quote `\"` (check the command's quotes and brackets) (in the script of a sh -c or eval)"},
	} {
		err := NewTemplate(TemplateOptions{Words: c.words}).Err()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line starting %q", c.words, err, c.want)
		}
	}
}

// TestRefusedValues: where the place allows only some values, a job with
// another fails before it starts (status 126, a message naming the
// replacement string), and what --dry-run shows of it fails too.
func TestRefusedValues(t *testing.T) {
	for _, c := range []struct {
		line, item, want string // want "": the job runs
	}{
		{"cat <<EOF\n{}\nEOF", "EOF", "job 1: {} would end its here-document early"},
		{"cat <<EOF\n{}\nEOF", "a\nEOF\nb", "job 1: {} would end"},
		{"cat <<EOF\n{}\nEOF", "EOFx", ""},
		{"cat <<EOF\nE{}\nEOF", "OF", "job 1: {} would end"},
		{"cat <<EOF\nE{}\nEOF", "O", ""},
		{"cat <<'EOF'\n{}\nEOF", "x\nEOF", "job 1: {} would end"},
		{"cat <<-EOF\n\t{}\n\tEOF", "x\n\t\tEOF", "job 1: {} would end"},
		{"cat <<EOF\n{}{}\nEOF", "E", "job 1: {} would end"}, // the other value could complete it
		{"cat <<EOF\n{}\nEOF", "$EOF", ""},
		{"echo x # {}", "a\nb", "job 1: {} stands in a comment"},
		{"echo x # {}", "a b $(c)", ""},
		{"echo $(( {} * 2 ))", "21", ""},
		{"echo $(( {} * 2 ))", "a[$(touch x)]", "job 1: {} stands in arithmetic"},
		{"echo $(( {} * 2 ))", "", "job 1: {} stands in arithmetic"},
		{"echo x #", "a\nb", "job 1: the item (appended, as the command has no {}) stands in a comment"},
		{"sh -c 'cat <<EOF\n{}\nEOF'", "EOF", "job 1: {} would end"},
		{"cat <<\xffE\n{}\n\xffE", "\xffE", "job 1: {} would end"}, // not UTF-8: a shell takes it as it is
	} {
		tmpl := NewTemplate(TemplateOptions{Words: []string{c.line}})
		if err := tmpl.Err(); err != nil {
			t.Fatalf("%q: %v", c.line, err)
		}
		cmd := tmpl.Render(&input.Item{Seq: 1, Args: []string{c.item}}, Slot{N: 1})
		if c.want == "" {
			if cmd.Err != nil {
				t.Errorf("%q with %q: refused (%v), want it run", c.line, c.item, cmd.Err)
			}
			continue
		}
		se, ok := cmd.Err.(*StartError)
		if !ok || se.Status != 126 || !strings.HasPrefix(se.Error(), c.want) {
			t.Errorf("%q with %q: error %v, want status 126 and %q", c.line, c.item, cmd.Err, c.want)
			continue
		}
		if err := exec.Command(cmd.Path, cmd.Args[1:]...).Run(); err == nil || !strings.HasPrefix(cmd.String(), "false # fan: ") {
			t.Errorf("%q with %q: the refused command %q runs without failing", c.line, c.item, cmd.String())
		}
	}
}

// hostileStrings are items aimed at the contexts a template can put a
// value in: ending a quote or a here-document, running a substitution,
// escaping, invalid UTF-8. Those that would run code touch "pwned".
var hostileStrings = []string{
	"EOF", "\tEOF", "a\nEOF", "EOF\nb", "x\nEOF\n$(touch pwned)\n", "EOF\n`touch pwned`", "E", "OF",
	"'$(touch pwned)'", `"$(touch pwned)"`, `\$(touch pwned)`, "'; touch pwned; '", `"; touch pwned; "`,
	"a[$(touch pwned)]", "}", "${x:-$(touch pwned)}", "x\\", "\\'", "\n# c\ntouch pwned\n",
	"\xff$(touch pwned)\xfe", "a&b", "*)", "esac", "2", "\n", "\n\n", "a b\n",
}

// contextCase is a template that puts {} in one context, and what its job
// prints for an item s.
type contextCase struct {
	words []string
	bash  bool                  // bash's syntax: run by bash alone
	want  func(s string) string // nil: the output is the shell's (arithmetic)
	// refuse says which items a job may be refused for (nil: none).
	refuse func(s string) bool
}

func same(s string) string { return s }

// anyLine reports whether a line of s, with leading tabs stripped when
// tabs is set, is l.
func anyLine(s, l string, tabs bool) bool {
	for _, line := range strings.Split(s, "\n") {
		if tabs {
			line = strings.TrimLeft(line, "\t")
		}
		if line == l {
			return true
		}
	}
	return false
}

// hasEOF reports whether s may be refused in a here-document with the
// delimiter EOF where the text around it is not known.
func hasEOF(s string) bool {
	return strings.Contains(s, "EOF") || strings.Contains(s, "\n") || strings.Contains("EOF", s)
}

// contextCases cover every context fan quotes for (quote_context.go).
var contextCases = []contextCase{
	{words: []string{"printf %s {}"}, want: same},
	{words: []string{"printf %s '{}'"}, want: same},
	{words: []string{`printf %s "{}"`}, want: same},
	{words: []string{`printf %s "a{}b" 'a{}b'`}, want: func(s string) string { return "a" + s + "ba" + s + "b" }},
	{words: []string{`printf %s \{} "\{}"`}, want: func(s string) string { return s + s }},
	{words: []string{"printf", "%s", "{}"}, want: same},
	{words: []string{"printf %s {}>&1"}, want: same},
	{words: []string{`x=$(printf %s {}; echo .); printf %s "${x%.}"`}, want: same},
	{words: []string{`x="$(printf %s "{}"; echo .)"; printf %s "${x%.}"`}, want: same},
	{words: []string{`f() { printf %s "{}"; }; f`}, want: same},
	{words: []string{`for x in {}; do printf %s "$x"; done`}, want: same},
	{words: []string{"cat <<EOF\n{}\nEOF"}, want: func(s string) string { return s + "\n" },
		refuse: func(s string) bool { return anyLine(s, "EOF", false) }},
	{words: []string{"cat <<'EOF'\n{}\nEOF"}, want: func(s string) string { return s + "\n" },
		refuse: func(s string) bool { return anyLine(s, "EOF", false) }},
	{words: []string{"cat <<\\EOF\n{}{}\nEOF"}, want: func(s string) string { return s + s + "\n" }, refuse: hasEOF},
	{words: []string{"cat <<-EOF\n\t{}\n\tEOF"}, refuse: func(s string) bool { return anyLine(s, "EOF", true) },
		want: func(s string) string {
			lines := strings.Split("\t"+s+"\n", "\n")
			for i := range lines {
				lines[i] = strings.TrimLeft(lines[i], "\t")
			}
			return strings.Join(lines, "\n")
		}},
	{words: []string{"cat <<EOF\nx $(printf %s {}) y\nEOF"}, refuse: hasEOF,
		want: func(s string) string { return "x " + strings.TrimRight(s, "\n") + " y\n" }},
	{words: []string{"x=\"$(cat <<EOF\n{}\nEOF\n)\"; printf %s \"$x\""}, refuse: hasEOF,
		want: func(s string) string { return strings.TrimRight(s+"\n", "\n") }},
	{words: []string{"cat <<EOF; printf %s {} \"{}\"\nbody\nEOF"}, want: func(s string) string { return "body\n" + s + s }},
	{words: []string{`case {} in *) printf %s "{}";; esac`}, want: same},
	{words: []string{`case x{} in x{}) printf %s yes;; *) printf %s no;; esac`}, want: func(string) string { return "yes" }},
	{words: []string{`x=${v:-{}}; printf %s "$x"`}, want: same},
	{words: []string{`printf %s "${v:-{}}" ${v:-"{}"} "${v-x{}y}"`}, want: func(s string) string { return s + s + "x" + s + "y" }},
	{words: []string{`v=x{}y; w={}z; printf %s "${v#x{}}" "${v%{}y}" "${w#{}}"`}, want: func(string) string { return "yxz" }},
	{words: []string{`v={}y; w=${v#{}}; printf %s "$w"`}, want: func(string) string { return "y" }},
	{words: []string{`: ${v:={}}; printf %s "$v"`}, want: same},
	{words: []string{"printf %s ok # {}"}, want: func(string) string { return "ok" },
		refuse: func(s string) bool { return strings.Contains(s, "\n") }},
	{words: []string{"printf %s $(( {} + 0 ))"}, refuse: func(s string) bool { return !isPlain(s) }},
	{words: []string{"sh", "-c", `printf %s "$1"`, "_"}, want: same},
	{words: []string{"sh", "-c", `printf %s {} "{}" '{}'`}, want: func(s string) string { return s + s + s }},
	{words: []string{`sh -c 'printf %s {} "{}"'`}, want: func(s string) string { return s + s }},
	{words: []string{`eval 'printf %s {}' "'{}'"`}, want: func(s string) string { return s + s }},
	{words: []string{"printf", "%s", "{}"}, want: same},
	{words: []string{"printf %s \"\xff{}\" '\xc3{}' \xfe{}"}, want: func(s string) string { return "\xff" + s + "\xc3" + s + "\xfe" + s }},
	{words: []string{"sh -c 'printf %s \"\xff{}\"'"}, want: func(s string) string { return "\xff" + s }},
	{words: []string{`v={}y; printf %s "${v/#{}/-}" ${v/#{}/-}`}, bash: true, want: func(string) string { return "-y-y" }},
	{words: []string{`v=ab; w=${v/b/{}}; printf %s "$w"`}, bash: true, want: func(s string) string { return "a" + s }},
	{words: []string{`[[ x{} == x{} ]] && printf %s yes`}, bash: true, want: func(string) string { return "yes" }},
	{words: []string{`[[ x{} =~ ^x{}$ ]] && printf %s yes`}, bash: true, want: func(string) string { return "yes" }},
	{words: []string{`(( {} )); a[{}]=1; [[ {} -eq 0 ]]; printf %s ok`}, bash: true, refuse: func(s string) bool { return !isPlain(s) }},
	{words: []string{`printf %s "$(( {} ))" "${a[{}]}"`}, bash: true, refuse: func(s string) bool { return !isPlain(s) }},
}

// shellsForTest are the shells a rendered job is run with: /bin/sh, and
// bash where there is one.
func shellsForTest() []string {
	shells := []string{"/bin/sh"}
	if bash, err := exec.LookPath("bash"); err == nil {
		shells = append(shells, bash)
	}
	return shells
}

// dashDropsByte reports whether dash (0.5.12) would lose a byte of text
// in a here-document: reading a body line that starts as the delimiter
// does ("E" of EOF), it drops a next byte above 0x7f. Any text there
// loses it, fan's values or the template's own, so the test lets it be.
func dashDropsByte(sh string, c contextCase, text string) bool {
	if sh != "/bin/sh" || !strings.Contains(c.words[0], "<<") {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, "\t")
		n := 0
		for n < len(line) && n < len("EOF") && line[n] == "EOF"[n] {
			n++
		}
		if n > 0 && n < len(line) && line[n] >= 0x80 {
			return true
		}
	}
	return false
}

// checkContexts renders s into every context case and runs the job with
// each shell: it must print s where the case says, byte for byte, or be
// refused where the case allows it; and nothing may run as code. The jobs
// run a few at a time: they mostly wait for a shell to start.
func checkContexts(t *testing.T, s string) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, c := range contextCases {
		for _, sh := range shellsForTest() {
			if c.bash && !strings.HasSuffix(sh, "bash") {
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				checkContext(t, c, sh, s, dir)
			}()
		}
	}
	wg.Wait()
}

// checkContext is checkContexts for one case and shell.
func checkContext(t *testing.T, c contextCase, sh, s, dir string) {
	tmpl := NewTemplate(TemplateOptions{Words: c.words, Shell: sh})
	if err := tmpl.Err(); err != nil {
		t.Errorf("%q: %v", c.words, err)
		return
	}
	cmd := tmpl.Render(&input.Item{Seq: 1, Args: []string{s}}, Slot{N: 1})
	if cmd.Err != nil {
		if c.refuse == nil || !c.refuse(s) {
			t.Errorf("%q with %q: refused: %v", c.words, s, cmd.Err)
		}
		return
	}
	dir, err := os.MkdirTemp(dir, "")
	if err != nil {
		t.Error(err)
		return
	}
	run := exec.Command(cmd.Path, cmd.Args[1:]...)
	run.Dir = dir
	out, err := run.Output()
	if _, serr := os.Stat(filepath.Join(dir, "pwned")); serr == nil {
		t.Errorf("%s: %q with %q ran as code: %s", sh, c.words, s, cmd.String())
		return
	}
	if c.want == nil {
		return
	}
	if want := c.want(s); err != nil || string(out) != want && !dashDropsByte(sh, c, s+"\n"+want) {
		t.Errorf("%s: %q with %q: got %q (%v), want %q\nline %s", sh, c.words, s, out, err, want, cmd.String())
	}
}
