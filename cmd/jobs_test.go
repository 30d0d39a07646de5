package cmd

import (
	"errors"
	"strings"
	"testing"
)

func TestParseJobs(t *testing.T) {
	for _, c := range []struct {
		s    string
		ncpu int
		want int
	}{
		{"", 4, 4},
		{"1", 4, 1},
		{"16", 4, 16},
		{"0", 4, 0}, // no limit
		{"50%", 4, 2},
		{"50%", 1, 1}, // at least one
		{"100%", 4, 4},
		{"200%", 4, 8},
		{"150%", 3, 4},
		{"12.5%", 16, 2},
		{"+1", 4, 5},
		{"+0", 4, 4},
		{"-1", 4, 3},
		{"-1", 1, 1},
		{"-100", 4, 1},
		// beyond what could run at once: capped, not overflowed
		{"9223372036854775807", 4, maxJobs},
		{"+9223372036854775807", 4, maxJobs},
		{"99999999999999999999", 4, maxJobs}, // beyond an int too
		{"+99999999999999999999", 4, maxJobs},
		{"-99999999999999999999", 4, 1},
		{"1e300%", 4, maxJobs},
	} {
		j := Jobs{}
		var err error
		if c.s != "" {
			j, err = parseJobs(c.s)
		}
		if got := j.Of(c.ncpu); err != nil || got != c.want {
			t.Errorf("parseJobs(%q).Of(%d) = %d, %v; want %d", c.s, c.ncpu, got, err, c.want)
		}
	}
	// What is no count is a procfile's name (./4 names a file called 4),
	// unless it is auto.
	for _, s := range []string{"abc", "1.5", " 2", "2 ", "1e3", "0x10", "./4", "auto:x", "autox"} {
		j, err := parseJobs(s)
		if err != nil && s != "auto:x" || s == "auto:x" && err == nil || err == nil && j.File != s {
			t.Errorf("parseJobs(%q) = %+v, %v; want the procfile %q", s, j, err, s)
		}
	}
	for s, want := range map[string][2]int{"auto": {0, 0}, "auto:2:16": {2, 16}, "auto:3:3": {3, 3}} {
		j, err := parseJobs(s)
		if err != nil || !j.Auto || j.AutoMin != want[0] || j.AutoMax != want[1] {
			t.Errorf("parseJobs(%q) = %+v, %v; want auto within %v", s, j, err, want)
		}
	}
	if a := autoBounds(Jobs{Auto: true}, 2); *a != (autoSpec{min: 1, max: 8, start: 2}) {
		t.Errorf("-j auto on 2 CPUs: %+v, want 1 to 8 from 2", *a)
	}
	if a := autoBounds(Jobs{Auto: true, AutoMin: 4, AutoMax: 6}, 2); *a != (autoSpec{min: 4, max: 6, start: 4}) {
		t.Errorf("-j auto:4:6 on 2 CPUs: %+v, want 4 to 6 from 4", *a)
	}
	for _, s := range []string{"%", "0%", "-5%", "x%", "+", "-", "+x", "--1", "++1", "+-1", "-+1"} {
		_, err := parseJobs(s)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--jobs: ") || !strings.Contains(err.Error(), "(try -j 4") {
			t.Errorf("parseJobs(%q): %v, want a usage error that says what to try", s, err)
		}
	}
}
