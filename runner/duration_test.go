package runner

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		// Seconds.
		{"30", 30 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{" 2 ", 2 * time.Second},
		{"0", 0},
		{"1e10", math.MaxInt64}, // beyond a Duration: the largest, never a wrap to "none"
		{"inf", math.MaxInt64},

		// GNU parallel's units d, h, m, s, in any case, with decimals.
		{"30s", 30 * time.Second},
		{"30S", 30 * time.Second},
		{"2m", 2 * time.Minute},
		{"2M", 2 * time.Minute},
		{"1h", time.Hour},
		{"1H", time.Hour},
		{"1d", day},
		{"1D", day},
		{"0.5d", 12 * time.Hour},
		{"2.5m", 150 * time.Second},
		{".5m", 30 * time.Second},
		{"1.5h", 90 * time.Minute},
		{"1e300d", math.MaxInt64},

		// Several, summed, in any order and case; a unit may repeat.
		{"1m30s", 90 * time.Second},
		{"1d2h", 26 * time.Hour},
		{"1d2h3m4s", day + 2*time.Hour + 3*time.Minute + 4*time.Second},
		{"1D2H3M4S", day + 2*time.Hour + 3*time.Minute + 4*time.Second},
		{"1h30m", 90 * time.Minute},
		{"30s1m", 90 * time.Second},
		{"1m2m", 3 * time.Minute},
		{"1.5h0.5m", 90*time.Minute + 30*time.Second},
		{"100000000d1d", math.MaxInt64}, // the sum saturates too

		// A bare number after the last unit is more seconds, as in
		// GNU parallel: 1m30 is 60+30 s, 1h30 is 3600+30 s (not 90 min).
		{"1m30", 90 * time.Second},
		{"1h30", time.Hour + 30*time.Second},
		{"0m1", time.Second},
		{"1d2h3m4", day + 2*time.Hour + 3*time.Minute + 4*time.Second},
		{"1m1s1", 62 * time.Second},
		{"1m0.5", 60*time.Second + 500*time.Millisecond},

		// Go's smaller units; ms is milliseconds (fan's reading: GNU
		// parallel's --delay takes 300ms as 300 minutes, 18000 s).
		{"250ms", 250 * time.Millisecond},
		{"300MS", 300 * time.Millisecond},
		{"1.5s", 1500 * time.Millisecond},
		{"1m300ms", time.Minute + 300*time.Millisecond},
		{"1s500ms", 1500 * time.Millisecond},
		{"0.1s", 100 * time.Millisecond},
		{"10us", 10 * time.Microsecond},
		{"10µs", 10 * time.Microsecond},
		{"10μs", 10 * time.Microsecond},
		{"5ns", 5 * time.Nanosecond},
		{"+5s", 5 * time.Second}, // a leading + as Go takes it
		{"+5", 5 * time.Second},
	} {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseDurationErrors(t *testing.T) {
	for _, in := range []string{
		"", " ", "abc", "NaN", "d", "%", ".", "s", "+", "++5s", "+-5s",
		"1x", "1mx", "1m30x", "m", "ms", "m1", "1ss", "1m 30",
		"1m-2", "1m+2", "1..5m", "1.2.3", "1e", "1m1e", "1:30", "1m/3", "2*3",
		"-1", "-2s", "-1m", "-0.5d",
	} {
		got, err := ParseDuration(in)
		if err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", in, got)
			continue
		}
		// One line that says what is accepted.
		if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "1m30s") {
			t.Errorf("ParseDuration(%q): error %q does not say what is accepted", in, msg)
		}
	}
	if _, err := ParseDuration("-1m"); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf(`ParseDuration("-1m") = %v, want an error saying it is negative`, err)
	}
}

func TestParseTimeout(t *testing.T) {
	for in, want := range map[string]Timeout{
		"200%":  {Percent: 200},
		"12.5%": {Percent: 12.5},
		"30":    {Fixed: 30 * time.Second},
		"1m30":  {Fixed: 90 * time.Second},
		"1D2H":  {Fixed: 26 * time.Hour},
	} {
		got, err := ParseTimeout(in)
		if err != nil || got != want {
			t.Errorf("ParseTimeout(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "0%", "-5%", "x%", "1m%", "1m30x"} {
		if got, err := ParseTimeout(in); err == nil {
			t.Errorf("ParseTimeout(%q) = %+v, want an error", in, got)
		}
	}
}

// FuzzParseDuration checks that every non-negative Go duration fan took
// before it read GNU parallel's forms still means the same.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1.5s", "250ms", "1h2m3.5s", "10µs", "5ns", ".5m", "1.s", "+5s", "2562047h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := time.ParseDuration(s)
		if err != nil || strings.HasPrefix(s, "-") { // fan refuses a minus, even on 0
			return
		}
		got, err := ParseDuration(s)
		if err != nil {
			t.Fatalf("ParseDuration(%q): %v; Go reads %v", s, err, want)
		}
		if diff := math.Abs(float64(got - want)); diff > 1+1e-12*float64(want) {
			t.Fatalf("ParseDuration(%q) = %v; Go reads %v", s, got, want)
		}
	})
}
