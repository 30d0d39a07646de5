package runner

import (
	"github.com/fan-run/fan/input"
)

// Text is a string with replacement strings, rendered per job without any
// quoting: the --tagstring of output lines. It is safe for concurrent use.
type Text struct {
	parts []part
}

// NewText parses s with the replacement strings of sx, as the command
// template's. A --plus expression it cannot read is an error that
// CheckText reports; check texts with it first.
func NewText(s string, sx Syntax) *Text {
	sx.Replace = sx.replaceOf()
	parts, _ := parseParts(s, sx)
	return &Text{parts: parts}
}

// CheckText reports what NewText cannot read in s: a --plus expression
// that is not valid (the command template reports its own, Template.Err).
func CheckText(s string, sx Syntax) error {
	sx.Replace = sx.replaceOf()
	_, err := parseParts(s, sx)
	return err
}

// Render returns the text of one job, which runs in slot. A replacement
// string with several values ({} with -n 2) gives them separated by
// spaces.
func (t *Text) Render(item *input.Item, slot Slot) string {
	return string(renderParts(nil, t.parts, item, &slot, -1, false))
}

// Varies reports whether the text holds a replacement string, so that it
// renders differently from job to job.
func (t *Text) Varies() bool {
	for _, p := range t.parts {
		if p.tok != nil {
			return true
		}
	}
	return false
}
