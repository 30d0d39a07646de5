package cmd

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// A repeatable flag reads as pflag's StringArray does: the same list, the
// same text (which GetStringArray reads back), the same type, the same
// line in --help.
func TestStringsValueIsStringArray(t *testing.T) {
	for _, given := range [][]string{
		nil,
		{"a"},
		{""},
		{"a", "b"},
		{"a,b", `say "hi"`, "two\nlines", " x "},
	} {
		ours, theirs := pflag.NewFlagSet("ours", pflag.ContinueOnError), pflag.NewFlagSet("theirs", pflag.ContinueOnError)
		var got, want []string
		stringArrayVar(ours, &got, "f", "a", "usage")
		theirs.StringArrayVarP(&want, "f", "a", nil, "usage")
		var args []string
		for _, v := range given {
			args = append(args, "-a", v)
		}
		if err := ours.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := theirs.Parse(args); err != nil {
			t.Fatal(err)
		}
		o, th := ours.Lookup("f"), theirs.Lookup("f")
		if !slices.Equal(got, want) || o.Value.String() != th.Value.String() || o.Value.Type() != th.Value.Type() {
			t.Errorf("%q: got %q %q type %s, want %q %q type %s", given,
				got, o.Value.String(), o.Value.Type(), want, th.Value.String(), th.Value.Type())
		}
		if o, th := ours.FlagUsages(), theirs.FlagUsages(); o != th {
			t.Errorf("%q: --help says\n%s\nwant\n%s", given, o, th)
		}
		back, err := ours.GetStringArray("f")
		wantBack, _ := theirs.GetStringArray("f") // [""] reads back as []
		if err != nil || !slices.Equal(back, wantBack) {
			t.Errorf("%q: GetStringArray gave %q, %v, want %q", given, back, err, wantBack)
		}
	}
}
