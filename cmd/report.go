package cmd

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/fan-run/fan/output"
)

// report tells the user how the run went, on stderr (fan's error, why
// --xargs stopped, the summary line), and returns fan's exit status.
func report(c *Config, res outcome) int {
	status := exitStatus(res)
	stderr := c.Streams.Err
	if errors.Is(res.err, syscall.EPIPE) {
		return status // the reader went away: leave quietly
	}
	if res.err != nil {
		// Errors joined (two books that failed) are a line each.
		for _, line := range strings.Split(res.err.Error(), "\n") {
			fmt.Fprintf(stderr, "fan: %s\n", line)
		}
	}
	if res.xargsAbort != nil {
		fmt.Fprintln(stderr, res.xargsAbort.Msg)
	}
	s := res.stats
	if c.Xargs && !res.interrupted && c.Output.Failures == "" {
		return status // xargs prints no summary
	}
	if s.Failed > 0 || s.NotStarted > 0 || res.interrupted || s.Retries > 0 && !c.Output.Quiet {
		palette := output.NewPalette(c.Output.Display.Color, stderr, c.Env.Get)
		failures := c.Output.Failures
		for _, be := range output.BookErrors(res.err) {
			if be.Path == failures {
				failures = "" // not all are there: stderr listed those missing
			}
		}
		fmt.Fprintln(stderr, palette.Summary(s, failures))
	}
	return status
}
