package cmd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envRead finds, in fan's code, the names of the environment variables it
// reads: os.Getenv, os.LookupEnv, Env.Get and the getenv functions passed
// down from it, and the shard's num helper; BASH_FUNC_ stands for the
// exported bash functions.
var envRead = regexp.MustCompile(`\b(?:Getenv|LookupEnv|Get|getenv|num)\("([A-Z][A-Z0-9_]*)"\)|"(BASH_FUNC_)"`)

// TestManEnvironment fails when fan's code reads an environment variable
// that the man page's ENVIRONMENT section does not name.
func TestManEnvironment(t *testing.T) {
	read := map[string]string{} // variable → a file reading it
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "internal" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(src), -1) {
			read[m[1]+m[2]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	env := manSections[strings.Index(manSections, ".SH ENVIRONMENT"):]
	if len(read) < 5 {
		t.Fatalf("found only %v: the search for variables is broken", read)
	}
	for name, path := range read {
		if !regexp.MustCompile(`\b` + name + `\b`).MatchString(env) {
			t.Errorf("%s reads %s, which the man page's ENVIRONMENT section (cmd/man_sections.go) does not name", path, name)
		}
	}
}
