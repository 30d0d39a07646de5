package cmd

import (
	"os"
	"testing"
)

// BenchmarkNewCommand is what building fan's command (its 200-odd flags)
// costs every start (BENCHMARKS.md, issue 19's start-up entries).
func BenchmarkNewCommand(b *testing.B) {
	env := Env(os.Environ())
	b.ReportAllocs()
	for b.Loop() {
		NewCommand(Streams{}, env, nil)
	}
}
