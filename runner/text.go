package runner

import (
	"github.com/fan-run/fan/input"
)

// Text is a string with replacement strings, rendered per job without any
// quoting: the --tagstring of output lines. It is safe for concurrent use.
type Text struct {
	parts []part
}

// ParseText parses s with the replacement strings of sx, as the command
// template's. The error is a --plus expression it cannot read (the
// command template reports its own, Template.Err); the Text then renders
// such an expression as it stands.
func ParseText(s string, sx Syntax) (*Text, error) {
	sx.Replace = sx.replaceOf()
	parts, err := parseParts(s, sx)
	return &Text{parts: parts}, err
}

// NewText is ParseText for a text whose errors were reported already, or
// that fan made itself.
func NewText(s string, sx Syntax) *Text {
	t, _ := ParseText(s, sx)
	return t
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
