package input

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipeCase is one input cut by GNU parallel --pipe and by a BlockSplitter.
type pipeCase struct {
	name  string
	input []byte
	block string   // --block, as both read it
	args  []string // GNU parallel's options for rec
	rec   Records
}

// pipeInputs are the inputs the differential cases cut.
func pipeInputs() map[string][]byte {
	rng := rand.New(rand.NewSource(7))
	var lines, fastq, fasta, csv, long, blank, binary bytes.Buffer
	for i := range 120 {
		fmt.Fprintf(&lines, "line %d %s\n", i, strings.Repeat("x", rng.Intn(30)))
	}
	for i := range 60 {
		fmt.Fprintf(&fastq, "@read%d\n%s\n+\n%s\n", i, strings.Repeat("ACGT", 1+rng.Intn(8)), strings.Repeat("I", 4+rng.Intn(30)))
	}
	for i := range 40 {
		fmt.Fprintf(&fasta, ">seq%d\n", i)
		for range 1 + rng.Intn(4) {
			fmt.Fprintf(&fasta, "%s\n", strings.Repeat("GATTACA", 1+rng.Intn(9)))
		}
	}
	csv.WriteString("id,name,value\n")
	for i := range 200 {
		fmt.Fprintf(&csv, "%d,n%d,%d\n", i, i, rng.Intn(1000))
	}
	for i := range 30 {
		fmt.Fprintf(&long, "%s\n", strings.Repeat("y", rng.Intn(10)+i*i*3))
	}
	for range 100 {
		blank.WriteString([]string{"a\n", "\n", "bb\n", "\n\n"}[rng.Intn(4)])
	}
	for range 1500 {
		binary.WriteByte([]byte{0, '\n', 'a', 0xff, 0x80, 'z'}[rng.Intn(6)])
	}
	// Records of binary data that are never empty, for -N.
	records := bytes.TrimLeft(binary.Bytes(), "\n")
	for bytes.Contains(records, []byte("\n\n")) {
		records = bytes.ReplaceAll(records, []byte("\n\n"), []byte("\n\x00\n"))
	}
	return map[string][]byte{
		"binary-records": records,
		"lines":          lines.Bytes(),
		"lines-no-final": bytes.TrimSuffix(lines.Bytes(), []byte("\n")),
		"empty":          nil,
		"one-line":       []byte("only\n"),
		"fastq":          fastq.Bytes(),
		"fasta":          fasta.Bytes(),
		"csv":            csv.Bytes(),
		"csv-header":     []byte("id,name,value\n"),
		"long":           long.Bytes(),
		"blank":          blank.Bytes(),
		"binary":         binary.Bytes(),
		"nul":            bytes.ReplaceAll(lines.Bytes(), []byte("\n"), []byte{0}),
		"comments":       append([]byte("#a\n#b\n#c\n"), lines.Bytes()[:2000]...),
		"paragraphs":     bytes.ReplaceAll(fasta.Bytes(), []byte(">"), []byte("\n>")),
	}
}

// pipeCases are the differential cases. Left out on purpose, each tested
// on its own against fan's documented behaviour:
//   - -N over records that can be empty (blank lines under "\n"): GNU
//     parallel merges an empty record at the start of a block with the
//     next (TestBlockSplitterCountsEmptyRecords).
//   - -0: GNU parallel ignores it; the cases give it --recend '\0', which
//     is what fan's -0 means.
//   - --regexp over delimiters whose matches overlap (see block_cut.go).
func pipeCases(inputs map[string][]byte) []pipeCase {
	startAt := func(s string) Records { return Records{Start: s, StartSet: true} }
	endAt := func(s string) Records { return Records{End: s, EndSet: true} }
	cases := []pipeCase{
		{name: "lines", input: inputs["lines"], block: "1k"},
		{name: "lines-small", input: inputs["lines"][:1500], block: "100"},
		{name: "lines-tiny", input: inputs["lines"][:400], block: "7"},
		{name: "lines-no-final", input: inputs["lines-no-final"], block: "300"},
		{name: "lines-one-block", input: inputs["lines"], block: "1M"},
		{name: "lines-fraction", input: inputs["lines"], block: "0.5K"},
		{name: "empty", input: inputs["empty"], block: "10"},
		{name: "empty-header", input: inputs["empty"], block: "10", args: []string{"--header", ":"}, rec: Records{Header: ":"}},
		{name: "only-header", input: inputs["csv-header"], block: "10", args: []string{"--header", ":"}, rec: Records{Header: ":"}},
		{name: "one-line", input: inputs["one-line"], block: "2"},
		{name: "binary", input: inputs["binary"], block: "200"},
		{name: "binary-N", input: inputs["binary-records"], block: "200", args: []string{"-N", "7"}, rec: Records{N: 7}},
		{name: "nul", input: inputs["nul"], block: "500", args: []string{"--recend", `\0`}, rec: Records{Null: true}},
		{name: "nul-N", input: inputs["nul"], block: "500", args: []string{"--recend", `\0`, "-N", "9"}, rec: Records{Null: true, N: 9}},
		{name: "long-records", input: inputs["long"], block: "20"},
		{name: "long-records-N", input: inputs["long"], block: "20", args: []string{"-N", "2"}, rec: Records{N: 2}},
		{name: "N1", input: inputs["csv"][:300], block: "1k", args: []string{"-N", "1"}, rec: Records{N: 1}},
		{name: "N17", input: inputs["lines"], block: "1k", args: []string{"-N", "17"}, rec: Records{N: 17}},
		{name: "N-no-final", input: inputs["lines-no-final"], block: "1k", args: []string{"-N", "9"}, rec: Records{N: 9}},
		{name: "L3", input: inputs["lines"], block: "500", args: []string{"-L", "3"}, rec: Records{L: 3}},
		{name: "L3-no-final", input: inputs["lines-no-final"], block: "500", args: []string{"-L", "3"}, rec: Records{L: 3}},
		{name: "L4-N2", input: inputs["fastq"], block: "1k", args: []string{"-L", "4", "-N", "2"}, rec: Records{L: 4, N: 2}},
		{name: "fastq-L4", input: inputs["fastq"], block: "300", args: []string{"-L", "4"}, rec: Records{L: 4}},
		{name: "fastq-recstart-N", input: inputs["fastq"], block: "1k", args: []string{"--recstart", "@", "--recend", `\n`, "-N", "4"},
			rec: Records{Start: "@", StartSet: true, End: `\n`, EndSet: true, N: 4}},
		{name: "recstart", input: inputs["fasta"], block: "100", args: []string{"--recstart", ">"}, rec: startAt(">")},
		{name: "recstart-N", input: inputs["fasta"], block: "100", args: []string{"--recstart", ">", "-N", "3"}, rec: Records{Start: ">", StartSet: true, N: 3}},
		{name: "recend-two", input: inputs["paragraphs"], block: "150", args: []string{"--recend", `\n\n`}, rec: endAt(`\n\n`)},
		{name: "recend-empty", input: inputs["lines"], block: "333", args: []string{"--recend", ""}, rec: endAt("")},
		{name: "header-colon", input: inputs["csv"], block: "200", args: []string{"--header", ":"}, rec: Records{Header: ":"}},
		{name: "header-N", input: inputs["csv"], block: "200", args: []string{"--header", ":", "-N", "30"}, rec: Records{Header: ":", N: 30}},
		{name: "header-lines", input: inputs["comments"], block: "300", args: []string{"--header", "3"}, rec: Records{Header: "3"}},
		{name: "header-longer-than-block", input: inputs["comments"][:200], block: "4", args: []string{"--header", "2"}, rec: Records{Header: "2"}},
		{name: "header-regex", input: inputs["comments"], block: "300", args: []string{"--header", "(#.*\n)*"}, rec: Records{Header: "(#.*\n)*"}},
		{name: "header-none-matches", input: inputs["lines"], block: "1k", args: []string{"--header", "#.*\n"}, rec: Records{Header: "#.*\n"}},
		{name: "regexp-recstart", input: inputs["fasta"], block: "100", args: []string{"--regexp", "--recstart", "^>"},
			rec: Records{Regexp: true, Start: "^>", StartSet: true}},
		{name: "regexp-recstart-N", input: inputs["fasta"], block: "100", args: []string{"--regexp", "--recstart", "^>", "-N", "2"},
			rec: Records{Regexp: true, Start: "^>", StartSet: true, N: 2}},
		{name: "regexp-junk-N", input: append([]byte("junk\n"), inputs["fasta"]...), block: "100", args: []string{"--regexp", "--recstart", "^>", "-N", "2"},
			rec: Records{Regexp: true, Start: "^>", StartSet: true, N: 2}},
		{name: "regexp-both", input: inputs["fastq"], block: "400", args: []string{"--regexp", "--recend", `\n`, "--recstart", `@read\d+\n`},
			rec: Records{Regexp: true, End: `\n`, EndSet: true, Start: `@read\d+\n`, StartSet: true}},
		{name: "regexp-recend", input: inputs["paragraphs"], block: "200", args: []string{"--regexp", "--recend", `\n\n+`},
			rec: Records{Regexp: true, End: `\n\n+`, EndSet: true}},
		{name: "regexp-default", input: inputs["lines"], block: "250", args: []string{"--regexp"}, rec: Records{Regexp: true}},
		{name: "regexp-recend-empty", input: inputs["lines"], block: "250", args: []string{"--regexp", "--recend", ""}, rec: Records{Regexp: true, EndSet: true}},
		{name: "regexp-header-N", input: inputs["csv"], block: "300", args: []string{"--regexp", "--header", ":", "--recend", `\n`, "-N", "25"},
			rec: Records{Regexp: true, Header: ":", End: `\n`, EndSet: true, N: 25}},
	}
	return cases
}

// TestBlockSplitterMatchesParallel cuts each case with GNU parallel
// (each job writes its stdin to a file named by its number) and with a
// BlockSplitter, and compares the blocks byte for byte, and the block
// size growths GNU parallel warns of with OnGrow's.
func TestBlockSplitterMatchesParallel(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (apt-get install parallel): differential tests skipped")
	}
	for _, c := range pipeCases(pipeInputs()) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--pipe", "--block", c.block}, c.args...)
			want, warned, _ := parallelJobs(t, c.input, args...)

			size, err := ParseSize(c.block)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewBlockSplitter(bytes.NewReader(c.input), size, c.rec)
			if err != nil {
				t.Fatal(err)
			}
			var grew []string
			s.OnGrow = func(from, to int64) {
				grew = append(grew, fmt.Sprintf("A record was longer than %d. Increasing to --blocksize %d.", from, to))
			}
			var got [][]byte
			eachBlock(t, s, func(b *Block) {
				got = append(got, append(append([]byte(nil), b.Header...), b.Data...))
			})
			compareJobs(t, fmt.Sprintf("%q", args), got, want)
			if strings.Join(grew, "\n") != strings.Join(warned, "\n") {
				t.Errorf("block size growths: fan %q, GNU parallel %q", grew, warned)
			}
		})
	}
}

// growWarning is GNU parallel's warning that the block size grew.
var growWarning = regexp.MustCompile(`A record was longer than \d+\. Increasing to --blocksize \d+\.`)

// inputArg stands for the input file's path in parallelJobs's arguments.
const inputArg = "INPUT"

// parallelJobs runs GNU parallel --will-cite -k -j1 with args (inputArg
// replaced by the path of a file holding input, which is also its stdin),
// each job writing its stdin to a file named by its number, and returns
// what each job read, in order, and GNU parallel's warnings of block size
// growth. ok is false when GNU parallel is not installed.
func parallelJobs(t *testing.T, input []byte, args ...string) (jobs [][]byte, grew []string, ok bool) {
	t.Helper()
	par, err := exec.LookPath("parallel")
	if err != nil {
		return nil, nil, false
	}
	dir := t.TempDir()
	in, out, home := filepath.Join(dir, "input"), filepath.Join(dir, "out"), filepath.Join(dir, "home")
	if err := os.WriteFile(in, input, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	argv := []string{"--will-cite", "-k", "-j1"}
	for _, a := range args {
		argv = append(argv, strings.ReplaceAll(a, inputArg, in))
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(par, append(argv, "cat > "+out+"/{#}")...)
	cmd.Stdin = f
	// GNU parallel keeps state under $HOME.
	cmd.Env = append(os.Environ(), "HOME="+home, "SHELL=/bin/sh", "PARALLEL_HOME="+filepath.Join(home, ".parallel"))
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("parallel %q: %v\n%s", argv, err, stderr.Bytes())
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range entries {
		b, err := os.ReadFile(filepath.Join(out, strconv.Itoa(i+1)))
		if err != nil {
			t.Fatalf("GNU parallel's jobs wrote %d files, not numbered 1 to %d: %v", len(entries), len(entries), err)
		}
		jobs = append(jobs, b)
	}
	return jobs, growWarning.FindAllString(stderr.String(), -1), true
}

// compareJobs reports the first job whose input differs.
func compareJobs(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if equalBlocks(got, want) {
		return
	}
	t.Errorf("%s: fan gives %d jobs, GNU parallel %d", what, len(got), len(want))
	for i := range max(len(got), len(want)) {
		var g, w []byte
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !bytes.Equal(g, w) {
			t.Errorf("job %d: fan %q\nGNU parallel %q", i+1, g, w)
			return
		}
	}
}
