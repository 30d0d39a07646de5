package output

import (
	"strings"

	"github.com/fan-run/fan/runner"
)

// NewTagger returns what starts each output line of a job, for Sink.Tag
// and ResultsTable.Tag: tagString rendered for the job (--tagstring, with
// the replacement strings of sx), or with tag (--tag) the job's
// arguments joined by spaces; nil for neither.
func NewTagger(tagString string, sx runner.Syntax, tag bool) func(*runner.Result) string {
	switch {
	case tagString != "":
		t := runner.NewText(tagString, sx)
		return func(r *runner.Result) string { return t.Render(&r.Item, r.Slot) }
	case tag:
		return func(r *runner.Result) string { return strings.Join(r.Item.Args, " ") }
	}
	return nil
}
