package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchItems runs fan in-process (Main) on b.N input lines, 1 to b.N as
// seq prints them, written to a file first so that reading it costs what
// reading a pipe would: ns/op is fan's cost per item, from reading to
// writing, including the start-up spread over b.N.
func benchItems(b *testing.B, args ...string) {
	b.Helper()
	dir := b.TempDir()
	in := filepath.Join(dir, "in")
	buf := make([]byte, 0, 7*b.N+8)
	for i := 1; i <= b.N; i++ {
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, '\n')
	}
	if err := os.WriteFile(in, buf, 0o600); err != nil {
		b.Fatal(err)
	}
	stdin, err := os.Open(in)
	if err != nil {
		b.Fatal(err)
	}
	defer stdin.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	b.ReportAllocs()
	b.ResetTimer()
	if st := Main(args, stdin, null, null); st != 0 {
		b.Fatalf("fan %q exited %d", args, st)
	}
}

// BenchmarkDryRun is `seq N | fan --dry-run echo`: per item, reading,
// numbering, rendering and writing the command, and the hand-overs
// between the stages.
func BenchmarkDryRun(b *testing.B) { benchItems(b, "--dry-run", "echo") }

// BenchmarkDryRunWord is the same with {} inside a word, which a shell
// reads: the template's quoting per item.
func BenchmarkDryRunWord(b *testing.B) { benchItems(b, "--dry-run", "echo", "x{}y") }

// BenchmarkPackX is `seq N | fan -X true`: per item, reading and packing
// as many as fit in a command line (a job per 128 KiB of arguments).
func BenchmarkPackX(b *testing.B) { benchItems(b, "-X", "true") }

// BenchmarkPackXargs is `seq N | fan --xargs true`: xargs's own splitter
// and packing.
func BenchmarkPackXargs(b *testing.B) { benchItems(b, "--xargs", "true") }
