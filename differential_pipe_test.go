package main

import (
	"strings"
	"testing"
)

// pipeCases are --pipe and --pipepart beyond the everyday ones of
// diffCases, many taken from the cases of GNU parallel's own test suite:
// the forms of --block, -N, -L, --recstart and --recend, --header, and
// how --round-robin, --tee, --cat, --fifo and the files of --pipepart
// combine. Cases where fan deliberately differs are left out, each with
// the reason (docs/reference.md, Pipe mode, says more):
//   - -0 with --pipe: fan cuts NUL-ended records, GNU parallel ignores -0.
//   - -N on a block that starts with an empty record: fan counts it as a
//     record, GNU parallel 20221122 joins it to the next.
//   - a job that exits without reading its block (head -1): GNU parallel
//     may count it failed (141), fan judges it by its exit status.
//   - --halt soon in pipe mode: GNU parallel 20221122 hangs.
//   - --rrs, -l, -r: fan does not have them (it never alters the data).
//   - the names {} gets under --cat and --fifo, and --files' names: both
//     are temporary files, named differently.
//   - the joblog's Send column under --pipepart: GNU parallel writes 0,
//     fan the bytes the job was given (under --pipe both write those).
//   - how --round-robin deals blocks once every job has started: "at
//     random" in GNU parallel's words, so only cases where each job gets
//     one block are compared.
var pipeCases = []diffCase{
	// --block: units, fractions, and records longer than the block (the
	// block grows to hold them).
	{name: "block-1", args: []string{"-k", "--pipe", "--block", "1", "cat; echo =="}, stdin: seqLines(12)},
	{name: "block-k", args: []string{"-k", "--pipe", "--block", "1k", "wc -lc"}, stdin: seqLines(1000)},
	{name: "block-fraction-M", args: []string{"-k", "--pipe", "--block", "0.01M", "wc -lc"}, stdin: seqLines(10000)},
	// -N and -L count records; -n is -N here; counts take units.
	{name: "max-args-records", args: []string{"-k", "--pipe", "-L", "3", "-n", "2", "cat; echo ="}, stdin: seqLines(14)},
	{name: "N-units", args: []string{"-k", "--pipe", "-N", "1k", "wc -l"}, stdin: seqLines(2500)},
	// --recstart and --recend: several bytes, empty, NUL, regular
	// expressions.
	{name: "recend-multi", args: []string{"-k", "--pipe", "--recend", "END", "--block", "4", "cat; echo ="}, stdin: "aENDbENDcENDd"},
	{name: "recend-empty", args: []string{"-k", "--pipe", "--recend", "", "-N", "1", "od -An -c"}, stdin: seqLines(3)},
	{name: "recend-nul", args: []string{"-k", "--pipe", "--recend", "\\0", "-N1", "od -An -c"}, stdin: "a\x00b\x00c\x00"},
	{name: "recstart-recend-block", args: []string{"-k", "--pipe", "--recend", "\\n", "--recstart", "6", "--block", "1", "echo a; cat"}, stdin: seqLines(10)},
	{name: "regexp-recstart-empty-first", args: []string{"-k", "-N1", "--regexp", "--pipe", "--recstart", "begin\\n", "echo JOB{#}; cat; echo END"}, stdin: "begin\nend\nbegin\naend\nbegin\nbend\n"},
	{name: "regexp-alternation", args: []string{"-k", "--pipe", "--regexp", "--recend", "a|b", "-N1", "cat; echo"}, stdin: "12a34b45a6\n"},
	// --header: a count of lines, and an expression with blocks.
	{name: "header-count", args: []string{"-k", "--pipe", "-N2", "--header", "2", "echo JOB{#}; cat"}, stdin: "%head1\n%head2\n" + seqLines(5)},
	{name: "header-regexp-block", args: []string{"-k", "-j1", "--pipe", "--block", "1k", "--header", ".*\\n.*\\n", "echo Start; cat; echo Stop"}, stdin: "h1\nh2\n" + strings.Repeat(strings.Repeat("x", 110)+"\n", 22)},
	// --cat and --fifo: {} is appended to a command without it, and they
	// imply --pipe.
	{name: "cat-appended", args: []string{"-k", "--pipe", "-N3", "--cat", "cat"}, stdin: seqLines(10)},
	{name: "fifo-appended", args: []string{"-k", "--pipe", "-N3", "--fifo", "wc -l <"}, stdin: seqLines(10)},
	{name: "cat-implies-pipe", args: []string{"-k", "-N3", "--cat", "wc -l < {}"}, stdin: seqLines(10)},
	{name: "cat-replace-I", args: []string{"-k", "--pipe", "-N3", "-I", "XX", "--cat", "wc -l < XX; echo [{}]"}, stdin: seqLines(10)},
	// A dry run of --cat and --fifo writes $PARALLEL_TMP for the block's
	// file, as the job's shell would find it, wherever an argument's
	// string stands.
	{name: "cat-dry-run", args: []string{"--dry-run", "--pipe", "-N3", "--cat", "cat {} {.} {1} \"{}\""}, stdin: seqLines(7)},
	{name: "fifo-dry-run-appended", args: []string{"--dry-run", "--pipepart", "--block", "300", "-a", "lines.txt", "--fifo", "wc -l <"}},
	// --plus's {##} needs the number of jobs: refused in pipe mode.
	{name: "plus-total-refused", args: []string{"--pipe", "--plus", "echo {##}"}, stdin: seqLines(3)},
	// --tee: nothing appended; every job gets all of the input.
	{name: "tee-not-appended", args: []string{"-k", "--pipe", "--tee", "wc -l", ":::", "a", "b"}, stdin: seqLines(10)},
	// --round-robin: a job per block until -j have started, each with the
	// header; none without input.
	{name: "round-robin-one-block", args: []string{"-j4", "--round-robin", "--pipe", "wc"}, stdin: "1\n"},
	{name: "round-robin-header", args: []string{"-j4", "--round-robin", "--pipe", "-N1", "--header", ":", "wc"}, stdin: seqLines(3), sorted: true},
	{name: "round-robin-empty", args: []string{"-j4", "--round-robin", "--pipe", "echo ran"}},
	// --pipepart: files from ::::, several files, --block -N, and with
	// --round-robin, --tee, --cat and --fifo.
	{name: "pipepart-argfile-sep", args: []string{"-k", "--pipepart", "--block", "-2", "echo {#}", "::::", "lines.txt"}},
	{name: "pipepart-two-files-header", args: []string{"-k", "--pipepart", "--header", ":", "--block", "6", "echo ={#}=; cat", "::::", "h1.txt", "h2.txt"}},
	{name: "pipepart-round-robin", args: []string{"-k", "--pipepart", "-a", "lines.txt", "--block", "10", "--round-robin", "wc -l"}},
	{name: "pipepart-tee", args: []string{"-k", "--pipepart", "--tee", "-a", "lines.txt", "echo {}; wc -l", ":::", "a", "b"}},
	{name: "pipepart-fifo", args: []string{"-k", "--pipepart", "--block", "300", "-a", "lines.txt", "--fifo", "cat {} | wc -l"}},
	{name: "pipepart-regexp-recend", args: []string{"-k", "--pipepart", "-a", "ten.txt", "--block", "2", "--regexp", "--recend", "3\\n", "echo ={#}=; cat"}},
	// The joblog: Send is the block's bytes, Receive the job's output.
	{name: "joblog", joblog: true, args: []string{"-k", "-j1", "--joblog", "-", "--pipe", "--block", "1111", "wc"}, stdin: seqLines(1000)},
	// --halt and the exit status of piped jobs.
	{name: "halt-now-fail", args: []string{"-k", "-j1", "--pipe", "-N2", "--halt", "now,fail=1", "read x; cat >/dev/null; echo $x; [ $x -lt 5 ]"}, stdin: seqLines(10)},
}

// TestDifferentialPipe runs pipeCases through fan and GNU parallel.
func TestDifferentialPipe(t *testing.T) {
	t.Parallel()
	diffWithParallel(t, pipeCases, map[string]string{
		"lines.txt": seqLines(500),
		"h1.txt":    "H1\n" + seqLines(5),
		"h2.txt":    "H2\n6\n7\n8\n",
		"ten.txt":   seqLines(10),
	})
}
