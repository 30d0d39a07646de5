// Package gnusub runs a Perl sub of GNU parallel's own script, so that a
// test can read a value as GNU parallel reads it (a duration, a size) and
// compare fan's reading. It is for tests only.
package gnusub

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Eval copies the sub named sub out of GNU parallel's script and prints,
// under perl, expr for each of args in turn as $_, one line each (expr
// must not print a newline), and returns the lines. It skips t when GNU
// parallel is not installed, and fails it when the sub is not found or
// perl fails.
func Eval(t testing.TB, sub, expr string, args []string) []string {
	t.Helper()
	par, err := exec.LookPath("parallel")
	if err != nil {
		t.Skip("GNU parallel is not installed (apt-get install parallel): differential tests skipped")
	}
	script, err := os.ReadFile(par)
	if err != nil {
		t.Fatal(err)
	}
	head := "\nsub " + sub + "("
	_, body, ok := strings.Cut(string(script), head)
	if body, _, ok = strings.Cut(body, "\n}\n"); !ok {
		t.Fatalf("no sub %s in %s", sub, par)
	}
	prog := head + body + "\n}\n" + `for (@ARGV) { print ` + expr + `, "\n" }`
	out, err := exec.Command("perl", append([]string{"-e", prog}, args...)...).Output()
	if err != nil {
		t.Fatalf("perl: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(args) {
		t.Fatalf("perl printed %d values for %d arguments: %q", len(lines), len(args), out)
	}
	return lines
}
