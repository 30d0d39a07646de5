package input

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// benchLines is n bytes of 100-byte lines (99 bytes and "\n"), the
// workload of the throughput target.
func benchLines(n int) []byte {
	line := strings.Repeat("0123456789", 10)[:99] + "\n"
	return bytes.Repeat([]byte(line), n/len(line))
}

// benchSplit cuts data, repeated b.N times, into blocks with one
// splitter (as over one long input, where buffers are reused), releasing
// each block as a job would when done with it.
func benchSplit(b *testing.B, data []byte, size int64, rec Records) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rs := make([]io.Reader, b.N)
	for i := range rs {
		rs[i] = bytes.NewReader(data)
	}
	b.ResetTimer()
	s, err := NewBlockSplitter(io.MultiReader(rs...), size, rec)
	if err != nil {
		b.Fatal(err)
	}
	if err := eachBlock(b, s, func(*Block) {}); err != io.EOF {
		b.Fatal(err)
	}
}

// BenchmarkBlockSplitter10M: --block 10M over 100-byte lines, from memory.
func BenchmarkBlockSplitter10M(b *testing.B) {
	benchSplit(b, benchLines(64<<20), 10<<20, Records{})
}

// BenchmarkBlockSplitter1M: the default block size.
func BenchmarkBlockSplitter1M(b *testing.B) {
	benchSplit(b, benchLines(64<<20), 1<<20, Records{})
}

// BenchmarkBlockSplitterN4: -N 4, many small blocks per buffer.
func BenchmarkBlockSplitterN4(b *testing.B) {
	benchSplit(b, benchLines(16<<20), 1<<20, Records{N: 4})
}

// BenchmarkBlockSplitterN1000: -N 1000 (blocks of about 100 KB).
func BenchmarkBlockSplitterN1000(b *testing.B) {
	benchSplit(b, benchLines(64<<20), 1<<20, Records{N: 1000})
}

// BenchmarkBlockSplitterL4: -L 4 (lines are counted).
func BenchmarkBlockSplitterL4(b *testing.B) {
	benchSplit(b, benchLines(64<<20), 10<<20, Records{L: 4})
}

// BenchmarkBlockSplitterRecstart: --recstart @ --recend '\n' (two-byte
// separator, bytes.LastIndex).
func BenchmarkBlockSplitterRecstart(b *testing.B) {
	data := bytes.ReplaceAll(benchLines(64<<20), []byte("\n0"), []byte("\n@"))
	benchSplit(b, data, 10<<20, Records{Start: "@", StartSet: true, End: `\n`, EndSet: true})
}

// BenchmarkBlockSplitterRegexp: --regexp --recstart '^@' (every boundary
// found by the regexp engine).
func BenchmarkBlockSplitterRegexp(b *testing.B) {
	data := bytes.ReplaceAll(benchLines(16<<20), []byte("\n0"), []byte("\n@"))
	benchSplit(b, data, 1<<20, Records{Regexp: true, Start: "^@", StartSet: true})
}

// BenchmarkBlockSplitterPipe10M: --block 10M over 100-byte lines read from
// a pipe, as stdin is, and each block written to another pipe, as to a
// job's stdin: the copying fan does in pipe mode, without the jobs. The
// writer and the reader at the pipes' other ends are goroutines.
func BenchmarkBlockSplitterPipe10M(b *testing.B) {
	data := benchLines(64 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		inR, inW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			inW.Write(data)
			inW.Close()
		}()
		drained := make(chan int64)
		go func() {
			n, _ := io.Copy(io.Discard, outR)
			drained <- n
		}()
		s, err := NewBlockSplitter(inR, 10<<20, Records{})
		if err != nil {
			b.Fatal(err)
		}
		err = eachBlock(b, s, func(blk *Block) {
			if _, err := io.Copy(outW, blk.Reader()); err != nil {
				b.Fatal(err)
			}
		})
		if err != io.EOF {
			b.Fatal(err)
		}
		outW.Close()
		if n := <-drained; n != int64(len(data)) {
			b.Fatalf("%d bytes came out of %d", n, len(data))
		}
		inR.Close()
		outR.Close()
	}
}
