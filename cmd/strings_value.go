package cmd

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// stringsValue is a repeatable string flag (-a, -S, --env ...): each value
// given is added to the list, the first replacing the default, as pflag's
// StringArray does. It is pflag's in all that shows (type "stringArray",
// so --help, the man page, the completions and FlagSet.GetStringArray
// treat it as one; the same text), but an empty list says "[]" without
// pflag's encoding/csv writer and its 4 KB buffer, which every
// registration made to give the default's text: half of the memory
// building fan's command took, on every start.
type stringsValue struct {
	target  *[]string
	changed bool
}

// stringArrayVar registers the repeatable string flag name (and short, if
// any) over p, as pflag's StringArrayVarP. Its default's text is "", which
// --help leaves out as it does "[]" for pflag's own.
func stringArrayVar(f *pflag.FlagSet, p *[]string, name, short, usage string) {
	f.VarPF(&stringsValue{target: p}, name, short, usage).DefValue = ""
}

func (v *stringsValue) Set(s string) error {
	if !v.changed {
		*v.target, v.changed = []string{s}, true
		return nil
	}
	*v.target = append(*v.target, s)
	return nil
}

func (v *stringsValue) Type() string { return "stringArray" }

// String is the list as pflag writes a StringArray's: its values as a
// line of CSV, in brackets.
func (v *stringsValue) String() string {
	if len(*v.target) == 0 {
		return "[]"
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(*v.target) // a strings.Builder takes every write
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}

// GetSlice is the list, as cobra's completions ask a flag that may be
// given again (cobra.SliceValue; its type name, "stringArray", tells them
// so too).
func (v *stringsValue) GetSlice() []string { return *v.target }
