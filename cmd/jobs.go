package cmd

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Jobs is -j as given: a count (0 is no limit), a percentage of the CPUs
// (N%), or a number of CPUs more or fewer (+N, -N). The zero Jobs was not
// given: as many jobs as CPUs.
type Jobs struct {
	Given    bool
	Count    int     // N, capped at maxJobs
	Percent  float64 // N%, when above 0
	Relative bool    // +N or -N: Delta added to the CPU count
	Delta    int

	text string // as given, for messages
	err  error  // a -N or N% form that is no job count: see jobsValue
}

// maxJobs caps -j: more jobs than this could never run at once (it is far
// above any system's process limit), and a larger count would only
// overflow the sizes derived from it.
const maxJobs = 1 << 20

// Of is the number of jobs with ncpu CPUs: 0 for no limit, else at least
// 1 and at most maxJobs.
func (j Jobs) Of(ncpu int) int {
	switch {
	case !j.Given:
		return min(ncpu, maxJobs)
	case j.Percent > 0:
		return max(1, int(min(float64(ncpu)*j.Percent/100, maxJobs)))
	case j.Relative:
		return min(max(1, ncpu+j.Delta), maxJobs)
	}
	return j.Count
}

// parseJobs reads -j in each of its forms (see Jobs).
func parseJobs(s string) (Jobs, error) {
	bad := func() (Jobs, error) {
		return Jobs{}, usageErrorf("--jobs: %q is not a job count (try -j 4, -j 50%%, -j +1, -j -1 or -j 0 for no limit)", s)
	}
	j := Jobs{Given: true, text: s}
	switch {
	case strings.HasSuffix(s, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || !(p > 0) || math.IsInf(p, 1) { // NaN% would mean no limit
			return bad()
		}
		j.Percent = p
		return j, nil
	case strings.HasPrefix(s, "+"), strings.HasPrefix(s, "-"):
		n, err := count(s[1:])
		if err != nil {
			return bad()
		}
		j.Relative, j.Delta = true, n // count caps n: no overflow here
		if s[0] == '-' {
			j.Delta = -n
		}
		return j, nil
	}
	n, err := count(s)
	if err != nil {
		return bad()
	}
	j.Count = n
	return j, nil
}

// count reads a count of jobs: digits only, capped at maxJobs (one too
// large for an int too).
func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && n > 0 {
		return maxJobs, nil
	}
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, strconv.ErrSyntax
	}
	return min(n, maxJobs), nil
}

// xargsForm reports whether -j was given in a form that xargs's -P,
// a plain count, does not take: -N or N%.
func (j Jobs) xargsForm() bool {
	return strings.HasPrefix(j.text, "-") || strings.HasSuffix(j.text, "%")
}

// jobsValue is the value of -j and of its other name -P. A -N or N% form
// that is no job count is kept, not refused, for check to report: under
// --xargs, which may come later on the line, the message is -P's.
type jobsValue struct {
	name   string
	target *Jobs
}

func jobsVarP(f *pflag.FlagSet, p *Jobs, name, short, usage string) {
	f.VarP(&jobsValue{name: name, target: p}, name, short, usage)
}

func (v *jobsValue) Set(s string) error {
	if s == "" {
		return emptyError(v.name)
	}
	j, err := parseJobs(s)
	if err != nil {
		if !(Jobs{text: s}).xargsForm() {
			return err
		}
		j = Jobs{Given: true, text: s, err: err}
	}
	*v.target = j
	return nil
}

func (v *jobsValue) String() string { return v.target.text }
func (v *jobsValue) Type() string   { return "string" }
