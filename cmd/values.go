package cmd

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/fan-run/fan/input"
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// value is a flag whose text is parsed into a T as it is read, so that a
// bad value fails at parse time. An empty value is refused: it would
// otherwise quietly mean the default, as if the flag had not been given.
// parse's error follows the flag's name in the message, unless it is a
// usage error already.
//
// Its type is "string", as for the plain string flags, so that --help,
// the man page and the completions show it as they did.
type value[T any] struct {
	name   string // the flag's, for messages
	text   string // as given, or the default's text
	target *T
	parse  func(string) (T, error)
}

// newValue is a value for the flag name, parsing into target, whose
// default is the text def.
func newValue[T any](name, def string, target *T, parse func(string) (T, error)) *value[T] {
	v := &value[T]{name: name, text: def, target: target, parse: parse}
	if def != "" {
		if err := v.Set(def); err != nil {
			panic(err) // a default fan gives itself
		}
	}
	return v
}

func (v *value[T]) Set(s string) error {
	if s == "" {
		return emptyError(v.name)
	}
	t, err := v.parse(s)
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return err
	case err != nil:
		return usageErrorf("--%s: %v", v.name, err)
	}
	*v.target, v.text = t, s
	return nil
}

func (v *value[T]) String() string { return v.text }
func (v *value[T]) Type() string   { return "string" }

// emptyError is the message for a flag given an empty value.
func emptyError(name string) *usageError {
	return &usageError{msg: fmt.Sprintf("--%s: the value is empty (give one, see fan --help)", name)}
}

// A function for each typed flag: it registers the flag with its value.

func durationVar(f *pflag.FlagSet, p *time.Duration, name, usage string) {
	f.Var(newValue(name, "", p, runner.ParseDuration), name, usage)
}

func timeoutVar(f *pflag.FlagSet, p *runner.Timeout, name, usage string) {
	f.Var(newValue(name, "", p, runner.ParseTimeout), name, usage)
}

func haltVar(f *pflag.FlagSet, p *runner.Halt, name, def, usage string) {
	f.Var(newValue(name, def, p, runner.ParseHalt), name, usage)
}

func termSeqVar(f *pflag.FlagSet, p *runner.TermSeq, name, def, usage string) {
	f.Var(newValue(name, def, p, runner.ParseTermSeq), name, usage)
}

func colorVar(f *pflag.FlagSet, p *output.ColorMode, name, def, usage string) {
	f.Var(newValue(name, def, p, output.ParseColorMode), name, usage)
}

// trimVar is --trim: nil until given, so that --colsep's trimming of
// both ends applies only when --trim does not say otherwise.
func trimVar(f *pflag.FlagSet, p **input.Trim, name, usage string) {
	f.Var(newValue(name, "", p, func(s string) (*input.Trim, error) {
		t, err := input.ParseTrim(s)
		return &t, err
	}), name, usage)
}

func regexpVarP(f *pflag.FlagSet, p **regexp.Regexp, name, short, usage string) {
	f.VarP(newValue(name, "", p, func(s string) (*regexp.Regexp, error) {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a regular expression: %v", s, err)
		}
		return re, nil
	}), name, short, usage)
}

// Joblog is --joblog: a file ("-" is stdout), and whether it is appended
// to (--joblog +FILE, as in GNU parallel).
type Joblog struct {
	Path   string
	Append bool
}

func joblogVar(f *pflag.FlagSet, p *Joblog, name, usage string) {
	f.Var(newValue(name, "", p, func(s string) (Joblog, error) {
		if rest, ok := strings.CutPrefix(s, "+"); ok && rest != "" {
			return Joblog{Path: rest, Append: true}, nil
		}
		return Joblog{Path: s}, nil
	}), name, usage)
}

// escapedValue is a string flag in which the escapes GNU parallel reads
// in --tagstring (\t, \n, octal) stand for their bytes. It may be empty:
// then there is none.
type escapedValue struct {
	name   string
	text   string
	target *string
}

func escapedVar(f *pflag.FlagSet, p *string, name, usage string) {
	f.Var(&escapedValue{name: name, target: p}, name, usage)
}

func (v *escapedValue) Set(s string) error {
	b, err := input.Unescape(s)
	if err != nil {
		return usageErrorf("--%s: %v", v.name, err)
	}
	*v.target, v.text = string(b), s
	return nil
}

func (v *escapedValue) String() string { return v.text }
func (v *escapedValue) Type() string   { return "string" }

// intValue is an int flag that takes decimal digits only, as GNU
// parallel's and xargs's do (pflag alone would read -n 0x10 as 16), and
// refuses a value below least with the message tooLow (given the value).
// With units, a count may end with one of GNU parallel's unit letters as
// a size does (-N 1k is 1000, -L 2K is 2048): GNU parallel reads -n, -N,
// -L and -s so.
type intValue struct {
	target *int
	least  int
	tooLow string
	units  bool
}

func intVarP(f *pflag.FlagSet, p *int, name, short string, least int, tooLow, usage string) {
	f.VarP(&intValue{target: p, least: least, tooLow: tooLow}, name, short, usage)
}

// countVarP is intVarP for a count that takes units (see intValue).
func countVarP(f *pflag.FlagSet, p *int, name, short string, least int, tooLow, usage string) {
	f.VarP(&intValue{target: p, least: least, tooLow: tooLow, units: true}, name, short, usage)
}

func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 0) // decimal, as GNU parallel and xargs read it: -n 010 is 10
	if err != nil && v.units && strings.ContainsAny(s[len(s)-min(len(s), 2):], "kmgtpeKMGTPE") {
		if size, serr := input.ParseSize(s); serr == nil && size <= math.MaxInt32 {
			n, err = size, nil
		}
	}
	if err != nil {
		return err // a *strconv.NumError: see flagErrorText
	}
	if int(n) < v.least {
		return usageErrorf(v.tooLow, n)
	}
	*v.target = int(n)
	return nil
}

func (v *intValue) String() string { return strconv.Itoa(*v.target) }
func (v *intValue) Type() string   { return "int" }

// optionalString is a string flag that may be given empty, and tells
// whether it was given at all (nil: not given): --recend ” differs from
// no --recend.
type optionalString struct{ target **string }

func optionalStringVar(f *pflag.FlagSet, p **string, name, usage string) {
	f.Var(optionalString{target: p}, name, usage)
}

func (v optionalString) Set(s string) error { *v.target = &s; return nil }
func (v optionalString) Type() string       { return "string" }
func (v optionalString) String() string {
	if *v.target == nil {
		return ""
	}
	return **v.target
}

// sizeVar is a size in bytes with GNU parallel's units (--block 10M).
func sizeVar(f *pflag.FlagSet, p *int64, name, usage string) {
	f.Var(newValue(name, "", p, input.ParseSize), name, usage)
}
