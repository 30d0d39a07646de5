package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"fan/cmd"
)

// TestMain lets the test binary act as fan: testscript puts a "fan" command
// on PATH for every test in this package, scripts and differential tests.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fan": func() { os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
	})
}
