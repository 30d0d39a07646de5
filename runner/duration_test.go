package runner

import (
	"math"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"30":     30 * time.Second,
		"1.5":    1500 * time.Millisecond,
		" 2 ":    2 * time.Second,
		"1d":     24 * time.Hour,
		"0.5d":   12 * time.Hour,
		"1.5s":   1500 * time.Millisecond,
		"250ms":  250 * time.Millisecond,
		"2m":     2 * time.Minute,
		"1m30s":  90 * time.Second,
		"0":      0,
		"1e10":   math.MaxInt64, // beyond a Duration: the largest, never a wrap to "none"
		"1e300d": math.MaxInt64,
		"inf":    math.MaxInt64,
	} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "abc", "1x", "-2s", "NaN", "d", "%"} {
		if got, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", in, got)
		}
	}
}
