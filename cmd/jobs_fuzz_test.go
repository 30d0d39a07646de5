package cmd

import (
	"strings"
	"testing"
)

// FuzzParseJobs: any -j value is a job count, -j auto, a procfile's name
// or refused, never a panic; an accepted count is within bounds, and "no
// limit" (0) only when the value is a 0.
func FuzzParseJobs(f *testing.F) {
	for _, s := range []string{"4", "0", "50%", "+1", "-1", "-0", "00", "1e2", "NaN%", "inf%", "+Inf%", "0x10%", "99999999999999999999", "%", "+", "1.5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		j, err := parseJobs(s)
		if err != nil || j.File != "" || j.Auto {
			return
		}
		for _, ncpu := range []int{1, 4, 1 << 30} {
			n := j.Of(ncpu)
			if n < 0 || n > maxJobs {
				t.Fatalf("-j %q with %d CPUs: %d jobs", s, ncpu, n)
			}
			if n == 0 && strings.Trim(s, "0") != "" {
				t.Fatalf("-j %q means no limit", s)
			}
		}
	})
}
