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

// typingHint is the line fan prints when it is about to read its items
// from the terminal because none were given (no :::, ::::, -a or pipe):
// a newcomer who typed `fan gzip` would otherwise wait at a silent
// terminal. GNU parallel warns likewise; xargs does not, nor does
// fan --xargs.
const typingHint = "fan: reading items from the terminal, one per line, until Ctrl-D (give them with ::: ITEM..., -a FILE, or a pipe)"

// typingHintPipe is typingHint in pipe mode, whose input is data, not
// items.
const typingHintPipe = "fan: reading the input from the terminal, until Ctrl-D (give it with a pipe or < FILE)"

// typingHintText is the hint for the mode the run is in.
func (c *Config) typingHintText() string {
	if c.records != nil {
		return typingHintPipe
	}
	return typingHint
}

// typesItems reports whether the items will be typed at the terminal:
// stdin is a terminal, and it is the input only because no source was
// given (an explicit -a - asks for it), and read (--nonall reads none).
func (c *Config) typesItems() bool {
	return !c.Xargs && !c.Output.Quiet && !c.Remote.NonAll && len(c.sources) == 1 && c.sources[0].Stdin && output.IsTerminalInput(c.Streams.In)
}
