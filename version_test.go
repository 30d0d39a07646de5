package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestVersionNamesCommit builds fan from this work tree as make build does
// and checks that --version names the commit checked out (or its tag),
// marked dirty when git sees changes: the version comes from the build,
// not from a number kept by hand.
func TestVersionNamesCommit(t *testing.T) {
	t.Parallel()
	gitOut := func(args ...string) (string, error) {
		out, err := exec.Command("git", args...).Output()
		return strings.TrimSpace(string(out)), err
	}
	rev, err := gitOut("rev-parse", "HEAD")
	if err != nil {
		t.Skipf("not a git work tree, or no git (%v): a build here records no commit", err)
	}
	status, err := gitOut("status", "--porcelain")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(buildFan(t, "-buildvcs=true"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(out))
	names := rev[:12]
	if tag, err := gitOut("describe", "--tags", "--exact-match"); err == nil {
		names = tag
	}
	if !strings.HasPrefix(got, "fan v") || !strings.Contains(got, names) {
		t.Errorf("fan --version: got %q, want a module version naming %s", got, names)
	}
	if dirty := strings.HasSuffix(got, "+dirty"); dirty != (status != "") {
		t.Errorf("fan --version: got %q; the work tree has changes: %v", got, status != "")
	}
}
