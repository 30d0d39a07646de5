// Package manhead writes the first part of fan's man page (header, NAME,
// SYNOPSIS, DESCRIPTION) with cobra/doc. It lives apart from cmd so that the
// fan binary does not link cobra/doc and the markdown and YAML packages it
// pulls in: their package initialisers cost about 2 ms of every start.
// Only the man page generator and its drift test import it.
package manhead

import (
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Write writes c's man page header and first sections to w, as cobra/doc
// makes them, dated date and sourced "fan", with no version: the page is
// kept in the repository, and a binary's version is only known when it is
// built.
func Write(c *cobra.Command, date time.Time, w io.Writer) error {
	return doc.GenMan(c, &doc.GenManHeader{
		Title:   "FAN",
		Section: "1",
		Date:    &date,
		Source:  "fan",
		Manual:  "User Commands",
	}, w)
}
