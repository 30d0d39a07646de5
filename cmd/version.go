package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version says which fan this is, from what the Go toolchain recorded in the
// binary rather than from a number kept by hand: the module version. It is
// the tag or pseudo-version `go install github.com/fan-run/fan@VERSION`
// fetched, and for a build in a git clone (make build) Go makes one from
// the commit checked out: v0.0.0-DATE-COMMIT, or the tag at that commit,
// with "+dirty" when the work tree had changes. A build that recorded a
// commit but no module version (Go before 1.24) shows "(devel)" and the
// commit, "-dirty" when changed; one without version control information
// (go build -buildvcs=false, a tarball) says only "(devel)".
func version(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "(devel)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	if v != "(devel)" {
		return v // a tag or pseudo-version already names the commit
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12] // as long as a pseudo-version's
	}
	if dirty {
		rev += "-dirty"
	}
	return v + " " + rev
}

// buildVersion is fan's version as this binary records it (see version).
func buildVersion() string {
	return version(debug.ReadBuildInfo())
}

// printVersion answers --version: "fan VERSION" on c's output. fan prints
// it itself rather than through cobra's Command.Version, whose "fan
// VERSION" form needs a version template: any template links
// text/template, whose reflection keeps every exported method of every
// type in the binary (the progress bar's HTTP server, and with it net/http
// and crypto/tls), 4 MB more to map and fault in on every start. A write
// error is shown and returned as cobra did.
func printVersion(c *cobra.Command) error {
	_, err := fmt.Fprintf(c.OutOrStdout(), "fan %s\n", buildVersion())
	if err != nil {
		c.Println(err)
	}
	return err
}
