package runner

// Views that only the tests need.

// quote is the shell word for s.
func quote(s string) string { return string(appendQuote(nil, s)) }

// direct reports whether the template's jobs exec their program without a
// shell (a builtin twin may still use the shell for some jobs).
func (t *Template) direct() bool { return t.words != nil }

// viaShell reports whether the command runs through a shell.
func (c *Command) viaShell() bool { return c.line != "" }
