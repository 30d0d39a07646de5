package input

import (
	"strings"
	"testing"
)

// OpenSources refuses stdin twice, a missing file and a directory, with
// a message that says what to give instead.
func TestOpenSourcesRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		specs []SourceSpec
		want  string
	}{
		{[]SourceSpec{{Stdin: true}, {File: "-"}}, "stdin is given as an input source twice (use - once)"},
		{[]SourceSpec{{List: []string{"a"}}, {File: dir + "/missing"}}, `cannot read input file "` + dir + `/missing": no such file or directory (check the path`},
		{[]SourceSpec{{File: dir}}, `input file "` + dir + `" is a directory (give -a or :::: a file of items)`},
	} {
		_, _, _, err := OpenSources(c.specs, []byte{'\n'}, strings.NewReader(""))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("OpenSources(%+v) = %v; want %q", c.specs, err, c.want)
		}
	}
	srcs, gates, closeAll, err := OpenSources([]SourceSpec{{List: []string{}}, {File: "-"}}, []byte{'\n'}, strings.NewReader("x\n"))
	if err != nil || len(srcs) != 2 || len(gates) != 2 {
		t.Fatalf("an empty list and stdin: %d sources, %d gates, %v", len(srcs), len(gates), err)
	}
	closeAll()
}
