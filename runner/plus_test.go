package runner

import (
	"slices"
	"testing"

	"github.com/fan-run/fan/input"
)

// plusValues parses s, which must be one --plus replacement string, and
// returns its values for a job with args in slot.
func plusValues(t *testing.T, s string, args []string, seq int64, slot Slot, c *Counts) []string {
	t.Helper()
	parts, err := parseParts(s, Syntax{Replace: "{}", Plus: true, Counts: c})
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	if len(parts) != 1 || parts[0].tok == nil {
		t.Fatalf("%s: not one replacement string: %+v", s, parts)
	}
	item := input.Item{Seq: seq, Args: args}
	return parts[0].tok.values(&item, &slot)
}

// TestPlusValues: each --plus replacement string on the values that tell
// its edges apart (empty, no dot, a trailing slash, a dot file,
// multibyte). Where GNU parallel 20221122 gives the same, the wanted value
// is its output (parallel --plus printf '[%s]' STRING ::: VALUE); the
// cases where fan differs on purpose say so.
func TestPlusValues(t *testing.T) {
	cases := []struct {
		s, v, want string
	}{
		// {+/}: the directory, or nothing without a slash.
		{"{+/}", "a/b/c.d", "a/b"},
		{"{+/}", "c.d", ""},
		{"{+/}", "a/b/", "a/b"},
		{"{+/}", "/x", ""},
		{"{+/}", "", ""},
		{"{+/}", "é/ü.x", "é"},
		// {+.} {+..} {+...}: the last extensions, without their dot.
		{"{+.}", "a.b.c.d", "d"},
		{"{+.}", "abc", ""},
		{"{+.}", "a.b/c", "b/c"}, // after the last dot, slashes and all
		{"{+.}", "x.", ""},
		{"{+.}", ".bashrc", "bashrc"},
		{"{+.}", "é/ü.x", "x"},
		{"{+..}", "a.b.c.d", "c.d"},
		{"{+..}", "c.d", ""}, // fewer than two: nothing
		{"{+..}", "d/.e.f", "e.f"},
		{"{+...}", "a.b.c.d", "b.c.d"},
		{"{+...}", "d/.e.f", ""},
		// {..} {...}: without two or three extensions, unchanged with
		// fewer.
		{"{..}", "a.b.c.d", "a.b"},
		{"{..}", "c.d", "c.d"},
		{"{..}", "a/b/", "a/b/"},
		{"{..}", "d/.e.f", "d/"},
		{"{..}", "", ""},
		{"{...}", "a.b.c.d", "a"},
		{"{...}", "d/.e.f", "d/.e.f"},
		// {/..} {/...}: the basename without them.
		{"{/..}", "a.b.c.d", "a.b"},
		{"{/..}", "a/b/", ""},
		{"{/..}", "d/.e.f", ""},
		{"{/..}", "é/ü.x", "ü.x"},
		{"{/...}", "a.b.c.d", "a"},
		{"{/...}", "d/.e.f", ".e.f"},
		// {:-STR}: STR for an empty value and for "0" (Perl's false).
		{"{:-d}", "", "d"},
		{"{:-d}", "0", "d"},
		{"{:-d}", "00", "00"},
		{"{:-d}", "x", "x"},
		// {:N} {:N:M}: bytes, as GNU parallel counts them.
		{"{:1}", "abab", "bab"},
		{"{:1:2}", "abab", "ba"},
		{"{:9}", "abab", ""},
		{"{:0:0}", "abab", ""},
		{"{:1}", "", ""},
		{"{:1}", "é", "\xa9"},
		{"{:1:2}", "éaé", "\xa9a"},
		// {#RE} {##RE}: without the shortest / longest start matching.
		{"{#a}", "abab", "bab"},
		{"{#a}", "AbaB", "AbaB"},
		{"{##a.*b}", "abab", ""},
		{"{#[a-z]*b}", "abab", "ab"},
		{"{#a}", "", ""},
		// {%RE} {%%RE}: the same at the end.
		{"{%b}", "abab", "aba"},
		{"{%%b.*}", "abab", "a"},
		{"{%.z*}", "a.z.z", "a.z."},
		{"{%.z*}", "", ""},
		// fan's expressions match characters; GNU parallel's Perl matches
		// bytes, and leaves "é\xc3" of "éaé" here.
		{"{%.z*}", "éaé", "éa"},
		// {/RE/STR} and its anchored and global forms.
		{"{/a/X}", "abab", "Xbab"},
		{"{//a/X}", "abab", "XbXb"},
		{"{/#a/X}", "abab", "Xbab"},
		{"{/#a/X}", "bab", "bab"},
		{"{/%a/X}", "abab", "abab"},
		{"{/%b/X}", "abab", "abaX"},
		{"{/a/}", "abab", "bab"},
		{"{//a/X}", "éaé", "éXé"},
		{"{/a/$}", "abab", "$bab"}, // STR is literal text
		// {^RE} {^^RE} {,RE} {,,RE}: case.
		{"{^a}", "abab", "Abab"},
		{"{^^a}", "abab", "AbAb"},
		{"{,A}", "AbaB", "abaB"},
		{"{,,.}", "AbaB", "abab"},
		{"{^^.}", "", ""},
		// fan changes the case of any letter; GNU parallel's Perl, of
		// ASCII letters alone (é stays é there).
		{"{^^.}", "éaé", "ÉAÉ"},
		{"{,,.}", "ÉA", "éa"},
	}
	for _, c := range cases {
		got := plusValues(t, c.s, []string{c.v}, 1, Slot{N: 1}, nil)
		if !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s of %q = %q, want %q", c.s, c.v, got, c.want)
		}
	}
	// Positional forms take argument n.
	if got := plusValues(t, "{2..}", []string{"a.b.c", "x.y.z"}, 1, Slot{N: 1}, nil); !slices.Equal(got, []string{"x"}) {
		t.Errorf("{2..} of a.b.c x.y.z = %q, want x", got)
	}
}

// TestPlusCounts: {##} {0#} {0%} and {slot} from the run's numbers.
func TestPlusCounts(t *testing.T) {
	cases := []struct {
		s     string
		seq   int64
		slot  int
		total int64
		jobs  int
		want  string
	}{
		{"{##}", 3, 1, 12, 4, "12"},
		{"{##}", 1, 1, 0, 4, "0"}, // no input: no job, but a count all the same
		{"{0#}", 3, 1, 12, 4, "03"},
		{"{0#}", 12, 1, 12, 4, "12"},
		{"{0#}", 7, 1, 9, 4, "7"},
		{"{0#}", 5, 1, 1000, 4, "0005"},
		{"{0#}", 1, 1, 0, 4, "1"}, // at least one digit
		{"{0%}", 1, 3, 100, 12, "03"},
		{"{0%}", 1, 12, 100, 12, "12"},
		{"{0%}", 1, 3, 100, 0, "3"}, // -j 0: no width to pad to
		{"{0%}", 1, 3, 100, 5, "3"},
		{"{slot}", 1, 7, 100, 12, "7"},
	}
	for _, c := range cases {
		counts := &Counts{Total: func() int64 { return c.total }, Jobs: c.jobs}
		got := plusValues(t, c.s, []string{"a"}, c.seq, Slot{N: c.slot}, counts)
		if !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s of job %d in slot %d of %d jobs, -j %d = %q, want %q", c.s, c.seq, c.slot, c.total, c.jobs, got, c.want)
		}
	}
	// {##} needs the whole input counted first; {0%} and {slot} do not.
	for s, needs := range map[string]bool{"{##}": true, "{0#}": true, "{0%}": false, "{slot}": false} {
		c := &Counts{}
		if _, err := parseParts(s, Syntax{Replace: "{}", Plus: true, Counts: c}); err != nil {
			t.Fatal(err)
		}
		if c.NeedsTotal() != needs {
			t.Errorf("%s: NeedsTotal = %v, want %v", s, c.NeedsTotal(), needs)
		}
	}
	// Without Counts they are text.
	if parts, _ := parseParts("{##}", Syntax{Replace: "{}", Plus: true}); len(parts) != 1 || parts[0].tok != nil {
		t.Errorf("{##} without Counts: %+v, want text", parts)
	}
}

// TestPlusHost: {host} and {sshlogin} are where the job runs, ":" on this
// machine; {hgrp} and {agrp} are nothing (fan has no host groups); in a
// dry run, all four are GNU parallel's variables, as text.
func TestPlusHost(t *testing.T) {
	remote := Slot{N: 2, Host: "ssh -p 22 me@h1:2222", Addr: "h1"}
	cases := []struct {
		s    string
		slot Slot
		want []string
	}{
		{"{host}", Slot{N: 1}, []string{":"}},
		{"{sshlogin}", Slot{N: 1}, []string{":"}},
		{"{host}", remote, []string{"h1"}},
		{"{sshlogin}", remote, []string{"ssh -p 22 me@h1:2222"}},
		{"{hgrp}", remote, nil},
		{"{agrp}", Slot{N: 1}, nil},
	}
	for _, c := range cases {
		if got := plusValues(t, c.s, []string{"a"}, 1, c.slot, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s in %+v = %q, want %q", c.s, c.slot, got, c.want)
		}
	}
	// Quoted for the shell like any value; bare where it is plain.
	tpl := NewTemplate(TemplateOptions{Syntax: Syntax{Plus: true}, Words: []string{"echo", "{sshlogin}", "{host}", "|", "cat"}})
	cmd := tpl.Render(&input.Item{Seq: 1}, remote)
	if got, want := cmd.String(), `echo 'ssh -p 22 me@h1:2222' h1 | cat`; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
	tx := NewText("{host}/{sshlogin}/{hgrp}{agrp}", Syntax{Plus: true, DryRun: true})
	if got, want := tx.Render(&input.Item{Seq: 1}, remote), "${PARALLEL_SSHHOST}/${PARALLEL_SSHLOGIN}/${PARALLEL_HOSTGROUPS}${PARALLEL_ARGHOSTGROUPS}"; got != want {
		t.Errorf("dry run: %q, want %q", got, want)
	}
	// In a dry run the variables are written as they are, whatever the
	// context, as GNU parallel writes them; the template then takes the
	// shell.
	dry := NewTemplate(TemplateOptions{Syntax: Syntax{Plus: true, DryRun: true}, Words: []string{"show", "{host}", "{}"}})
	cmd = dry.Render(&input.Item{Seq: 1, Args: []string{"a b"}}, Slot{N: 1})
	if got, want := cmd.String(), `show ${PARALLEL_SSHHOST} 'a b'`; got != want {
		t.Errorf("dry run rendered %q, want %q", got, want)
	}
	// Without --plus, they are text.
	if parts, _ := parseParts("{host}", Syntax{Replace: "{}"}); len(parts) != 1 || parts[0].tok != nil {
		t.Errorf("{host} without --plus: %+v, want text", parts)
	}
}

// TestDryRunBlockVar: a dry run of --cat or --fifo writes $PARALLEL_TMP
// where an argument's string stands, as GNU parallel does (quoted under
// -q); a real run renders the block's file name, and so does a template
// without Block.
func TestDryRunBlockVar(t *testing.T) {
	item := &input.Item{Seq: 1, Args: []string{"/tmp/fan-block-x"}}
	for _, tc := range []struct {
		o    TemplateOptions
		want string
	}{
		{TemplateOptions{Syntax: Syntax{DryRun: true}, Words: []string{"cat", "{}", "{.}", "{1}", `"{}"`, "{#}"}, Block: true},
			`cat $PARALLEL_TMP $PARALLEL_TMP $PARALLEL_TMP "$PARALLEL_TMP" 1`},
		{TemplateOptions{Syntax: Syntax{DryRun: true}, Words: []string{"wc", "-l", "<"}, Block: true}, `wc -l < $PARALLEL_TMP`},
		{TemplateOptions{Syntax: Syntax{DryRun: true, Replace: "XX"}, Words: []string{"wc", "-l", "XX", "{}"}, Block: true}, `wc -l $PARALLEL_TMP {}`},
		{TemplateOptions{Syntax: Syntax{DryRun: true}, Words: []string{"cat", "{}", "x{}y"}, Block: true, Quote: true},
			`cat '$PARALLEL_TMP' x'$PARALLEL_TMP'y`},
		{TemplateOptions{Words: []string{"cat", "{}"}, Block: true}, `cat /tmp/fan-block-x`},
		{TemplateOptions{Syntax: Syntax{DryRun: true}, Words: []string{"cat", "{}"}}, `cat /tmp/fan-block-x`},
	} {
		cmd := NewTemplate(tc.o).Render(item, Slot{N: 1})
		if got := cmd.String(); got != tc.want {
			t.Errorf("%q (dry run %v, -q %v): rendered %q, want %q", tc.o.Words, tc.o.DryRun, tc.o.Quote, got, tc.want)
		}
	}
}
