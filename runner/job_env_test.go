package runner

import (
	"maps"
	"slices"
	"testing"
)

// Only bash's exported functions count, named as bash names them.
func TestExportedFunctions(t *testing.T) {
	env := []string{
		"BASH_FUNC_myfunc%%=() {  echo got \"$1\"\n}",
		"BASH_FUNC_a-b%%=() { :; }",
		"BASH_FUNC_%%=() { :; }",  // no name
		"BASH_FUNC_old=() { :; }", // not the form bash exports now
		"NOT_BASH_FUNC_x%%=() { :; }",
		"PATH=/bin",
	}
	got := slices.Sorted(maps.Keys(ExportedFunctions(env)))
	if !slices.Equal(got, []string{"a-b", "myfunc"}) {
		t.Errorf("ExportedFunctions = %q; want [a-b myfunc]", got)
	}
	if ExportedFunctions([]string{"PATH=/bin"}) != nil {
		t.Error("no functions: want nil")
	}
}

// BaseEnv drops an outer run's job variables and sets TMPDIR for --tmpdir,
// in place of any it had.
func TestBaseEnv(t *testing.T) {
	env := []string{"PATH=/bin", "FAN_SEQ=3", "TMPDIR=/tmp", "PARALLEL_SEQ=2", "HOME=/root"}
	if got := BaseEnv(env, ""); !slices.Equal(got, []string{"PATH=/bin", "TMPDIR=/tmp", "HOME=/root"}) {
		t.Errorf("BaseEnv(env, \"\") = %q", got)
	}
	if got := BaseEnv(env, "/scratch"); !slices.Equal(got, []string{"PATH=/bin", "HOME=/root", "TMPDIR=/scratch"}) {
		t.Errorf("BaseEnv(env, /scratch) = %q", got)
	}
	if env[1] != "FAN_SEQ=3" {
		t.Errorf("the caller's env was changed: %q", env)
	}
}
