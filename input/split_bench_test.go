package input

import (
	"bytes"
	"io"
	"strconv"
	"testing"
)

// BenchmarkSplitLines splits short newline-terminated records, as
// `seq N | fan` gives them.
func BenchmarkSplitLines(b *testing.B) {
	var buf bytes.Buffer
	for i := range 10000 {
		buf.WriteString(strconv.Itoa(i))
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewSplitter(bytes.NewReader(data), []byte("\n"))
		for {
			if _, err := s.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
