package runner

import (
	"context"
	"testing"

	"github.com/fan-run/fan/input"
)

// Views that only the tests need.

// quote is the shell word for s.
func quote(s string) string { return string(appendQuote(nil, s)) }

// direct reports whether the template's jobs exec their program without a
// shell (a builtin twin may still use the shell for some jobs).
func (t *Template) direct() bool { return t.words != nil }

// viaShell reports whether the command runs through a shell.
func (c *Command) viaShell() bool { return c.line != "" }

// runPool runs the items through p, on this machine unless p has an
// executor, and returns the Finished results in the order they came.
func runPool(tb testing.TB, p *Pool, items <-chan input.Item) []Result {
	tb.Helper()
	return runPoolWriting(tb, p, items, false)
}

// runPoolWriting is runPool that, with written, tells the stream each
// result's output was written as it comes, as the output stage does.
func runPoolWriting(tb testing.TB, p *Pool, items <-chan input.Item, written bool) []Result {
	tb.Helper()
	if p.Exec == nil && p.Slots == nil {
		l, err := NewLocal()
		if err != nil {
			tb.Fatal(err)
		}
		defer l.Close()
		p.Exec = l
	}
	s := NewStream(16)
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background(), context.Background(), items, s) }()
	var rs []Result
	for ev := range s.Events {
		if ev.Kind != Finished {
			continue
		}
		if ev.Batch == nil {
			rs = append(rs, *ev.Result)
			if written {
				s.Written(ev.Result)
			}
		}
		for _, r := range ev.Batch {
			rs = append(rs, *r)
		}
	}
	if err := <-done; err != nil {
		tb.Fatal(err)
	}
	return rs
}
