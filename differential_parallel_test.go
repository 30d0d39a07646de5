package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fan-run/fan/internal/gnusub"
	"github.com/fan-run/fan/runner"
)

// diffCase is one command line run through both fan and GNU parallel.
type diffCase struct {
	name  string
	args  []string // after the program name; -j2 is put in front
	stdin string
	// sorted compares the lines of stdout sorted: the order of unordered
	// output is not promised. Cases with -k compare stdout exactly.
	sorted bool
	// rows masks the Starttime and JobRuntime of --results rows on stdout
	// (-.csv, -.tsv, -.json): times differ from run to run.
	rows bool
	// joblog masks the Starttime and JobRuntime of --joblog - lines on
	// stdout.
	joblog bool
	// anyStatus compares stdout alone, where the exit statuses differ on
	// purpose (the case says why).
	anyStatus bool
}

// diffCases is the table. Cases where fan deliberately differs from GNU
// parallel are left out, each with the reason:
//   - --dry-run and -t of items with quotes: both quote, but GNU parallel
//     writes ' as '"'"' and fan as '\” (same meaning, other bytes).
//   - GNU parallel runs templates with $SHELL, fan with /bin/sh: the
//     cases set SHELL=/bin/sh so that both use the same shell (echo
//     builtins, for one, differ between shells).
//   - a template whose program is a shell builtin and whose items start
//     with - is covered only through printf: that is where fan picks the
//     shell path on purpose, to match it.
//   - an empty source among several: fan's product is empty, GNU parallel
//     gives the empty source one empty value (see README, Input).
//   - exit status 101 (more than 100 failures): GNU parallel needs many
//     seconds for 105 jobs; testdata/script/exit_status.txtar checks fan's.
//   - {%} with more than one job at a time: which slot a job gets depends
//     on timing in both.
//   - {n} and {-n} under -I: GNU parallel derives them from {}, so -I XX
//     makes them literal text (and -I {x} makes {1x} the first argument);
//     fan keeps them working, as the README says.
var diffCases = []diffCase{
	// Input sources.
	{name: "stdin", args: []string{"echo"}, stdin: "a\nb\nc\n", sorted: true},
	{name: "stdin-no-final-newline", args: []string{"-k", "echo"}, stdin: "a\nb"},
	{name: "literal", args: []string{"echo", ":::", "a", "b", "c"}, sorted: true},
	{name: "keep-order", args: []string{"-k", "echo", ":::", "a", "b", "c", "d", "e"}},
	{name: "argsep-file", args: []string{"-k", "echo", "::::", "items.txt"}},
	{name: "arg-file", args: []string{"-k", "-a", "items.txt", "echo"}},
	{name: "arg-file-stdin", args: []string{"-k", "-a", "-", "echo"}, stdin: "p\nq\n"},
	{name: "argsep-file-stdin", args: []string{"-k", "echo", "::::", "-"}, stdin: "p\nq\n"},
	{name: "two-arg-files", args: []string{"-k", "-a", "items.txt", "-a", "nums.txt", "echo"}},
	{name: "arg-file-then-literal", args: []string{"-k", "-a", "items.txt", "echo", ":::", "p", "q"}},
	{name: "literal-and-file", args: []string{"-k", "echo", ":::", "a", "b", "::::", "nums.txt"}},
	{name: "product", args: []string{"-k", "echo", ":::", "a", "b", ":::", "1", "2", "3"}},
	{name: "product-three", args: []string{"-k", "echo", "{3}{2}{1}", ":::", "a", "b", ":::", "1", "2", ":::", "x", "y"}},
	{name: "product-unordered", args: []string{"echo", "{1}-{2}", ":::", "a", "b", ":::", "1", "2"}, sorted: true},
	{name: "link", args: []string{"-k", "--link", "echo", ":::", "a", "b", "c", ":::", "1", "2"}},
	{name: "link-first-shorter", args: []string{"-k", "--link", "echo", ":::", "a", ":::", "1", "2", "3"}},
	{name: "link-plus", args: []string{"-k", "echo", ":::", "a", "b", "c", ":::+", "1", "2"}},
	{name: "link-plus-product", args: []string{"-k", "echo", "{3}{1}{2}", ":::", "a", "b", ":::+", "1", "2", ":::", "x", "y"}},
	{name: "product-link-plus", args: []string{"-k", "echo", ":::", "x", "y", ":::", "a", "b", ":::+", "1", "2", "3"}},
	{name: "arg-sep", args: []string{"-k", "--arg-sep", ",,", "echo", ":::", ",,", "a", "b", ",,+", "1", "2"}},
	{name: "arg-file-sep", args: []string{"-k", "--arg-file-sep", "//", "echo", ":::", "a", "::::", "//", "nums.txt"}},
	{name: "link-three", args: []string{"-k", "--link", "echo", "{1}{2}{3}", ":::", "a", "b", ":::", "1", "2", "3", "4", ":::", "x"}},
	{name: "null", args: []string{"-k", "-0", "printf", "[%s]\\\\n"}, stdin: "a\x00b c\x00d\ne\x00"},
	{name: "null-no-final", args: []string{"-k", "--null", "echo"}, stdin: "a\x00b"},
	{name: "delimiter", args: []string{"-k", "-d", ",", "echo"}, stdin: "a,b,c"},
	{name: "delimiter-tab", args: []string{"-k", "-d", "\\t", "echo"}, stdin: "a\tb\tc\n"},
	{name: "delimiter-nul-escape", args: []string{"-k", "-d", "\\0", "echo"}, stdin: "a\x00b\x00"},
	{name: "delimiter-newline-escape", args: []string{"-k", "-d", "\\n", "echo"}, stdin: "a b\nc\n"},
	{name: "delimiter-octal", args: []string{"-k", "-d", "\\101", "echo"}, stdin: "xAyAz"},
	{name: "delimiter-octal-tab", args: []string{"-k", "-d", "\\011", "echo"}, stdin: "a\tb\tc"},
	{name: "colsep", args: []string{"-k", "--colsep", ",", "echo", "{2}", "{1}"}, stdin: "a,b\nc,d\n"},
	{name: "colsep-regex", args: []string{"-k", "--colsep", "[:;]+", "echo", "{3}-{1}"}, stdin: "a:b;;c\nx;y:z\n"},
	{name: "colsep-append", args: []string{"-k", "--colsep", ",", "echo"}, stdin: "a,b,c\n"},
	{name: "colsep-modifiers", args: []string{"-k", "--colsep", " ", "echo", "{1.}", "{2/}", "{2//}", "{1/.}"}, stdin: "d/a.txt e/f/g.c\n"},
	{name: "colsep-trims", args: []string{"-k", "--colsep", ",", "echo", "[{1}]", "[{2}]", "[{}]"}, stdin: "a, b\n p,q \n"},
	{name: "colsep-crlf", args: []string{"-k", "--colsep", ",", "echo", "[{2}]"}, stdin: "a,b\r\nc,d\r\n"},
	{name: "colsep-trim-none", args: []string{"-k", "--colsep", ",", "--trim", "n", "echo", "[{2}]"}, stdin: "a, b\n"},
	{name: "colsep-trim-tag", args: []string{"-k", "--colsep", ",", "--tag", "echo", "x"}, stdin: "a, b\n"},
	{name: "colsep-short", args: []string{"-k", "-C", ",", "echo", "{2}"}, stdin: "a,b\n"},
	{name: "trim-both", args: []string{"-k", "--trim", "lr", "echo", "[{}]"}, stdin: " a \t\n"},
	{name: "trim-left", args: []string{"-k", "--trim", "l", "echo", "[{}]"}, stdin: " a \n"},
	{name: "trim-right", args: []string{"-k", "--trim", "r", "echo", "[{}]"}, stdin: " a \n"},
	{name: "no-run-if-empty", args: []string{"-k", "-r", "echo"}, stdin: "a\n\n  \nb\n\t\n"},
	{name: "empty-items-run", args: []string{"-k", "echo", "[{}]"}, stdin: "a\n\nb\n"},
	// Batching.
	{name: "max-args", args: []string{"-k", "-n", "2", "echo", ":::", "a", "b", "c", "d", "e"}},
	{name: "max-args-positional", args: []string{"-k", "-n", "2", "echo", "{2}", "{1}", ":::", "a", "b", "c"}},
	{name: "max-args-all", args: []string{"-k", "-n", "3", "echo", "[{}]", ":::", "a", "b", "c", "d"}},
	{name: "max-args-stdin", args: []string{"-k", "--max-args", "2", "echo"}, stdin: "1\n2\n3\n"},
	{name: "max-args-link", args: []string{"-k", "--link", "-n", "2", "echo", ":::", "a", "b", "c", ":::", "1", "2", "3"}},
	{name: "max-args-product", args: []string{"-k", "-n", "2", "echo", ":::", "a", "b", ":::", "1", "2"}},
	{name: "max-args-zero", args: []string{"-k", "-n", "0", "echo", "x", "x{}y"}, stdin: "a\nb\nc\n"},
	{name: "max-replace-args", args: []string{"-k", "-N", "2", "echo", "x{}y", "{2}-{1}", ":::", "a", "b", "c"}},
	{name: "max-replace-args-zero", args: []string{"-k", "-N0", "echo", "x"}, stdin: "a\nb\n"},
	{name: "max-replace-args-product", args: []string{"-k", "-N2", "echo", "x{}y", ":::", "a", "b", ":::", "1", "2"}},
	{name: "max-replace-args-colsep", args: []string{"-k", "--colsep", ",", "-N1", "echo", "x{}y", "{2}"}, stdin: "a,b\nc,d\n"},
	{name: "pack-trailing-blank-m", args: []string{"-k", "-j1", "-m", "printf", "[%s]"}, stdin: "a \nb\nc\n"},
	{name: "pack-trailing-blank-L", args: []string{"-k", "-j1", "-L", "1", "printf", "[%s]"}, stdin: "a \nb\nc\n"},
	{name: "max-lines-context", args: []string{"-k", "-j1", "-L", "2", "printf", "[%s]", "x{}y", "{}", "{1}-{2}", "\\;", "echo"}, stdin: "a b\nc\nd\n"},
	{name: "max-lines-context-continued", args: []string{"-k", "-j1", "-L", "1", "printf", "[%s]", "x{}y", "\\;", "echo"}, stdin: "a b \nc\nd\n"},
	{name: "max-lines-multi-no-context", args: []string{"-k", "-j1", "-L", "2", "-m", "printf", "[%s]", "x{}y", "\\;", "echo"}, stdin: "a\nb\nc\n"},
	{name: "max-args-seq", args: []string{"-k", "-n", "2", "echo", "{#}:{}", ":::", "a", "b", "c"}},
	// Replacement strings.
	{name: "replace-ext", args: []string{"-k", "echo", "[{.}]", ":::", "a.b/c.d.e", "file", ".bashrc", "a/.b", "..", "./x.y", "a.b.c/"}},
	{name: "replace-base", args: []string{"-k", "echo", "[{/}]", ":::", "a.b/c.d.e", "file", "a/", "/", "a//b", "/a"}},
	{name: "replace-dir", args: []string{"-k", "echo", "[{//}]", ":::", "a.b/c.d.e", "file", "a/", "/", "a//b", "/a", "a/b/", "//a"}},
	{name: "replace-base-ext", args: []string{"-k", "echo", "[{/.}]", ":::", "a.b/c.d.e", "file", ".bashrc", "a/b.", "a/.x.y"}},
	{name: "replace-seq", args: []string{"-k", "echo", "{#}", ":::", "a", "b", "c"}},
	{name: "replace-slot-one-job", args: []string{"-j1", "-k", "echo", "{%}", "{#}", ":::", "a", "b"}},
	{name: "replace-positional-product", args: []string{"-k", "echo", "{2}", "{1}", "{2.}", ":::", "a", "b", ":::", "x.c", "y.d"}},
	{name: "replace-negative-product", args: []string{"-k", "echo", "[{-1}]", "[{-2}]", ":::", "a", "b", ":::", "1", "2"}},
	{name: "replace-negative-modifiers", args: []string{"-k", "echo", "{-1.}", "{-1/}", "{-1//}", "{-1/.}", "{-2/}", "{-2//}", ":::", "d.x/f.tar.gz", "a/", ":::", "a/b.c", ".bashrc"}},
	{name: "replace-negative-beyond", args: []string{"-k", "printf", "[%s]\\n", "{-3}", "{-4}", "{-5}", "x{-5}y", ":::", "a", ":::", "b"}},
	{name: "replace-negative-max-args", args: []string{"-k", "-n", "2", "echo", "[{-1}]", "[{-2}]", "[{-3}]", ":::", "a", "b", "c"}},
	{name: "replace-negative-max-args-product", args: []string{"-k", "-n", "2", "echo", "{-1}", "{-3}", "{-5}", ":::", "a", "b", ":::", "1", "2"}},
	{name: "replace-negative-max-args-zero", args: []string{"-k", "-n", "0", "echo", "x", "[{-1}]"}, stdin: "a\nb\n"},
	{name: "replace-negative-colsep", args: []string{"-k", "--colsep", ",", "printf", "[%s]", "{-1}", "{-2}", "{-3}", "{-4}", ";", "echo"}, stdin: "a,b,c\nx,y\nd,,f\nq,\n"},
	{name: "replace-negative-shell", args: []string{"-k", "printf '[%s]\\n' {-1} {-2} | cat", ":::", "a b", "c'd", ":::", "$(echo x)", "*"}},
	{name: "replace-negative-context", args: []string{"-k", "-j1", "-X", "echo", "x{}y", "[{-1}]", "x{}y{-2/}", ":::", "a", "d/b", "c"}},
	{name: "replace-negative-max-replace-args", args: []string{"-k", "-N", "2", "echo", "x{}y", "{-1}-{-2}", ":::", "a", "b", "c"}},
	{name: "tagstring-negative", args: []string{"-k", "--tagstring", "{-1}:{-2/}", "echo", "x", ":::", "a", ":::", "d/b", "c"}},
	{name: "replace-twice", args: []string{"-k", "echo", "{}{}", "{}", ":::", "a", "b"}},
	{name: "replace-in-word", args: []string{"-k", "echo", "pre-{}-post", ":::", "a"}},
	{name: "replace-I", args: []string{"-k", "-I", "XX", "echo", "pre-XX-post", "{}", ":::", "a", "b"}},
	{name: "replace-I-brace", args: []string{"-k", "-I", "{x}", "echo", "{x}/{.}", ":::", "a.c"}},
	{name: "append", args: []string{"-k", "printf", "[%s]\\\\n", ":::", "a", "b c"}},
	// Tags: an empty tag still ends with its tab.
	{name: "tag", args: []string{"-k", "--tag", "echo", "x", ":::", "", "a", "b c"}},
	{name: "tagstring-escapes", args: []string{"-k", "--tagstring", "{}\\t|\\101", "echo", "x"}, stdin: "a\nb\n"},
	{name: "tagstring-empty-column", args: []string{"-k", "--colsep", ":", "--tagstring", "{2}", "echo", "{1}"}, stdin: "d::f\na:b:c\n"},
	{name: "tag-lb", args: []string{"-k", "--lb", "--tag", "echo", "x", ":::", "", "a"}},
	{name: "lb-unterminated", args: []string{"-k", "-j1", "--lb", "printf", "x{}", ":::", "a", "b"}},
	// Commands.
	{name: "no-command", args: []string{"-k"}, stdin: "echo a\necho b | tr a-z A-Z\n"},
	{name: "pipeline-words", args: []string{"-k", "echo", "{}", "|", "tr", "a-z", "A-Z", ":::", "ab", "cd"}},
	{name: "shell-arith", args: []string{"-k", "echo", "$(( {} * 2 ))", ":::", "1", "21"}},
	{name: "quoting", args: []string{"-k", "printf", "[%s]\\\\n", ":::", "a b", "c'd", `e"f`, "$(echo x)", "`echo y`", "*", "a;b", "a|b", "-n", "--", "~", "é", ""}},
	{name: "quoting-shell", args: []string{"-k", "printf '[%s]\\n' {} | cat", ":::", "a b", "c'd", "$(echo x)", "*", "-x"}},
	{name: "quote-words", args: []string{"-k", "-q", "echo", "a;b", "$HOME", "it's", "{}*", ":::", "x", "y z"}},
	{name: "quote-sh-c", args: []string{"-k", "-q", "sh", "-c", "echo $0-$1", "{}", "b", ":::", "a"}},
	{name: "quote-sources", args: []string{"-k", "-q", "printf", "[%s]\\n", "{}", ":::", "x", ":::", "y"}},
	{name: "quote-max-args", args: []string{"-k", "-q", "-n2", "printf", "[%s]\\n", "{}", ":::", "x y", "z"}},
	{name: "quote-dry-run", args: []string{"-k", "-q", "--dry-run", "echo", "a;b", ":::", "x"}},
	{name: "workdir", args: []string{"-k", "--wd", "w_{}", "basename \"$PWD\"; ls; : {}", ":::", "a", "b"}},
	{name: "crlf-kept", args: []string{"-k", "printf", "[%s]\\\\n"}, stdin: "a\r\nb\r\n"},
	{name: "invalid-utf8", args: []string{"-k", "printf", "[%s]\\\\n"}, stdin: "\xff\xfe\n\xc3\x28\n"},
	// Only plain words: see the exclusions above.
	{name: "dry-run-plain", args: []string{"-k", "--dry-run", "echo", "{}", "x", ":::", "a", "b.c"}},
	{name: "dry-run-tag", args: []string{"-k", "--dry-run", "--tag", "echo", ":::", "a", "b"}},
	{name: "dry-run-tagstring", args: []string{"-k", "--dry-run", "--tagstring", "x{}", "echo", ":::", "a", "b"}},
	// --results rows, on stdout: the quoting of each form, V1..Vn, stderr
	// and exit values in their columns. (Not an item with a comma: GNU
	// parallel quotes it for the shell in the Command column, fan need not.)
	{name: "results-csv", rows: true, args: []string{"-k", "--results", "-.csv", "echo", ":::", "a", `q"x`, "", "sp ace", "é"}},
	{name: "results-csv-stderr-exit", rows: true, args: []string{"-k", "--results", "-.csv", "echo out; echo err >&2; exit", ":::", "0", "3"}},
	{name: "results-csv-product", rows: true, args: []string{"-k", "--results", "-.csv", "echo", ":::", "a", "b", ":::", "1", "2"}},
	{name: "results-csv-colsep", rows: true, args: []string{"-k", "--colsep", ",", "--results", "-.csv", "echo", "{2}", "{1}"}, stdin: "a,b\nc,d\n"},
	{name: "results-csv-colsep-untrimmed", rows: true, args: []string{"-k", "--colsep", ",", "--results", "-.csv", "echo"}, stdin: " a , b \n"},
	{name: "results-tsv-max-args", rows: true, args: []string{"-k", "-n", "2", "--results", "-.tsv", "echo", ":::", "a", "b c", "d"}},
	{name: "results-tsv-tab", rows: true, args: []string{"-k", "--results", "-.tsv", "echo"}, stdin: "a\tb\nc\n"},
	{name: "results-json", rows: true, args: []string{"-k", "--results", "-.json", "printf", "%s\\t-\\001-\\n"}, stdin: "a\"b\nc\\\\d\n"},
	{name: "results-csv-tag", rows: true, args: []string{"-k", "--tag", "--results", "-.csv", "printf 'o%s\\nx' {}; printf e >&2", ":::", "1", "2"}},
	{name: "results-json-tagstring", rows: true, args: []string{"-k", "--tagstring", "T\"{#}", "--results", "-.json", "echo", ":::", "a"}},
	{name: "results-json-stderr-exit", rows: true, args: []string{"-k", "--results", "-.json", "echo out; echo err >&2; exit", ":::", "0", "3"}},
	// Pipe mode: blocks cut at records, each on a job's stdin.
	{name: "pipe-N", args: []string{"-k", "--pipe", "-N3", "wc -l"}, stdin: seqLines(10)},
	{name: "pipe-block", args: []string{"-k", "--pipe", "--block", "100", "wc -lc"}, stdin: seqLines(300)},
	{name: "pipe-spreadstdin", args: []string{"-k", "--spreadstdin", "-N2", "cat; echo ={#}="}, stdin: "a\nb\nc\n"},
	{name: "pipe-no-final-newline", args: []string{"-k", "--pipe", "-N2", "cat; echo ."}, stdin: "a\nb\nc"},
	{name: "pipe-empty", args: []string{"-k", "--pipe", "wc -l"}, stdin: ""},
	{name: "pipe-record-longer-than-block", args: []string{"-k", "--pipe", "--block", "10", "wc -c"}, stdin: strings.Repeat("x", 45) + "\nshort\n" + strings.Repeat("y", 30) + "\n"},
	{name: "pipe-recstart-N", args: []string{"-k", "--pipe", "-N2", "--recstart", "@", "--recend", "\\n", "cat; echo ---"}, stdin: "@r1\nq1\n@r2\nq2\n@r3\nq3\n"},
	{name: "pipe-recend", args: []string{"-k", "--pipe", "-N1", "--recend", ";", "cat; echo"}, stdin: "a;b;c;"},
	{name: "pipe-regexp", args: []string{"-k", "--pipe", "-N1", "--regexp", "--recstart", "^>", "--recend", "\\n", "head -1"}, stdin: ">s1\nAC\nGT\n>s2\nTT\n>s3\nGG\n"},
	{name: "pipe-L", args: []string{"-k", "--pipe", "-L", "2", "-N", "2", "cat; echo --"}, stdin: seqLines(9)},
	{name: "pipe-header", args: []string{"-k", "--pipe", "--header", ":", "-N2", "cat; echo --"}, stdin: "name,n\na,1\nb,2\nc,3\n"},
	{name: "pipe-header-regexp", args: []string{"-k", "--pipe", "--header", "(#.*\\n){2}", "-N1", "cat"}, stdin: "#h1\n#h2\nx\ny\n"},
	{name: "pipe-binary", args: []string{"-k", "--pipe", "--block", "20", "od -An -c"}, stdin: "\x00\x01\xff\n\x00abc\n\xfe\xfd\n" + strings.Repeat("z", 25) + "\n"},
	{name: "pipe-seq", args: []string{"-k", "--pipe", "-N4", "echo {#}; wc -l"}, stdin: seqLines(10)},
	{name: "pipe-tag", args: []string{"-k", "--pipe", "-N2", "--tag", "--tagstring", "b{#}", "cat"}, stdin: seqLines(5)},
	{name: "pipe-exit", args: []string{"-k", "--pipe", "-N1", "read x; exit $x"}, stdin: "0\n3\n0\n1\n"},
	{name: "pipe-cat", args: []string{"-k", "--pipe", "-N2", "--cat", "wc -l < {}"}, stdin: seqLines(5)},
	{name: "pipe-fifo", args: []string{"-k", "--pipe", "-N2", "--fifo", "wc -l < {}"}, stdin: seqLines(5)},
	{name: "pipe-tee", args: []string{"-k", "--pipe", "--tee", "echo {}; wc -l", ":::", "a", "b", "c"}, stdin: seqLines(7)},
	{name: "pipepart", args: []string{"-k", "--pipepart", "-a", "lines.txt", "--block", "100", "wc -l"}},
	{name: "pipepart-default-blocks", args: []string{"-k", "--pipepart", "-a", "lines.txt", "wc -l"}},
	{name: "pipepart-header", args: []string{"-k", "--pipepart", "-a", "lines.txt", "--header", ":", "--block", "200", "head -1"}},
	// Exit status.
	{name: "exit-ok", args: []string{"true", ":::", "1", "2"}},
	{name: "exit-count", args: []string{"false", ":::", "1", "2", "3"}},
	{name: "exit-mixed", args: []string{"-k", "exit {}", ":::", "0", "3", "0", "1"}},
	{name: "exit-output-of-failed", args: []string{"-k", "echo {}; exit 1", ":::", "a", "b"}},
	{name: "exit-missing-command", args: []string{"no-such-command-fan-diff", ":::", "a"}},
}

// TestDifferentialParallel runs each case through fan and GNU parallel and
// compares stdout and the exit status.
func TestDifferentialParallel(t *testing.T) {
	t.Parallel()
	if len(diffCases) < 40 {
		t.Fatalf("only %d differential cases", len(diffCases))
	}
	diffWithParallel(t, diffCases, map[string]string{"items.txt": "x\ny\n", "nums.txt": "1\n2\n3\n", "lines.txt": seqLines(500)})
}

// diffWithParallel runs each case through fan and GNU parallel, with -j2
// in front, in a directory holding files (name: content), and compares
// their stdout and exit status.
func diffWithParallel(t *testing.T, cases []diffCase, files map[string]string) {
	par, fan := parallelAndFan(t)
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir() // GNU parallel keeps state under $HOME
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-j2"}, c.args...)
			fout, fstatus := runDiff(t, dir, home, fan, args, c.stdin)
			pout, pstatus := runDiff(t, dir, home, par, append([]string{"--will-cite"}, args...), c.stdin)
			if c.sorted {
				fout, pout = sortLines(fout), sortLines(pout)
			}
			if c.rows {
				fout, pout = maskTimes(fout), maskTimes(pout)
			}
			if c.joblog {
				fout, pout = maskJoblog(fout), maskJoblog(pout)
			}
			if fout != pout {
				t.Errorf("fan %q\nstdout:\n%q\nGNU parallel:\n%q", args, fout, pout)
			}
			if fstatus != pstatus && !c.anyStatus {
				t.Errorf("fan %q: exit status %d, GNU parallel %d", args, fstatus, pstatus)
			}
		})
	}
}

func runDiff(t *testing.T, dir, home, prog string, args []string, stdin string) (string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "HOME="+home, "SHELL=/bin/sh", "PARALLEL_HOME="+filepath.Join(home, ".parallel"))
	cmd.WaitDelay = 10 * time.Second
	return stdoutAndStatus(t, cmd)
}

// rowTimes matches the Starttime and JobRuntime of a --results row: after
// Seq and Host in CSV and TSV, by name in JSON.
var rowTimes = regexp.MustCompile(`(?m)^(\d+[,\t]:[,\t])\d+\.\d{3}([,\t])\d+\.\d{3}|("Starttime": )[\d.]+(, "JobRuntime": )[\d.]+`)

// maskTimes replaces the times of --results rows with T and R.
func maskTimes(s string) string {
	return rowTimes.ReplaceAllString(s, "${1}${3}T${2}${4}R")
}

// joblogTimes matches the Starttime and JobRuntime of a joblog line.
var joblogTimes = regexp.MustCompile(`(?m)^(\d+\t[^\t]*\t)\d+\.\d+\t *\d+\.\d+\t`)

// maskJoblog replaces the times of joblog lines with T and R.
func maskJoblog(s string) string {
	return joblogTimes.ReplaceAllString(s, "${1}T\tR\t")
}

func sortLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// durationCases are time forms that GNU parallel's --delay and --timeout
// take and fan reads the same. Left out on purpose: ms (fan's
// milliseconds; GNU parallel's --delay reads 300ms as 300*60*1 s, its
// --timeout refuses it), us, µs and ns (errors in GNU parallel),
// negative values, and Perl arithmetic (1m/3) that its eval happens to
// take (errors in fan).
var durationCases = []string{
	"30", "1.5", "0", "30s", "30S", "2m", "2M", "1h", "1H", "1d", "1D",
	"0.5d", "2.5m", ".5m", "1m30s", "1d2h", "1d2h3m4s", "1D2H3M4S", "1h30m",
	"30s1m", "1m2m", "1m30", "1h30", "0m1", "1d2h3m4", "1m1s1", "1m0.5",
}

// TestDifferentialDurations reads each duration with GNU parallel's own
// multiply_time_units, taken from its script, and with fan's parser.
func TestDifferentialDurations(t *testing.T) {
	t.Parallel()
	lines := gnusub.Eval(t, "multiply_time_units", `sprintf("%.9f", multiply_time_units($_))`, durationCases)
	for i, in := range durationCases {
		want, err := strconv.ParseFloat(lines[i], 64)
		if err != nil {
			t.Fatalf("perl printed %q for %q", lines[i], in)
		}
		got, err := runner.ParseDuration(in)
		if err != nil || math.Abs(got.Seconds()-want) > 1e-9 {
			t.Errorf("ParseDuration(%q) = %v, %v; GNU parallel reads %v s", in, got, err, want)
		}
	}
}
