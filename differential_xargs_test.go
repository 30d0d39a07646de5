package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// showArgs prints each argument of a command in brackets, one command per
// line, so that splitting and packing show in stdout.
var showArgs = []string{"sh", "-c", `for a; do printf '[%s]' "$a"; done; echo`, "_"}

func withShow(flags ...string) []string { return append(flags, showArgs...) }

// xargsCases run through GNU xargs and fan --xargs alike: same stdin, same
// arguments; stdout and the exit status must agree.
var xargsCases = []struct {
	name  string
	stdin string
	args  []string
}{
	// splitting on blanks and newlines
	{"blanks", "a b\tc\n  d\n\n e  \n", withShow()},
	{"empty input runs once", "", withShow()},
	{"blank input runs once", " \n\t\n", withShow()},
	{"other spaces are not separators", "a\vb\fc\rd\n", withShow()},
	{"leading vertical space is skipped", "a \v\fb\n", withShow()},
	{"no final newline", "a b", withShow()},
	// quotes and backslashes
	{"double quotes", `a"b c"d "e f"` + "\n", withShow()},
	{"single quotes", `'a b' c'd e'f` + "\n", withShow()},
	{"quotes inside quotes", `"it's" 'say "hi"'` + "\n", withShow()},
	{"empty quotes", `a "" '' b` + "\n", withShow()},
	{"empty quotes at the end of a line", `a ""` + "\n" + `''` + "\nb\n", withShow()},
	{"empty quotes at the end of input", `a ""`, withShow()},
	{"backslash escapes", `a\ b c\\d \"e\'` + "\n", withShow()},
	{"backslash newline", "a\\\nb c\n", withShow()},
	{"backslash at the end", `a b\`, withShow()},
	{"backslash in quotes is literal", `"a\b" 'c\d'` + "\n", withShow()},
	{"unmatched double quote", "a b\n\"c d\n", withShow()},
	{"unmatched single quote", "a 'b\nc\n", withShow()},
	{"unmatched quote at the end", `a "b`, withShow()},
	{"lone quote at the end", `a "`, withShow()},
	{"unmatched quote with -n", "a b \"c\n", withShow("-n", "2")},
	{"unmatched quote with -x", "a b \"c\n", withShow("-x", "-n", "1")},
	{"NUL is cut", "x\x00y z\n", withShow()},
	// -d takes one character or one escape, as xargs's.
	{"-d empty", "a b\n", []string{"-d", "", "echo"}},
	{"-d two characters", "a b\n", []string{"-d", "ab", "echo"}},
	{"-d unknown escape", "a b\n", []string{"-d", "\\q", "echo"}},
	{"-d \\v", "xAy\vz\n", []string{"-d", "\\v", "-n1", "echo"}},
	{"-d octal", "xAy\vz\n", []string{"-d", "\\101", "-n1", "echo"}},
	{"-d octal with a zero", "xAy\vz\n", []string{"-d", "\\0101", "-n1", "echo"}},
	{"-d hex", "xAy\vz\n", []string{"-d", "\\x41", "-n1", "echo"}},
	{"-d out of range", "a\n", []string{"-d", "\\400", "echo"}},
	// -P is a count, as xargs's: no share of the CPUs, nothing negative.
	{"-P negative", "a\n", []string{"-P", "-1", "echo"}},
	{"-P percentage", "a\n", []string{"-P", "50%", "echo"}},
	{"-n in hex", "a\n", []string{"-n", "0x10", "echo"}},
	// -L implies -x: a line that does not fit is an error, not split.
	{"-L implies -x", "x\na b c d e f g\ny\n", []string{"-L1", "-s", "14", "echo"}},
	{"-L with an unmatched quote", "1\n2 \"3\n", []string{"-L1", "echo", "x"}},
	// Bad input read ahead of a command that failed or stopped the run:
	// xargs's status for the command wins (it never reads past a stop).
	{"failed command, then an unmatched quote", "1\n2\n3\n\"x", []string{"-n1", "sh", "-c", "echo $0; [ $0 = 1 ] && exit 5; exit 0"}},
	{"exit 255 before an unmatched quote", "1 2 \"3", []string{"-n1", "sh", "-c", "echo $0; exit 255"}},
	{"killed before an unmatched quote", "1 2 \"3", []string{"-n1", "sh", "-c", "echo $0; kill -9 $$"}},
	{"failed command, then an item too long", "1\n2\naaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", []string{"-s", "20", "-n1", "false"}},
	// -E
	{"-E stops", "a b\nEOF c\nd\n", withShow("-E", "EOF")},
	{"-E mid line", "a EOF b\nc\n", withShow("-E", "EOF")},
	{"-E quoted still matches", "a \"EOF\" b\n", withShow("-E", "EOF")},
	{"-E first item", "EOF\na\n", withShow("-E", "EOF")},
	{"-E at the end without newline", "a EOF", withShow("-E", "EOF")},
	{"-E with -L", "a b\nc d\ne\n", withShow("-L", "2", "-E", "d")},
	// -n, -L, -I
	{"-n 2", "a b c d e\n", withShow("-n", "2")},
	{"-n 1", "a b\nc\n", withShow("-n1")},
	{"-L 2", "a b\nc\nd e f\ng\n", withShow("-L", "2")},
	{"-L trailing blank goes on", "a \nb\nc\n", withShow("-L", "1")},
	{"-L escaped trailing blank goes on", "a\\ \nb\nc\n", withShow("-L", "1")},
	{"-L empty quotes line", "a\n\"\"\nb\nc\n", withShow("-L", "2")},
	{"-I whole lines", "  a b  \n\n c\n", []string{"-I", "{}", "sh", "-c", `printf '<%s>\n' "$1"`, "_", "{}"}},
	{"-I in several words", "a b\nc\n", []string{"-I", "%", "echo", "x%y", "%", "-%-"}},
	{"-I empty quotes", "\"\"\nb\n", []string{"-I{}", "echo", "<{}>"}},
	{"-I empty input", "", []string{"-I{}", "echo", "ran"}},
	{"-I with -n 1", "a b\nc\n", []string{"-n1", "-I{}", "echo", "<{}>"}},
	{"-n after -I wins", "a b c\n", []string{"-I{}", "-n2", "echo", "<{}>"}},
	{"-L after -n wins", "a b c\nd\n", withShow("-n1", "-L2")},
	// -0, -d, -r
	{"-0", "a b\x00'c\x00\x00d\n", withShow("-0")},
	{"-0 -L 2", "a\x00b\x00\x00c\x00", withShow("-0", "-L2")},
	{"-0 ignores -E", "a\x00EOF\x00b", withShow("-0", "-E", "EOF")},
	{"-d", "a,b,,'c\"\n", withShow("-d", ",")},
	{"-d newline", "a b\n'c\n\n", withShow("-d", `\n`)},
	{"-r empty", "", withShow("-r")},
	{"-r blank", "\n \n", withShow("-r")},
	{"-r with items", "a\n", withShow("-r")},
	// bad counts are errors (status 1)
	{"-n 0", "a\n", withShow("-n", "0")},
	{"-L 0", "a\n", withShow("-L", "0")},
	{"-s 0", "a\n", withShow("-s", "0")},
	// default command: echo
	{"no command is echo", "a  b\nc\n", nil},
	{"-n with echo", "a b c\n", []string{"-n", "2"}},
	// -s and -x
	{"-s packs", "a b c d e f g h\n", []string{"-s", "20", "echo"}},
	{"-s with -n", "a b c d e f g h\n", []string{"-s", "20", "-n", "3", "echo"}},
	{"-s too small for an item", "b aaaaaaaaaaaaaaaaaaaaaaaaaaaaa c\n", []string{"-s", "20", "echo"}},
	{"-s too small for the command", "a\n", []string{"-s", "6", "echo"}},
	{"-s just fits", "a\n", []string{"-s", "7", "echo"}},
	{"-x with -n within -s", "a b c d e f g h\n", []string{"-s", "14", "-n", "3", "-x", "echo"}},
	{"-x with -n beyond -s", "a b c d e f g h\n", []string{"-s", "10", "-n", "3", "-x", "echo"}},
	{"-x with -L beyond -s", "a b c d\ne f g h\n", []string{"-s", "14", "-L", "1", "-x", "echo"}},
	{"-L beyond -s splits", "a b c d\ne f g h\n", []string{"-s", "14", "-L", "1", "echo"}},
	{"-I within -s", "abcdefghij\n", []string{"-I{}", "-s", "20", "echo", "x{}y{}"}},
	{"-I beyond -s", "abcdefghijkl\n", []string{"-I{}", "-s", "20", "echo", "x{}y{}"}},
	// exit statuses
	// The deprecated optional-argument forms old scripts still use.
	{"-i is -I {}", "a\nb\n", []string{"-i", "echo", "x{}y"}},
	{"-iR is -I R", "a\nb\n", []string{"-iZZ", "echo", "xZZy"}},
	{"--replace is -I {}", "a\nb\n", []string{"--replace", "echo", "x{}y"}},
	{"-l is -L 1", "a b\nc\nd\n", []string{"-l", "echo"}},
	{"-lN is -L N", "a\nb\nc\n", []string{"-l2", "echo"}},
	{"-eSTR is -E STR", "a\nSTOP\nb\n", []string{"-eSTOP", "echo"}},
	{"-e is no end string", "a\n_\nb\n", []string{"-e", "echo"}},
	{"-i after the command is the command's", "a\n", []string{"echo", "-i", "{}"}},
	{"exit 1 is 123", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; exit 1"}},
	{"exit 125 is 123", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; exit 125"}},
	{"exit 126 from the command is 123", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; exit 126"}},
	{"exit 127 from the command is 123", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; exit 127"}},
	{"exit 255 is 124 and stops", "a\nb\nc\n", []string{"-n1", "sh", "-c", "echo $0; test $0 = b && exit 255; exit 0"}},
	{"a failure before 255 gives 123", "a\nb\nc\n", []string{"-n1", "sh", "-c", "echo $0; test $0 = a && exit 3; test $0 = b && exit 255; exit 0"}},
	// ... unless the command that exits 255 (or dies by a signal) is the
	// last: xargs meets it in its wait at exit, and 124 (125) stands.
	{"a failure before a last 255 gives 124", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; test $0 = a && exit 3; exit 255"}},
	{"a failure before a last signal gives 125", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; test $0 = a && exit 3; kill $$"}},
	{"a failure before a signal with more input gives 123", "a\nb\nc\n", []string{"-n1", "sh", "-c", "echo $0; test $0 = a && exit 3; kill $$"}},
	{"killed is 125 and stops", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; kill -9 $$"}},
	{"terminated is 125", "a\nb\n", []string{"-n1", "sh", "-c", "echo $0; kill -TERM $$"}},
	{"not found is 127", "a\nb\n", []string{"-n1", "fan-no-such-command"}},
	{"not executable is 126", "a\n", []string{"/etc/passwd"}},
	{"a directory is 126", "a\n", []string{"/etc"}},
	{"-I does not replace the program", "true\n", []string{"-I{}", "{}"}},
	// -P, --process-slot-var
	{"-P 3 slots", "x y z\n", []string{"-P3", "-n1", "--process-slot-var=SLOT", "sh", "-c", `sleep 1; echo $SLOT`}},
	{"slot var with -P 1", "a b\n", []string{"-n1", "--process-slot-var", "SLOT", "sh", "-c", `echo $SLOT`}},
}

// unordered are the cases whose commands run at once: their output lines
// are compared in sorted order.
var unordered = map[string]bool{"-P 3 slots": true}

// TestDifferentialXargs runs every case through GNU xargs and fan --xargs
// and compares their stdout and exit status (stderr wording differs).
func TestDifferentialXargs(t *testing.T) {
	t.Parallel()
	xargs := gnuXargs(t)
	for _, c := range xargsCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			wantOut, wantCode := runWith(t, c.stdin, xargs, c.args...)
			gotOut, gotCode := runWith(t, c.stdin, "fan", append([]string{"--xargs"}, c.args...)...)
			if unordered[c.name] {
				wantOut, gotOut = sortLines(wantOut), sortLines(gotOut)
			}
			if gotOut != wantOut || gotCode != wantCode {
				t.Errorf("stdin %q, args %q:\nxargs: status %d, stdout %q\nfan:   status %d, stdout %q",
					c.stdin, c.args, wantCode, wantOut, gotCode, gotOut)
			}
		})
	}
	if len(xargsCases) < 40 {
		t.Errorf("only %d cases", len(xargsCases))
	}
}

// parallelCases run through GNU parallel and fan alike, one job at a time
// unless the case sets -j (with -k, so that the order is comparable): with
// several job slots both spread the item the input ends in over them.
var parallelCases = []struct {
	name  string
	stdin string
	args  []string
}{
	{"-m packs", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", []string{"-m", "-s", "20", "echo"}},
	{"-m several {}", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", []string{"-m", "-s", "20", "echo", "{}", "a", "{}"}},
	{"-X context", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", []string{"-X", "-s", "30", "echo", "x{}y"}},
	{"-X quoted items", "a b\nc\n", []string{"-X", "echo", "pre{}post"}},
	{"-m quoted items", "a b\nc\n", []string{"-m", "echo", "pre{}post"}},
	{"-X with -n", "1\n2\n3\n4\n5\n", []string{"-X", "-n", "2", "echo", "x{}y"}},
	{"-m with -n", "1\n2\n3\n4\n5\n", []string{"-m", "-n", "2", "echo"}},
	{"-X modifiers", "a.c\nd/b.c\n", []string{"-X", "echo", "{.}.x", "{/}"}},
	{"-X job number", "1\n2\n3\n", []string{"-X", "-s", "16", "echo", "{#}:{}"}},
	{"-X no {}", "1\n2\n3\n", []string{"-X", "echo", "x"}},
	{"-X empty input", "", []string{"-X", "echo", "x"}},
	{"-X -r", "a\n\nb\n", []string{"-r", "-X", "echo", "y{}"}},
	{"-L 1 trailing blank", "a \nb\nc\nd e\n", []string{"-L1", "echo"}},
	{"-L 2", "a \nb\nc\nd e\n", []string{"-L2", "echo", "{}", "x"}},
	{"-L 2 -X", "a \nb\nc\nd e\n", []string{"-L2", "-X", "echo", "{}x"}},
	{"-L 2 positional", "a\nb\nc\n", []string{"-L2", "echo", "{1}-{2}"}},
	{"-L with -s", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", []string{"-L2", "-s", "12", "echo"}},
	{"-x -L fits", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", []string{"-L2", "-x", "-s", "12", "echo"}},
	{"-x -m -n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", []string{"-m", "-n", "3", "-x", "-s", "12", "echo"}},
	{"-m too long", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\n", []string{"-m", "-s", "20", "echo"}},
	{"-s alone too long", "aaaaaaaaa\nb\n", []string{"-s", "12", "echo"}},
	{"-m spread over 4 slots", seqLines(10), []string{"-j4", "-k", "-m", "echo"}},
	{"-m spread, job numbers", seqLines(10), []string{"-j4", "-k", "-m", "echo", "{#}", "{}"}},
	{"-X spread over 3 slots", seqLines(12), []string{"-j3", "-k", "-X", "-s", "30", "echo", "x{}y"}},
	{"-m -n spread", seqLines(8), []string{"-j3", "-k", "-m", "-n", "2", "echo"}},
	{"-m -L spread", seqLines(6), []string{"-j2", "-k", "-m", "-L", "2", "echo"}},
	{"-m -s spread", seqLines(12), []string{"-j3", "-k", "-m", "-s", "10", "echo"}},
	{"-m -j0: one item a job at the end", seqLines(5), []string{"-j0", "-k", "-m", "echo"}},
	{"-m --colsep spreads records", "a,b\nc,d\ne,f\ng,h\n", []string{"-j3", "-k", "-m", "--colsep", ",", "echo"}},
	{"-X --colsep spreads records", "a,b\nc,d\ne,f\ng,h\n", []string{"-j3", "-k", "-X", "--colsep", ",", "echo", "x{1}y"}},
	{"-m --colsep -n counts records", "a,b\nc,d\ne,f\n", []string{"-m", "--colsep", ",", "-n", "2", "echo"}},
	{"-m -n 0: packed, spread, passed nothing", seqLines(7), []string{"-j3", "-k", "-m", "-n", "0", "echo", "x", "{}"}},
	{"-X -n 0", seqLines(2), []string{"-j3", "-k", "-X", "-n", "0", "echo", "x{}y"}},
	{"-m --colsep -j0", "a,b\nc,d\ne,f\ng,h\n", []string{"-j0", "-k", "-m", "--colsep", ",", "echo", "{2}"}},
	// A dry run's {host} is the text ${PARALLEL_SSHHOST}, counted per argument.
	{"-s dry run {host}", "a\n", []string{"--dry-run", "--plus", "-s", "40", "echo", "{host}"}},
	{"-s dry run {host} too long", "a\n", []string{"--dry-run", "--plus", "-s", "24", "echo", "{host}"}},
	{"-m dry run {host}", seqLines(12), []string{"--dry-run", "--plus", "-m", "-s", "60", "echo", "{host}", "{}"}},
	{"-X dry run {host}", seqLines(12), []string{"--dry-run", "--plus", "-X", "-s", "200", "echo", "x{host}y{}", "'{host} {sshlogin}'"}},
}

// seqLines is seq n's output.
func seqLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// TestDifferentialPacking compares fan's -X, -m, -L, -s and -x with GNU
// parallel's: stdout and exit status.
func TestDifferentialPacking(t *testing.T) {
	t.Parallel()
	parallel, err := exec.LookPath("parallel")
	if err != nil {
		t.Skip("GNU parallel is not installed: the -X/-m differential test needs it")
	}
	for _, c := range parallelCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := c.args
			if !strings.HasPrefix(args[0], "-j") {
				args = append([]string{"-j1"}, args...)
			}
			wantOut, wantCode := runWith(t, c.stdin, parallel, append([]string{"--will-cite"}, args...)...)
			gotOut, gotCode := runWith(t, c.stdin, "fan", args...)
			if gotOut != wantOut || gotCode != wantCode {
				t.Errorf("stdin %q, args %q:\nparallel: status %d, stdout %q\nfan:      status %d, stdout %q",
					c.stdin, c.args, wantCode, wantOut, gotCode, gotOut)
			}
		})
	}
}

// runWith runs a program with stdin and returns its stdout and exit status.
func runWith(t *testing.T, stdin, prog string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Stdin = strings.NewReader(stdin)
	return stdoutAndStatus(t, cmd)
}
