package cmd

import (
	"io"
	"os"
	"strings"
)

// Env is the environment fan was started with, as os.Environ gives it.
// Main reads it once and passes it down: nothing else in cmd reads the
// process's environment, so a test can give any environment.
type Env []string

// Get returns the value of the variable name, or "" when it is not set.
// As with os.Getenv, the first of two settings counts.
func (e Env) Get(name string) string {
	for _, kv := range e {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Streams are fan's standard streams. Out and Err are files, so that
// output can tell a terminal and a pipe apart.
type Streams struct {
	In       io.Reader
	Out, Err *os.File
	// catch: the run catches its signals as soon as the command line is
	// read (signalCatch); Main's does, a test's command need not.
	catch bool
}
