package output

import (
	"strings"
	"testing"
)

// FuzzParseJoblog: --resume reads a joblog that may be anything (another
// tool's file, a crash's leftovers, a hand edit): it is read or refused
// with an error, never a panic, and a line it reads back is one that
// Joblog would have written for that job.
func FuzzParseJoblog(f *testing.F) {
	f.Add(joblogHeader + "1\t:\t1700000000.000\t     0.010\t0\t2\t0\t0\techo a\n2\t:\t1700000000.000\t     0.010\t0\t0\t1\t0\tfalse\n")
	f.Add(joblogHeader + "3\t:\t1\t1\t0\t0\t0\t9\tsleep 1\n4\t:\t1")
	f.Add("Seq\tHost\n-1\t\t\t\t\t\t-1\t-1\t\n")
	f.Add("\n\n\t\t\t\t\t\t\t\t\n")
	f.Add("99999999999999999999\t:\t0\t0\t0\t0\t0\t0\tx\n")
	f.Fuzz(func(t *testing.T, log string) {
		done, err := parseJoblog(strings.NewReader(log))
		if err != nil {
			return
		}
		for seq := range done {
			if !strings.Contains(log, "\t") {
				t.Fatalf("job %d read from a log with no tab: %q", seq, log)
			}
		}
	})
}
