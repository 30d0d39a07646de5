package runner

import (
	"os/exec"
	"strings"
	"testing"
)

// nastyStrings are items a shell would love to interpret.
var nastyStrings = []string{
	"", "a", "a b", "  lead", "trail  ", "it's", "''", "'", `"`, `say "hi"`,
	"$(touch pwned)", "`touch pwned`", "$HOME", "${HOME}", "$((1+1))", "a;b", "a|b", "a&b",
	"a&&b", ">x", "<x", "2>&1", "*", "*.go", "?", "[a]", "{a,b}", "~", "~root", "-n", "--help",
	"-", "!x", "#c", "a\\b", "\\", "\\\\", "\\n", "line1\nline2", "\n", "\t", "a\tb", "\r\n",
	"é", "café ✓", "\xff\xfe", "\xc3\x28", "a=b", "x=$(id)", "%s", "%", "\x01\x7f",
}

// FuzzQuote checks that the shell reads a quoted value back as exactly the
// value: /bin/sh -c "printf %s QUOTED" prints it byte for byte; and, in
// every context a template can put it in (checkContexts), under /bin/sh and
// bash, that the job prints it exactly or is refused, and never runs it.
func FuzzQuote(f *testing.F) {
	for _, s := range append(nastyStrings, hostileStrings...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("argv cannot hold a NUL byte")
		}
		q := quote(s)
		if string(appendQuote([]byte("x"), s)) != "x"+q {
			t.Fatalf("appendQuote and Quote differ for %q", s)
		}
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+q).Output()
		if err != nil {
			t.Fatalf("sh -c 'printf %%s %s': %v", q, err)
		}
		if string(out) != s {
			t.Fatalf("Quote(%q) = %s, which the shell reads as %q", s, q, out)
		}
		checkContexts(t, s)
	})
}

func TestQuotePlainWordsBare(t *testing.T) {
	for _, s := range []string{"a", "file.txt", "dir/f-1_2", "a,b:c@d+e%f", "42"} {
		if q := quote(s); q != s {
			t.Errorf("Quote(%q) = %q, want it bare", s, q)
		}
	}
	for s, want := range map[string]string{"": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$x": "'$x'"} {
		if q := quote(s); q != want {
			t.Errorf("Quote(%q) = %q, want %q", s, q, want)
		}
	}
}
