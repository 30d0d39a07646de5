package runner

import (
	"slices"
	"strings"
)

// BaseEnv is the environment jobs start from: env without the job
// variables of an outer fan or GNU parallel (JobVars), which each job gets
// its own of, and with TMPDIR set to tmpDir when that is not empty
// (--tmpdir, as GNU parallel's).
func BaseEnv(env []string, tmpDir string) []string {
	out := env[:0:0]
	vars := JobVars()
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(vars, name) && (tmpDir == "" || name != "TMPDIR") {
			out = append(out, kv)
		}
	}
	if tmpDir != "" {
		out = append(out, "TMPDIR="+tmpDir)
	}
	return out
}

// ExportedFunctions are the names of the shell functions bash exported
// into env (export -f puts each in BASH_FUNC_name%%), for
// TemplateOptions.Functions; nil when there are none.
func ExportedFunctions(env []string) map[string]bool {
	var names map[string]bool
	for _, kv := range env {
		rest, ok := strings.CutPrefix(kv, "BASH_FUNC_")
		name, _, isFunc := strings.Cut(rest, "%%=")
		if ok && isFunc && name != "" {
			if names == nil {
				names = map[string]bool{}
			}
			names[name] = true
		}
	}
	return names
}
