package cmd

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
	got := slices.Sorted(maps.Keys(exportedFunctions(env)))
	if !slices.Equal(got, []string{"a-b", "myfunc"}) {
		t.Errorf("exportedFunctions = %q; want [a-b myfunc]", got)
	}
	if exportedFunctions([]string{"PATH=/bin"}) != nil {
		t.Error("no functions: want nil")
	}
}
