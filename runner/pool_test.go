package runner

import (
	"testing"

	"github.com/fan-run/fan/input"
)

// A job a drain keeps from starting carries the command it would have
// run only when something reads it (the failures file): a drain can leave
// a million of them.
func TestNotStartedCommand(t *testing.T) {
	tmpl := NewTemplate(TemplateOptions{Words: []string{"echo", "{}"}})
	item := input.Item{Seq: 3, Args: []string{"x"}}
	r := (&Pool{Template: tmpl}).notStarted(item)
	if !r.NotStarted || r.Status != -1 || r.Command.String() != "" {
		t.Errorf("without NotStartedCommands: not started %v, status %d, command %q", r.NotStarted, r.Status, r.Command.String())
	}
	r = (&Pool{Template: tmpl, NotStartedCommands: true}).notStarted(item)
	if got := r.Command.String(); !r.NotStarted || got != "echo x" {
		t.Errorf("with NotStartedCommands: not started %v, command %q, want %q", r.NotStarted, got, "echo x")
	}
}
