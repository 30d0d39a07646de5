package runner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// durationForms is what an error about a duration suggests instead.
const durationForms = "seconds, or numbers with units d h m s ms: try 30, 1.5, 2.5m, 1m30s, 1m30, 1d2h, 250ms"

// ParseDuration reads a duration as fan's flags take it, which is GNU
// parallel's time form: a number of seconds ("30", "1.5"), or numbers
// each followed by a unit d, h, m or s, in any case, summed ("2.5m",
// "1d2h3m4s", "30S"), where a bare number after the last unit is more
// seconds ("1m30" is 90 s, "1h30" is 3630 s). Go's units ms, us, µs and
// ns are taken too: "250ms" is 250 milliseconds, fan's own reading (GNU
// parallel's --delay takes 300ms as 300 minutes times a second, 18000 s;
// its --timeout refuses it). A duration too large for a Duration (about
// 292 years) is taken as the largest one. Negative values, and anything
// else, are errors.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(t, 64); err == nil && v >= 0 {
		return inUnits(v, time.Second), nil
	}
	t = strings.TrimPrefix(t, "+") // as Go's "+5s" and GNU parallel's --delay take it
	if t == "" {
		return 0, durationError(s)
	}
	var sum time.Duration
	for rest := t; rest != ""; {
		v, after, ok := cutNumber(rest)
		if !ok {
			return 0, durationError(s)
		}
		unit, after := cutUnit(after)
		if unit == 0 {
			if after != "" || rest == t {
				return 0, durationError(s)
			}
			unit = time.Second // a bare number after the last unit
		}
		sum = addSaturating(sum, inUnits(v, unit))
		rest = after
	}
	return sum, nil
}

func durationError(s string) error {
	if strings.HasPrefix(strings.TrimSpace(s), "-") {
		return fmt.Errorf("%q is negative (%s)", s, durationForms)
	}
	return fmt.Errorf("%q is not a duration (%s)", s, durationForms)
}

// cutNumber takes the unsigned decimal number s starts with (digits with
// an optional fraction and exponent, as "2", "2.5", ".5", "1e3"), and
// returns it and what follows it; ok is false when s starts with none.
func cutNumber(s string) (v float64, rest string, ok bool) {
	i, digits := 0, 0
	for ; i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.'); i++ {
		if s[i] != '.' {
			digits++
		}
	}
	if digits == 0 {
		return 0, s, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if k := j; k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			i = k
		}
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil { // two dots, say
		return 0, s, false
	}
	return v, s[i:], true
}

// units are the unit words ParseDuration takes, longest first so that
// "ms" is not read as "m" followed by "s".
var units = []struct {
	word string
	unit time.Duration
}{
	{"ms", time.Millisecond},
	{"us", time.Microsecond},
	{"µs", time.Microsecond}, // U+00B5 micro sign, as Go takes it
	{"μs", time.Microsecond}, // U+03BC Greek mu, as Go takes it
	{"ns", time.Nanosecond},
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
}

// cutUnit takes the unit word s starts with, in any case, and returns the
// unit and what follows the word; unit is 0 when s starts with none.
func cutUnit(s string) (unit time.Duration, rest string) {
	for _, u := range units {
		if len(s) >= len(u.word) && strings.EqualFold(s[:len(u.word)], u.word) {
			return u.unit, s[len(u.word):]
		}
	}
	return 0, s
}

// inUnits is v times unit, to the nearest nanosecond, or the largest
// Duration when that is larger (a conversion out of range would wrap to a
// negative one: no limit).
func inUnits(v float64, unit time.Duration) time.Duration {
	if d := v * float64(unit); d < math.MaxInt64 {
		return time.Duration(math.Round(d))
	}
	return math.MaxInt64
}

// addSaturating is a+b for non-negative a and b, or the largest Duration
// when the sum is larger.
func addSaturating(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
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
