package output

import (
	"regexp"
	"testing"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/runner"
)

// The --results layout, as GNU parallel lays it out: a level pair per
// record, numbered by source; with --colsep, per column, numbered through
// each tuple of records.
func TestResultsJobDir(t *testing.T) {
	comma := regexp.MustCompile(",")
	for _, c := range []struct {
		sources int
		colsep  *regexp.Regexp
		records []string
		want    string
	}{
		{1, nil, []string{"a"}, "D/1/a"},
		{2, nil, []string{"a", "x"}, "D/1/a/2/x"},
		{1, nil, []string{"a", "b"}, "D/1/a/1/b"}, // -n 2
		{1, comma, []string{"a,b"}, "D/1/a/2/b"},
		{2, comma, []string{"a,b", "x,y"}, "D/1/a/2/b/3/x/4/y"},
		{1, comma, []string{"a,b", "c,d"}, "D/1/a/2/b/1/c/2/d"}, // -n 2
		{1, nil, []string{"a/b", ".."}, `D/1/a\_b/1/\..`},
	} {
		rs := &Results{Dir: "D", Sources: c.sources, Colsep: c.colsep}
		r := &runner.Result{Item: input.Item{Seq: 1, Records: c.records}}
		if got := rs.jobDir(r); got != c.want {
			t.Errorf("%d sources, colsep %v, records %q: %q, want %q", c.sources, c.colsep, c.records, got, c.want)
		}
	}
}
