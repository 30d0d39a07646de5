package cmd

import "github.com/fan-run/fan/output"

// display is what fan shows on stderr besides the jobs' output
// (output.Display): the flags, and no bar unless asked for with -u, a dry
// run or --xargs.
func (c *Config) display() output.Display {
	f := c.Output.Display
	f.Plain = c.Output.Ungroup || c.Runner.DryRun || c.Xargs
	return output.NewDisplay(f, c.Streams.Err, c.Env.Get)
}
