package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration as fan's flags take it: seconds ("30",
// "1.5"), GNU parallel's suffixed seconds ("2m", "1h", "1d"), or a Go
// duration ("1.5s", "250ms", "1m30s"). A number of seconds or days too
// large for a Duration (about 292 years) is taken as the largest one.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(t, 64); err == nil && v >= 0 {
		return inUnits(v, time.Second), nil
	}
	if n := len(t); n > 1 && t[n-1] == 'd' {
		if v, err := strconv.ParseFloat(t[:n-1], 64); err == nil && v >= 0 {
			return inUnits(v, 24*time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(t); err == nil && d >= 0 {
		return d, nil
	}
	return 0, fmt.Errorf("%q is not a duration (try 30, 1.5, 1.5s, 250ms or 2m)", s)
}

// inUnits is v times unit, or the largest Duration when that is larger
// (a conversion out of range would wrap to a negative one: no limit).
func inUnits(v float64, unit time.Duration) time.Duration {
	if d := v * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}

// Timeout is --timeout: a fixed duration, or a percentage of the median
// runtime of the jobs that succeeded so far.
type Timeout struct {
	Fixed   time.Duration
	Percent float64
}

// ParseTimeout reads --timeout: a duration or "N%".
func ParseTimeout(s string) (Timeout, error) {
	if p, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v <= 0 {
			return Timeout{}, fmt.Errorf("%q is not a percentage (try 200%%)", s)
		}
		return Timeout{Percent: v}, nil
	}
	d, err := ParseDuration(s)
	return Timeout{Fixed: d}, err
}
