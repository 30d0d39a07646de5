package input

import (
	"bytes"
	"io"
	"math"
	"math/rand"
	"testing"
	"testing/iotest"
)

// modelBlocks is GNU parallel's spreadstdin (20221122) written out plainly
// over a whole input, with fan's two deliberate differences (-0, and -N
// counting an empty first record), for BlockSplitter to be compared with:
// byte loops instead of bytes.Index, one string buffer, reads of exactly
// the asked size. It returns the header and each block's data.
func modelBlocks(t testing.TB, input []byte, size int64, rec Records) (header []byte, blocks [][]byte) {
	t.Helper()
	rule, err := rec.compile()
	if err != nil {
		t.Fatal(err)
	}
	if size == 0 {
		size = DefaultBlockSize
	}
	var buf []byte
	pos, eof := 0, false
	read := func(n int64) int {
		k := min(int(n), len(input)-pos)
		buf = append(buf, input[pos:pos+k]...)
		pos += k
		eof = int64(k) < n
		return k
	}
	if rule.header != nil {
		for reads := 1; ; reads++ {
			read(size)
			if reads > 16 && reads&(reads-1) != 0 && !eof {
				continue // fan's difference: see findHeader
			}
			if m := rule.header.FindIndex(buf); m != nil {
				header = append([]byte(nil), buf[:m[1]]...)
				buf = buf[m[1]:]
				break
			}
			if eof {
				break
			}
		}
	}
	emit := func(n int) {
		blocks = append(blocks, append([]byte(nil), buf[:n]...))
		buf = buf[n:]
	}
	junkDone := false
	for {
		read(size - int64(len(buf))%size)
		wrote := false
		switch {
		case rule.lines > 0:
			lines := 0
			for _, c := range buf {
				if c == '\n' {
					lines++
				}
			}
			keep := lines - lines%rule.lines
			end := 0
			for i, seen := 0, 0; i < len(buf) && seen < keep; i++ {
				if buf[i] == '\n' {
					seen++
					end = i + 1
				}
			}
			if keep > 0 {
				emit(end)
				wrote = true
			}
		case rule.n > 0 && rule.re != nil:
			if !junkDone {
				if !rule.start.Match(buf) {
					if j := modelRegexpBoundaries(rule, buf); len(j) > 0 {
						junkDone = true
						emit(j[0])
						wrote = true
					}
				} else {
					junkDone = true
				}
			}
			for junkDone {
				b := modelRegexpBoundaries(rule, buf)
				if len(b) < rule.n {
					break
				}
				emit(b[rule.n-1])
				wrote = true
			}
		case rule.n > 0:
			for {
				b, found := 0, 0
				for i := 0; i+len(rule.sep) <= len(buf) && found < rule.n; i++ {
					if bytes.Equal(buf[i:i+len(rule.sep)], rule.sep) && i+rule.endLen > b && i >= b {
						b = i + rule.endLen
						found++
					}
				}
				if found < rule.n {
					break
				}
				emit(b)
				wrote = true
			}
		case eof:
		case rule.re != nil:
			if b := modelRegexpBoundaries(rule, buf); len(b) > 0 {
				emit(b[len(b)-1])
				wrote = true
			}
		default:
			for i := len(buf) - len(rule.sep); i >= 0; i-- {
				if bytes.Equal(buf[i:i+len(rule.sep)], rule.sep) {
					if i+rule.endLen > 0 {
						emit(i + rule.endLen)
						wrote = true
					}
					break
				}
			}
		}
		if eof {
			break
		}
		if !wrote && size < maxGrownBlock {
			size = min(int64(math.Ceil(float64(size)*1.3+1)), maxGrownBlock)
		}
	}
	if len(buf) > 0 {
		emit(len(buf))
	}
	return header, blocks
}

// modelRegexpBoundaries lists the boundaries after 0 in buf, scanning
// forward.
func modelRegexpBoundaries(rule *cutRule, buf []byte) []int {
	var bs []int
	for _, m := range rule.re.FindAllSubmatchIndex(buf, -1) {
		if b := m[2*rule.cut]; b > 0 {
			bs = append(bs, b)
		}
	}
	return bs
}

// eachBlock calls fn with each block of s, in order, checking its
// number, then releases it; it returns the error that ended the blocks.
func eachBlock(t testing.TB, s *BlockSplitter, fn func(*Block)) error {
	t.Helper()
	for seq := int64(1); ; seq++ {
		b, err := s.Next()
		if err != nil {
			if _, again := s.Next(); again != err {
				t.Errorf("Next after %v returned %v", err, again)
			}
			return err
		}
		if b.Seq != seq {
			t.Errorf("block %d has Seq %d", seq, b.Seq)
		}
		if !bytes.Equal(b.Header, s.Header()) {
			t.Errorf("block %d has header %q, not %q", seq, b.Header, s.Header())
		}
		if len(b.Data) == 0 {
			t.Errorf("block %d is empty", seq)
		}
		fn(b)
		b.Release()
	}
}

// splitBlocks runs a BlockSplitter over r to the end.
func splitBlocks(t testing.TB, r io.Reader, size int64, rec Records) (header []byte, blocks [][]byte, err error) {
	t.Helper()
	s, err := NewBlockSplitter(r, size, rec)
	if err != nil {
		t.Fatal(err)
	}
	err = eachBlock(t, s, func(b *Block) { blocks = append(blocks, append([]byte(nil), b.Data...)) })
	return s.Header(), blocks, err
}

// chunkyReader returns reads of random sizes, as a pipe may.
type chunkyReader struct {
	r   io.Reader
	rng *rand.Rand
}

func (c *chunkyReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1+c.rng.Intn(len(p))]
	}
	return c.r.Read(p)
}

// modelRecords are option sets the model and the splitter are compared on.
var modelRecords = []Records{
	{},
	{N: 1},
	{N: 3},
	{L: 2},
	{L: 2, N: 2},
	{Null: true},
	{Null: true, N: 2},
	{Start: "@", StartSet: true},
	{Start: "@", StartSet: true, N: 2},
	{Start: "@", StartSet: true, End: `\n`, EndSet: true, N: 1},
	{End: "ab", EndSet: true},
	{End: `\n\n`, EndSet: true, N: 1},
	{Regexp: true},
	{Regexp: true, Start: "^@", StartSet: true},
	{Regexp: true, Start: "^@", StartSet: true, N: 2},
	{Regexp: true, End: `\n+`, EndSet: true},
	{Regexp: true, End: `[;,]`, EndSet: true, N: 2},
	{Regexp: true, End: "", EndSet: true},
	{Header: ":"},
	{Header: ":", N: 2},
	{Header: "2", L: 1},
	{Header: "(#.*\n)*"},
	{Header: ":", Regexp: true, Start: "^@", StartSet: true, N: 1},
}

// checkAgainstModel compares a BlockSplitter over input, read in several
// ways, with the model.
func checkAgainstModel(t *testing.T, input []byte, size int64, rec Records, seed int64) {
	t.Helper()
	wantHeader, want := modelBlocks(t, input, size, rec)
	readers := map[string]io.Reader{
		"whole":  bytes.NewReader(input),
		"bytes":  iotest.OneByteReader(bytes.NewReader(input)),
		"eof":    iotest.DataErrReader(bytes.NewReader(input)),
		"chunky": &chunkyReader{bytes.NewReader(input), rand.New(rand.NewSource(seed))},
	}
	for name, r := range readers {
		header, got, err := splitBlocks(t, r, size, rec)
		if err != io.EOF {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(header, wantHeader) || !equalBlocks(got, want) {
			t.Fatalf("%s reader, size %d, %+v, input %q:\n got header %q blocks %q\nwant header %q blocks %q",
				name, size, rec, input, header, got, wantHeader, want)
		}
		var all []byte
		all = append(all, header...)
		for _, b := range got {
			all = append(all, b...)
		}
		if !bytes.Equal(all, input) {
			t.Fatalf("header and blocks are %q, not the input %q", all, input)
		}
	}
}

func equalBlocks(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestBlockSplitterMatchesModel compares the splitter with the model over
// random inputs made of the bytes the options care about.
func TestBlockSplitterMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab@#\n\n\n\x00;,")
	for round := range 300 {
		input := make([]byte, rng.Intn(80))
		for i := range input {
			input[i] = alphabet[rng.Intn(len(alphabet))]
		}
		size := int64(1 + rng.Intn(20))
		for _, rec := range modelRecords {
			checkAgainstModel(t, input, size, rec, int64(round))
		}
	}
}

// TestBlockSplitterMatchesModelLarge: the same over larger inputs and
// blocks, where a regexp's last boundary is looked for in the tail of a
// buffer (cutRule.lastMatch).
func TestBlockSplitterMatchesModelLarge(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte("ab@#\n\n;,xyz")
	for round := range 2 {
		input := make([]byte, 120000+rng.Intn(40000))
		for i := range input {
			input[i] = alphabet[rng.Intn(len(alphabet))]
		}
		if round%2 == 1 { // long records, so that tails hold no boundary
			input = bytes.ReplaceAll(input, []byte("\n"), []byte("a"))
			for i := 0; i < len(input); i += 1 + rng.Intn(40000) {
				input[i] = '\n'
			}
		}
		size := int64(40000 + rng.Intn(20000)) // over 2*lastWindow: tails are scanned
		for _, rec := range modelRecords {
			if rec.Regexp && rec.N == 0 {
				checkAgainstModel(t, input, size, rec, int64(round))
			}
		}
	}
}

// FuzzBlockSplitter: over any input, block size and options, the splitter
// cuts as the model does, and its header and blocks are the input.
func FuzzBlockSplitter(f *testing.F) {
	f.Add([]byte("a\nb\nc"), uint8(2), uint8(0))
	f.Add([]byte("h\n@1\n@2\nx"), uint8(3), uint8(22))
	f.Add([]byte("\x00\x00a\x00"), uint8(1), uint8(6))
	f.Add([]byte(""), uint8(1), uint8(18))
	f.Fuzz(func(t *testing.T, input []byte, size, opts uint8) {
		rec := modelRecords[int(opts)%len(modelRecords)]
		checkAgainstModel(t, input, int64(size%64)+1, rec, int64(len(input)))
	})
}
