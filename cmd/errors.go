package cmd

import "fmt"

// The errors of fan's own that exitStatus (exit.go) maps to 255.

// usageError is a mistake in how fan was called: exit status 255.
type usageError struct {
	msg   string
	xargs bool // under --xargs: xargs's exit status 1
	// parsed: a flag's value refused as it was read, before --xargs
	// may have been (see execute).
	parsed bool
}

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// inputError is a failure to read fan's input: exit status 255.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }
