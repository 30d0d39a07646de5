package cmd

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestSpelling(t *testing.T) {
	f := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, name := range []string{"keep-order", "resume", "resume-failed", "results", "dry-run", "retry-delay"} {
		f.Bool(name, false, "")
	}
	f.SetNormalizeFunc(spelling)
	for name, want := range map[string]string{
		"keep-order": "keep-order", "keep": "keep-order", "keeporder": "keep-order",
		"resume":   "resume", // exact, though also a beginning of resume-failed
		"resume-f": "resume-failed", "res": "results", "dr": "dry-run",
		"re": "re", "nothing": "nothing", "": "",
		"retry": "retry", "retry-d": "retry-delay", // parallel's --retry-failed begins so too
	} {
		if got := string(spelling(f, name)); got != want {
			t.Errorf("spelling(%q) = %q; want %q", name, got, want)
		}
	}
	if f.Lookup("keep") == nil || f.Lookup("re") != nil {
		t.Error("Lookup does not go through spelling")
	}
}
