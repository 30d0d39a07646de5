package cmd

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Jobs is -j as given: a count (0 is no limit), a percentage of the CPUs
// (N%), a number of CPUs more or fewer (+N, -N), a file holding one of
// these that may change while fan runs (a procfile), or auto. The zero
// Jobs was not given: as many jobs as CPUs.
type Jobs struct {
	Given    bool
	Count    int     // N, capped at maxJobs
	Percent  float64 // N%, when above 0
	Relative bool    // +N or -N: Delta added to the CPU count
	Delta    int
	// File names a procfile: any value that is not a job count (./4
	// names a file called 4). Of does not apply: see checkJobs.
	File string
	// Auto is -j auto[:MIN:MAX]: the limit adapts between AutoMin and
	// AutoMax (0: their defaults). Of does not apply: see checkJobs.
	Auto             bool
	AutoMin, AutoMax int

	text string // as given, for messages
	err  error  // a -N or N% form that is no job count: see jobsValue
}

// maxJobs caps -j: more jobs than this could never run at once (it is far
// above any system's process limit), and a larger count would only
// overflow the sizes derived from it.
const maxJobs = 1 << 20

// Of is the number of jobs with ncpu CPUs: 0 for no limit, else at least
// 1 and at most maxJobs. It is for a count, not File or Auto.
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

// parseJobs reads -j in each of its forms (see Jobs). What is not a job
// count, auto or a malformed N% or ±N is a procfile's name.
func parseJobs(s string) (Jobs, error) {
	j, err := parseCount(s)
	if err == nil || (Jobs{text: s}).xargsForm() || strings.HasPrefix(s, "+") {
		return j, err
	}
	if s == "auto" || strings.HasPrefix(s, "auto:") {
		return parseAuto(s)
	}
	return Jobs{Given: true, text: s, File: s}, nil
}

// parseAuto reads -j auto[:MIN:MAX].
func parseAuto(s string) (Jobs, error) {
	j := Jobs{Given: true, text: s, Auto: true}
	if s == "auto" {
		return j, nil
	}
	f := strings.Split(strings.TrimPrefix(s, "auto:"), ":")
	if len(f) != 2 {
		return Jobs{}, usageErrorf("--jobs: %q: give both bounds, -j auto:MIN:MAX (as -j auto:2:16), or none (-j auto)", s)
	}
	lo, err1 := count(f[0])
	hi, err2 := count(f[1])
	switch {
	case err1 != nil || err2 != nil || lo < 1:
		return Jobs{}, usageErrorf("--jobs: %q: MIN and MAX of -j auto:MIN:MAX are job counts of 1 or more (try -j auto:2:16)", s)
	case lo > hi:
		return Jobs{}, usageErrorf("--jobs: %q: MIN %d is above MAX %d (try -j auto:%d:%d)", s, lo, hi, hi, lo)
	}
	j.AutoMin, j.AutoMax = lo, hi
	return j, nil
}

// parseCount reads -j as a job count: N, N%, +N or -N.
func parseCount(s string) (Jobs, error) {
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
