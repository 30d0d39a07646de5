package runner

import (
	"strings"
	"testing"

	"github.com/fan-run/fan/input"
)

// The parsers of fan's flag values take anything a user (or a config
// file) may type: none may panic, and what they accept must be usable.

func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{"30", "1.5s", "2m", "1m30", "1d2h", "250ms", "150%", "0", "%", "-1", "1e9d", "9999999999999999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		to, err := ParseTimeout(s)
		if err == nil && (to.Fixed < 0 || to.Percent < 0) {
			t.Fatalf("ParseTimeout(%q) = %+v: negative", s, to)
		}
	})
}

func FuzzParseHalt(f *testing.F) {
	for _, s := range []string{"never", "now,fail=1", "soon,success=50%", "done=3", "0", "1", "2", "-1", "-2", "99%", "now,fail=", "soon,=5", "now,fail=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHalt(s)
		if err == nil && (h.Count < 0 || h.Percent && h.Count > 100) {
			t.Fatalf("ParseHalt(%q) = %+v", s, h)
		}
	})
}

func FuzzParseTermSeq(f *testing.F) {
	for _, s := range []string{DefaultTermSeq, "KILL", "SIGINT,100,9,0", "TERM,", ",", "TERM,-1", "TERM,1e20", "65,10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seq, err := ParseTermSeq(s)
		if err != nil {
			return
		}
		if len(seq) == 0 {
			t.Fatalf("ParseTermSeq(%q) accepted an empty sequence", s)
		}
		for _, st := range seq {
			if st.Signal <= 0 || st.Wait < 0 {
				t.Fatalf("ParseTermSeq(%q) = %+v", s, seq)
			}
		}
	})
}

// FuzzTemplate: any command template, with any item, either is refused
// (Err) or renders, through the shell parser and the quoting, without a
// panic, and is sized; so in a dry run with --plus, whose {host} is shell
// text.
func FuzzTemplate(f *testing.F) {
	for _, c := range [][2]string{
		{"echo {}", "a b"}, {"echo '{}' \"{}\" $({}) `{}`", "x; rm -rf ~"}, {"cat <<EOF\n{}\nEOF", "$(reboot)"},
		{"case {} in {}) ;; esac", "*"}, {"echo ${x#{}}", "a'b"}, {"echo {.} {/} {//} {/.} {#} {%} {1} {2.}", "dir/f.txt"},
		{"echo $(( {} * 2 ))", "3"}, {"# {}", "\n"}, {"echo {", "}"}, {"sh -c 'echo \"$1\"' _ {}", "q\"'"},
		{"echo `{host}` $'{sshlogin}' {}", "a"}, {"cat <<{host}\n{}\n{host}", "b"},
	} {
		f.Add(c[0], c[1], false)
		f.Add(c[0], c[1], true)
	}
	f.Fuzz(func(t *testing.T, tmpl, item string, quote bool) {
		it := input.Item{Seq: 1, Args: []string{item, item}, Records: []string{item}}
		for _, sx := range []Syntax{{}, {Plus: true, DryRun: true}} {
			tp := NewTemplate(TemplateOptions{Syntax: sx, Words: strings.Split(tmpl, " "), Quote: quote})
			if tp.Err() == nil {
				tp.Render(&it, Slot{N: 1})
				_, cost := tp.Size()
				cost(item, false)
			}
		}
	})
}
