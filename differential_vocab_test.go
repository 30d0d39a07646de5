package main

import (
	"os"
	"path/filepath"
	"testing"
)

// vocabCases are GNU parallel's everyday flags beyond the core (--plus,
// --header in argument mode, --shuf ...), run through fan and GNU parallel
// as diffCases are. Cases where fan deliberately differs are left out,
// each with the reason:
//   - {host} and {sshlogin} of --plus where GNU parallel's text for
//     them (${PARALLEL_SSHHOST}) is not expanded by a shell: in '...',
//     --tagstring, --workdir, -q; fan gives the value there too.
//   - --plus's regular expressions are Perl's in GNU parallel and Go's in
//     fan: only expressions both read alike are compared.
var vocabCases = []diffCase{
	// --plus: the fixed forms, on paths with and without extensions.
	{name: "plus-fixed", args: []string{"-k", "--plus", "echo", "{+/}", "{+.}", "{+..}", "{+...}", "{..}", "{...}", "{/..}", "{/...}", ":::", "a/b.c.d.e", "x", ".bashrc", "a.b/c", "d/.e.f"}},
	{name: "plus-positional", args: []string{"-k", "--plus", "echo", "{1..}", "{2+.}", "{1/..}", "{2:-x}", "{1:2}", "{1#a}", "{-1:-q}", ":::", "a.b.c/d.e.f.g", ":::", "x.y", ""}},
	{name: "plus-substrings", args: []string{"-k", "--plus", "echo", "[{:5}]", "[{:1:10}]", "[{:5:1}]", "[{:0:2}]", "[{:-d}]", ":::", "abc", "0", "", "abcdefg"}},
	{name: "plus-trim", args: []string{"-k", "--plus", "echo", "{%.z.*z}", "{%%.z.*z}", "{#z.*z.}", "{##z.*z.}", "{%.gz}", "{#[a-z]*.}", ":::", "z.z.z.fooz.z.z", "Z.zZ", "a.tar.gz"}},
	{name: "plus-substitute", args: []string{"-k", "--plus", "echo", "{/z/Q}", "{//z/Q}", "{/#z/Q}", "{/%z/Q}", "{/z/}", "{//[0-9]/#}", ":::", "z.z.z.fooz.z.z", "Z.zZ", "a1b22"}},
	{name: "plus-case", args: []string{"-k", "--plus", "echo", "{^z}", "{^^z}", "{,Z}", "{,,Z}", "{^^[a-c]}", ":::", "z.z.z.fooz.z.z", "Z.zZ", "abcd"}},
	{name: "plus-counts", args: []string{"-k", "--plus", "echo", "{##}", "{0#}", "{#}", ":::", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}},
	{name: "plus-counts-stdin", args: []string{"-k", "--plus", "echo", "{##}-{0#}"}, stdin: "a\nb\nc\n"},
	{name: "plus-slot-one-job", args: []string{"-k", "--plus", "-j1", "echo", "{0%}", "{slot}", ":::", "a", "b"}},
	{name: "plus-hostile", args: []string{"-k", "--plus", "echo", "{..}", "{/a/\\$}", "{:-$HOME}", ":::", "$(echo x).y.z", "a;b.c", "", "'a'"}},
	// GNU parallel 20221122 exits with the number of jobs {choose_k} and
	// {uniq} left out, as if they had failed; fan exits 0.
	{name: "plus-choose-k", args: []string{"-k", "--plus", "echo", "{#}", "{choose_k}", ":::", "a", "b", "c", ":::", "a", "b", "c"}, anyStatus: true},
	{name: "plus-uniq", args: []string{"-k", "--plus", "echo", "{#}", "{}", "{uniq}", ":::", "a", "b", ":::", "a", "b", ":::", "c"}, anyStatus: true},
	{name: "plus-off", args: []string{"-k", "echo", "{..}", "{+/}", ":::", "a.b.c"}},
	// {host} and {sshlogin} are ":" on this machine; {hgrp} and {agrp}
	// nothing without host groups; a dry run writes them all as variables.
	{name: "plus-host", args: []string{"-k", "--plus", "echo", "{host}", "{sshlogin}", "{hgrp}", "[{agrp}]", `"{host}"`, "{}", ":::", "a", "b"}},
	{name: "plus-host-login", args: []string{"-k", "--plus", "-S", "2/:", "echo", "{host}", "{sshlogin}", "{}", ":::", "a", "b"}},
	{name: "plus-host-dry-run", args: []string{"-k", "--dry-run", "--plus", "echo", "{host}", "{sshlogin}", "{hgrp}", "{agrp}", "{}", ":::", "a"}},
	// ... as they are wherever they stand, where no value could be quoted.
	{name: "plus-host-dry-run-contexts", args: []string{"-k", "--dry-run", "--plus", "echo `echo {host}` $'{sshlogin}' $\"{hgrp}\" {}", ":::", "a b"}},

	// --header in argument mode: the first value of each source names it,
	// or the first line names the columns (split at --colsep, else a tab).
	{name: "header-sources", args: []string{"-k", "--header", ":", "echo", "{a}", "{b}", "{a.}", "{b/}", ":::", "a", "x.y", "z", ":::", "b", "d/1", "2"}},
	{name: "header-colsep", args: []string{"-k", "--header", ":", "--colsep", ",", "echo", "{b}-{a}", "{2}", "::::", "cols.csv"}},
	{name: "header-tab", args: []string{"-k", "--header", ":", "echo", "{size}", "{name/.}", "{1}", "::::", "cols.tsv"}},
	{name: "header-stdin", args: []string{"-k", "--header", ":", "echo", "{size}:{name}"}, stdin: "name\tsize\nx\t1\ny\t2\n"},
	{name: "header-file-and-list", args: []string{"-k", "--header", ":", "--colsep", ",", "echo", "{b}{a}{c}", "::::", "cols.csv", ":::", "c", "p", "q"}},
	{name: "header-regexp", args: []string{"-k", "--header", ".*", "echo", "{first}", "::::", "names.txt"}},
	{name: "header-tagstring", args: []string{"-k", "--header", ":", "--tagstring", "{a}", "echo", "{a}", ":::", "a", "x", "y"}},
	{name: "header-zero", args: []string{"-k", "--header", "0", "echo", "{names.txt}", "::::", "names.txt"}},
	// --shuf, --nice, --env locally.
	{name: "shuf", args: []string{"--shuf", "echo", ":::", "a", "b", "c", "d", "e"}, sorted: true},
	{name: "shuf-seq", args: []string{"--shuf", "echo", "{#}", ":::", "a", "b", "c"}, sorted: true},
	{name: "nice", args: []string{"-k", "-n0", "--nice", "5", "nice", ":::", "1", "2"}},
	{name: "env-local", args: []string{"-k", "--env", "HOME", "echo", ":::", "a"}},
	{name: "header-only", args: []string{"-k", "--header", ":", "echo", "{a}", ":::", "a"}},
}

// TestDifferentialVocab runs vocabCases through fan and GNU parallel.
func TestDifferentialVocab(t *testing.T) {
	t.Parallel()
	diffWithParallel(t, vocabCases, map[string]string{"cols.tsv": "name\tsize\nx.txt\t1\ny.gz\t2\n", "cols.csv": "a,b\n1,2\n3,4\n", "names.txt": "first\nx\ny\n"})
}

// TestDifferentialConfig: the config file, -J profiles and $PARALLEL are
// read as GNU parallel reads them (where fan's order of precedence is the
// same: -J above $PARALLEL is fan's own, see README).
func TestDifferentialConfig(t *testing.T) {
	t.Parallel()
	par, fan := parallelAndFan(t)
	home, dir := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{
		"config": "# tagged\n  # indented comment\n-k --tagstring '[{}] x'\n",
		"prof":   "-k\n--dry-run\n",
	} {
		if err := os.MkdirAll(filepath.Join(home, ".parallel"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".parallel", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"echo", ":::", "a", "b c"},
		{"-J", "prof", "echo", ":::", "a", "b c"},
		{"--tagstring", "cmd", "echo", ":::", "a"},
		{"--plain", "-k", "echo", ":::", "a"},
	} {
		for _, env := range []string{"PARALLEL=", "PARALLEL=--tag -j1"} {
			fout, fstatus := runDiff(t, dir, home, "env", append([]string{env, fan}, args...), "")
			pout, pstatus := runDiff(t, dir, home, "env", append([]string{env, par, "--will-cite"}, args...), "")
			if fout != pout || fstatus != pstatus {
				t.Errorf("%s fan %q: %q (exit %d); GNU parallel: %q (exit %d)", env, args, fout, fstatus, pout, pstatus)
			}
		}
	}
}
