package cmd

import (
	"io"
	"os"
	"time"

	"github.com/spf13/cobra/doc"
)

// manDate is the date printed in the man page: fixed, so that the page only
// changes when the command does.
var manDate = time.Date(2026, time.November, 22, 0, 0, 0, 0, time.UTC)

// WriteManPage writes fan's man page, generated from the command's flags and
// help, to w.
func WriteManPage(w io.Writer) error {
	var status int
	c := NewCommand(os.Stdin, os.Stdout, os.Stderr, &status)
	header := &doc.GenManHeader{
		Title:   "FAN",
		Section: "1",
		Date:    &manDate,
		Source:  "fan " + Version,
		Manual:  "User Commands",
	}
	c.DisableAutoGenTag = true
	return doc.GenMan(c, header, w)
}
