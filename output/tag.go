package output

import (
	"fmt"
	"strings"

	"github.com/fan-run/fan/runner"
)

// NewTagger returns what starts each output line of a job, for Sink.Tag
// and ResultsTable.Tag: text rendered for the job (--tagstring), or with
// tag (--tag) the job's arguments joined by spaces; nil for neither.
func NewTagger(text *runner.Text, tag bool) func(*runner.Result) string {
	switch {
	case text != nil:
		return func(r *runner.Result) string { return text.Render(&r.Item, r.Slot) }
	case tag:
		return func(r *runner.Result) string { return strings.Join(r.Item.Args, " ") }
	}
	return nil
}

// tagColors are the backgrounds of --ctag, each with a text color that
// reads well on it (256-color codes), in an order where neighbours differ.
var tagColors = []struct{ bg, fg int }{
	{25, 231}, {214, 16}, {28, 231}, {170, 16}, {88, 231}, {51, 16},
	{93, 231}, {190, 16}, {130, 231}, {117, 16}, {240, 231}, {210, 16},
}

// ColorTags wraps tag (--ctag, --ctagstring) so that each job's tag is
// shown on a background color of its own, picked by its job number, when
// p is on (stdout is a terminal and NO_COLOR is unset, or --color=always).
func ColorTags(tag func(*runner.Result) string, p Palette) func(*runner.Result) string {
	if tag == nil || !p.on {
		return tag
	}
	return func(r *runner.Result) string {
		c := tagColors[(r.Item.Seq-1+int64(len(tagColors)))%int64(len(tagColors))]
		return fmt.Sprintf("\033[48;5;%d;38;5;%dm%s\033[m", c.bg, c.fg, tag(r))
	}
}
