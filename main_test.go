package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fan-run/fan/cmd"
)

// TestMain lets the test binary act as fan: testscript puts a "fan" command
// on PATH for every test in this package, scripts and differential tests.
//
// Every test in this package calls t.Parallel: they spend their time
// waiting for the fan runs they start, so they run side by side, 16 at a
// time unless go test is given -parallel (see parallelTests). Each works in
// directories of its own, and looks among the machine's processes (gone,
// stopped, processesWith) only for those marked as its own in their
// environment.
func TestMain(m *testing.M) {
	noRaceExitSleep()
	parallelTests()
	testscript.Main(m, map[string]func(){
		"fan": func() { os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// fan as GNU parallel's sem (cmd.Main reads the name it was run as).
		cmd.SemName: func() { os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// noRaceExitSleep sets, for the processes this test binary starts, the
// race detector's option atexit_sleep_ms=0. Under -race a program that
// exits 0 otherwise sleeps a second first, and every fan run in a script
// or a differential test is this binary under -race: hundreds of runs,
// minutes of sleep. The binary itself read GORACE when it started, so only
// its children (and theirs) see the change. An atexit_sleep_ms the caller
// set in GORACE is kept.
func noRaceExitSleep() {
	gorace := os.Getenv("GORACE")
	if strings.Contains(gorace, "atexit_sleep_ms=") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(gorace+" atexit_sleep_ms=0"))
}

// parallelTests makes 16 the default of go test's -parallel for this
// package. Its default, GOMAXPROCS, suits tests that keep a core busy; the
// end-to-end and differential tests mostly wait, and on 2 cores the
// package took 40 s at -parallel 8, 25 s at 16 and 31 s at 32 (by then the
// race-built fan processes keep both cores busy). The default changes here
// rather than in make test so that it holds for go test run by hand, and
// only for this package: other packages' tests keep a core busy, or hold
// resources not meant to be taken 16 at a time. A -parallel given to go
// test is parsed later, by m.Run, and wins.
func parallelTests() {
	if err := flag.Set("test.parallel", "16"); err != nil {
		panic(err)
	}
}

// TestScripts runs the end-to-end scripts in testdata/script.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			// testscript gives scripts a fresh environment: pass on
			// GORACE (see noRaceExitSleep).
			env.Setenv("GORACE", os.Getenv("GORACE"))
			return nil
		},
	})
}
