package cmd

import (
	"errors"
	"fmt"
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
		fmt.Fprintf(stderr, "fan: %v\n", res.err)
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
		if be := (*output.BookError)(nil); errors.As(res.err, &be) && be.Path == failures {
			failures = "" // they are not there: stderr listed them
		}
		fmt.Fprintln(stderr, palette.Summary(s, failures))
	}
	return status
}
