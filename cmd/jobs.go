package cmd

import (
	"errors"
	"strconv"
	"strings"
)

// parseJobs reads -j in each of its forms: N, N% of the CPUs, +N and -N
// added to the CPU count, and 0 for no limit (returned as 0). ncpu is the
// CPU count; the empty string means all of them.
func parseJobs(s string, ncpu int) (int, error) {
	n, err := parseJobCount(s, ncpu)
	return min(n, maxJobs), err
}

// maxJobs caps -j: more jobs than this could never run at once (it is far
// above any system's process limit), and a larger count would only
// overflow the sizes derived from it.
const maxJobs = 1 << 20

// parseJobCount is parseJobs without the cap.
func parseJobCount(s string, ncpu int) (int, error) {
	bad := func() (int, error) {
		return 0, usageErrorf("--jobs: %q is not a job count (try -j 4, -j 50%%, -j +1, -j -1 or -j 0 for no limit)", s)
	}
	if s == "" {
		return ncpu, nil
	}
	switch {
	case strings.HasSuffix(s, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || p <= 0 {
			return bad()
		}
		return max(1, int(min(float64(ncpu)*p/100, maxJobs))), nil
	case strings.HasPrefix(s, "+"), strings.HasPrefix(s, "-"):
		n, err := count(s[1:])
		if err != nil {
			return bad()
		}
		n = min(n, maxJobs) // no overflow below
		if s[0] == '-' {
			n = -n
		}
		return max(1, ncpu+n), nil
	}
	n, err := count(s)
	if err != nil {
		return bad()
	}
	return n, nil
}

// count reads a count of jobs: digits only; one too large for an int is
// taken as maxJobs, which caps it anyway.
func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && n > 0 {
		return maxJobs, nil
	}
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, strconv.ErrSyntax
	}
	return n, nil
}
