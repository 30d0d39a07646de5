package main

import (
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are commands the scripts need beyond testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}
