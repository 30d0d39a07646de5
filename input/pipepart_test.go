package input

import (
	"bytes"
	"fmt"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// modelParts is GNU parallel's find_split_positions written out plainly
// over a whole file in memory, with fan's difference under Regexp (the
// first boundary, seeing the byte before the nominal cut).
func modelParts(t testing.TB, file []byte, block int64, rec Records) Parts {
	t.Helper()
	rule, err := rec.compile()
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(file))
	var p Parts
	if rule.header != nil {
		// The header is looked for in the first block size, then in
		// more (fan's schedule: see partHeader).
		step := min(block, partWindow)
		for n := step; ; {
			n = min(n, size)
			if m := rule.header.FindIndex(file[:n]); m != nil {
				p.Header.Len = int64(m[1])
				break
			}
			if n == size {
				break
			}
			if block <= partWindow && n < 16*step {
				n += step
			} else {
				n *= 2
			}
		}
	}
	pos := []int64{p.Header.Len}
	for at := p.Header.Len + block; at < size; at += block {
		cut := int64(-1)
		switch {
		case rule.re == nil && len(rule.sep) == 0:
			cut = at
		case rule.re == nil:
			for i := at; i+int64(len(rule.sep)) <= size; i++ {
				if bytes.Equal(file[i:i+int64(len(rule.sep))], rule.sep) {
					cut = i + int64(rule.endLen)
					break
				}
			}
		default:
			for _, m := range rule.re.FindAllSubmatchIndex(file[at-1:], 2) {
				if m[0] < 1 && m[2*rule.cut] <= 1 {
					continue
				}
				cut = at - 1 + int64(m[2*rule.cut])
				break
			}
		}
		if cut < 0 {
			continue // GNU parallel looks again from the next nominal cut, in vain
		}
		pos = append(pos, cut)
		at = cut
	}
	if pos[len(pos)-1] != size {
		pos = append(pos, size)
	}
	for i := 0; i+1 < len(pos); i++ {
		p.Blocks = append(p.Blocks, Span{pos[i], pos[i+1] - pos[i]})
	}
	return p
}

// checkParts checks that parts cover the file after the header, and are
// what the model gives.
func checkParts(t *testing.T, file []byte, block int64, rec Records) {
	t.Helper()
	got, err := FileParts(bytes.NewReader(file), int64(len(file)), block, rec)
	if err != nil {
		t.Fatal(err)
	}
	next := got.Header.Len
	for _, s := range got.Blocks {
		if s.Off != next || s.Len <= 0 {
			t.Fatalf("block %+v after %d: %+v", s, next, got)
		}
		next += s.Len
	}
	if next != int64(len(file)) && !(len(got.Blocks) == 0 && next == got.Header.Len && next == int64(len(file))) {
		t.Fatalf("blocks end at %d of %d: %+v", next, len(file), got)
	}
	want := modelParts(t, file, block, rec)
	if got.Header != want.Header || !equalSpans(got.Blocks, want.Blocks) {
		t.Fatalf("block %d, %+v, file %q:\n got %+v\nwant %+v", block, rec, file, got, want)
	}
}

func equalSpans(a, b []Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var partRecords = []Records{
	{},
	{Null: true},
	{Start: "@", StartSet: true},
	{Start: "@", StartSet: true, End: `\n`, EndSet: true},
	{End: "ab", EndSet: true},
	{End: "", EndSet: true},
	{Regexp: true},
	{Regexp: true, Start: "^@", StartSet: true},
	{Regexp: true, End: `\n+`, EndSet: true},
	{Regexp: true, End: `[;,]`, EndSet: true, Start: "@", StartSet: true},
	{Header: ":"},
	{Header: "(#.*\n)*"},
	{Header: ":", Regexp: true, Start: "^@", StartSet: true},
}

func TestFilePartsMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alphabet := []byte("ab@#\n\n\x00;,")
	for range 300 {
		file := make([]byte, rng.Intn(200))
		for i := range file {
			file[i] = alphabet[rng.Intn(len(alphabet))]
		}
		block := int64(1 + rng.Intn(30))
		for _, rec := range partRecords {
			checkParts(t, file, block, rec)
		}
	}
	// Records longer than the first window read after a cut.
	for round := range 2 {
		file := bytes.Repeat([]byte("x"), 200000)
		for i := 0; i < len(file); i += 1 + rng.Intn(80000) {
			copy(file[i:], "\n@")
		}
		for _, rec := range partRecords {
			checkParts(t, file, int64(20000+round*30000), rec)
		}
	}
}

func FuzzFileParts(f *testing.F) {
	f.Add([]byte("a\nb\nc"), uint8(2), uint8(0))
	f.Add([]byte("h\n@1\n@2\nx"), uint8(3), uint8(12))
	f.Add([]byte(""), uint8(1), uint8(10))
	f.Fuzz(func(t *testing.T, file []byte, block, opts uint8) {
		checkParts(t, file, int64(block%64)+1, partRecords[int(opts)%len(partRecords)])
	})
}

func TestFilePartsTable(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		block  int64
		rec    Records
		header Span
		want   []Span
	}{
		{name: "empty", file: "", block: 10},
		{name: "smaller than a block", file: "a\nb\n", block: 10, want: []Span{{0, 4}}},
		// The cut at 10 moves to after the "\n" at 11, the next at 12+10
		// to after the "\n" at 23, ... as GNU parallel cuts seq 20.
		{name: "seq 20", file: seqLines(1, 20), block: 10, want: []Span{{0, 12}, {12, 12}, {24, 12}, {36, 12}, {48, 3}}},
		{name: "header", file: seqLines(1, 20), block: 10, rec: Records{Header: ":"}, header: Span{0, 2}, want: []Span{{2, 12}, {14, 13}, {27, 12}, {39, 12}}},
		{name: "only a header", file: "h\n", block: 10, rec: Records{Header: ":"}, header: Span{0, 2}},
		{name: "no boundary after a cut", file: "a\nb\ncdefghijklmnop", block: 1, want: []Span{{0, 2}, {2, 2}, {4, 14}}},
		{name: "recend empty cuts anywhere", file: "abcdefg", block: 3, rec: Records{End: "", EndSet: true}, want: []Span{{0, 3}, {3, 3}, {6, 1}}},
		{name: "recstart", file: ">a\n>bb\n>c\n", block: 2, rec: Records{Start: ">", StartSet: true}, want: []Span{{0, 3}, {3, 4}, {7, 3}}},
		// ^ sees the byte before the nominal cut at 2: "b>" is not a
		// record start; the one at 5 is.
		{name: "regexp caret", file: "ab>cd\n>e\n", block: 2, rec: Records{Regexp: true, Start: "^>", StartSet: true}, want: []Span{{0, 6}, {6, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FileParts(strings.NewReader(tt.file), int64(len(tt.file)), tt.block, tt.rec)
			if err != nil {
				t.Fatal(err)
			}
			if got.Header != tt.header || !equalSpans(got.Blocks, tt.want) {
				t.Errorf("got %+v, want header %+v blocks %+v", got, tt.header, tt.want)
			}
		})
	}
}

func seqLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}

func TestFilePartsErrors(t *testing.T) {
	r := strings.NewReader("a\n")
	for _, tt := range []struct {
		block int64
		rec   Records
		want  string
	}{
		{10, Records{N: 2}, "-N"},
		{10, Records{L: 2}, "-L"},
		{0, Records{}, "at least 1"},
		{10, Records{Regexp: true, Start: "(?!x)", StartSet: true}, "--recstart"},
	} {
		if _, err := FileParts(r, 2, tt.block, tt.rec); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("FileParts(%d, %+v): %v, want an error about %s", tt.block, tt.rec, err, tt.want)
		}
	}
	// A block size larger than any file is one block.
	if p, err := FileParts(r, 2, 1<<62, Records{}); err != nil || len(p.Blocks) != 1 || p.Blocks[0] != (Span{0, 2}) {
		t.Errorf("FileParts with a huge block: %+v, %v", p, err)
	}
	// A file shorter than its size is an error, not a short block.
	if _, err := FileParts(strings.NewReader("abc"), 10<<20, 1<<20, Records{}); err == nil {
		t.Error("FileParts of a file shorter than its size: no error")
	}
}

// linesAt is a large file of numbered lines made up as it is read, that
// counts the bytes read from it.
type linesAt struct {
	size int64
	read int64
}

func (l *linesAt) ReadAt(p []byte, off int64) (int, error) {
	const line = "0123456789abcdefghi\n" // 20 bytes
	for i := range p {
		p[i] = line[(off+int64(i))%20]
	}
	l.read += int64(len(p))
	return len(p), nil
}

// TestFilePartsReadsLittle: cutting a 10 GB file into 100 MB blocks reads
// a few tens of KiB per block, not the file.
func TestFilePartsReadsLittle(t *testing.T) {
	f := &linesAt{size: 10e9}
	p, err := FileParts(f, f.size, 100e6, Records{Header: ":"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) != 100 || p.Header.Len != 20 {
		t.Fatalf("%d blocks, header %+v", len(p.Blocks), p.Header)
	}
	for _, b := range p.Blocks[:len(p.Blocks)-1] {
		if (b.Off+b.Len)%20 != 0 {
			t.Fatalf("block %+v does not end at a line end", b)
		}
	}
	if f.read > 100*2*partWindow {
		t.Errorf("read %d bytes to cut %d blocks", f.read, len(p.Blocks))
	}
}

func TestPartBlockSize(t *testing.T) {
	// GNU parallel: 1 + int(size / jobslots / N).
	for _, tt := range []struct {
		total         int64
		slots, per, w int64
	}{{51, 2, 2, 13}, {51, 1, 10, 6}, {0, 4, 10, 1}, {1 << 40, 8, 1, 1<<37 + 1}} {
		if got := PartBlockSize(tt.total, int(tt.slots), int(tt.per)); got != tt.w {
			t.Errorf("PartBlockSize(%d, %d, %d) = %d, want %d", tt.total, tt.slots, tt.per, got, tt.w)
		}
	}
}

// TestFilePartsMatchesParallel cuts files with GNU parallel --pipepart and
// with FileParts and compares what each job reads.
func TestFilePartsMatchesParallel(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (apt-get install parallel): differential tests skipped")
	}
	inputs := pipeInputs()
	for _, c := range []struct {
		name, input, block string
		cut                int // the input's first bytes only, if not 0
		slots              int
		args               []string
		rec                Records
	}{
		{name: "lines", input: "lines", block: "1k"},
		{name: "lines-tiny", input: "lines", cut: 400, block: "9"},
		{name: "lines-no-final", input: "lines-no-final", block: "500"},
		{name: "empty", input: "empty", block: "10"},
		{name: "only-header", input: "csv-header", block: "5", args: []string{"--header", ":"}, rec: Records{Header: ":"}},
		{name: "binary", input: "binary", block: "200"},
		{name: "long", input: "long", block: "30"},
		{name: "nul", input: "nul", block: "333", args: []string{"--recend", `\0`}, rec: Records{Null: true}},
		{name: "recstart", input: "fasta", block: "100", args: []string{"--recstart", ">"}, rec: Records{Start: ">", StartSet: true}},
		{name: "recstart-recend", input: "fastq", block: "100", args: []string{"--recstart", "@", "--recend", `\n`},
			rec: Records{Start: "@", StartSet: true, End: `\n`, EndSet: true}},
		{name: "recend-empty", input: "lines", block: "777", args: []string{"--recend", ""}, rec: Records{End: "", EndSet: true}},
		{name: "header", input: "csv", block: "300", args: []string{"--header", ":"}, rec: Records{Header: ":"}},
		{name: "header-lines", input: "comments", block: "200", args: []string{"--header", "3"}, rec: Records{Header: "3"}},
		{name: "header-regex", input: "comments", block: "3", args: []string{"--header", "(#.*\n)*"}, rec: Records{Header: "(#.*\n)*"}},
		{name: "blocks-per-slot", input: "lines", block: "-3", slots: 2},
		{name: "blocks-per-slot-header", input: "csv", block: "-2", slots: 3, args: []string{"--header", ":"}, rec: Records{Header: ":"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := inputs[c.input]
			if c.cut > 0 {
				file = file[:c.cut]
			}
			block, err := ParseSize(c.block)
			if err != nil {
				t.Fatal(err)
			}
			jobs := "-j1"
			if block < 0 {
				jobs = "-j" + strconv.Itoa(c.slots)
				block = PartBlockSize(int64(len(file)), c.slots, int(-block))
			}
			args := append([]string{"--pipepart", "-a", inputArg, jobs, "--block", c.block}, c.args...)
			want, _, _ := parallelJobs(t, file, args...)
			p, err := FileParts(bytes.NewReader(file), int64(len(file)), block, c.rec)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for _, b := range p.Blocks {
				job := append([]byte(nil), file[p.Header.Off:p.Header.Off+p.Header.Len]...)
				got = append(got, append(job, file[b.Off:b.Off+b.Len]...))
			}
			compareJobs(t, fmt.Sprintf("%q", args), got, want)
		})
	}
}

// TestFilePartsRegexpDiffers: under --regexp GNU parallel moves each cut
// to the last record start in the 128 KiB after it, so over short records
// its blocks take about 128 KiB more than the block size; fan cuts at the
// first record start. (With ^ in --recstart, GNU parallel matches only at
// the nominal cut itself, and reads the rest of the file after every cut
// where it does not.)
func TestFilePartsRegexpDiffers(t *testing.T) {
	file := []byte(strings.Repeat(">rec\nACGT\n", 30000)) // 300 KB
	rec := Records{Regexp: true, Start: ">", StartSet: true}
	p, err := FileParts(bytes.NewReader(file), int64(len(file)), 1001, rec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Blocks[0] != (Span{0, 1010}) || p.Blocks[1] != (Span{1010, 1010}) {
		t.Errorf("first blocks %+v, want {0 1010} {1010 1010}", p.Blocks[:2])
	}
	args := []string{"--pipepart", "-a", inputArg, "--block", "1001", "--regexp", "--recstart", ">"}
	blocks, _, ok := parallelJobs(t, file, args...)
	if !ok {
		t.Log("GNU parallel is not installed: its behaviour is not checked")
		return
	}
	if len(blocks) == 0 || len(blocks[0]) < 100000 {
		t.Errorf("GNU parallel's first block is now %d bytes (was about 132 KB): see whether fan should still differ", len(blocks[0]))
	}
}
