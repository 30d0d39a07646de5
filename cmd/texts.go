package cmd

import (
	"github.com/fan-run/fan/output"
	"github.com/fan-run/fan/runner"
)

// texts are the strings besides the command that are rendered per job,
// parsed once with the command's replacement strings (and again once
// --header has named the columns): nil where not given.
type texts struct {
	tag     *runner.Text // --tagstring, or --ctagstring
	workDir *runner.Text // --workdir, but "." (where fan runs)
	results *runner.Text // --results
	// transfer and ret are the remote jobs' --transferfile (with
	// --transfer's {}) and --return (with --trc's) files.
	transfer, ret []*runner.Text
}

// parseTexts parses the texts of c's options into c.texts, and reports
// a replacement string one holds that cannot be read (a --plus
// expression), as the command's: before any job, rather than as the plain
// argument.
func (c *Config) parseTexts() error {
	o, sx := c.Options, c.syntax()
	var t texts
	var first error
	parse := func(flag, s string) *runner.Text {
		text, err := runner.ParseText(s, sx)
		if err != nil && first == nil {
			first = usageErrorf("%s: %v", flag, err)
		}
		return text
	}
	given := func(flag, s string) *runner.Text {
		if s == "" {
			return nil
		}
		return parse(flag, s)
	}
	t.tag = given("--tagstring", o.Output.TagString)
	if ctag := given("--ctagstring", o.Output.CTagString); ctag != nil && !c.flagSet("tagstring") {
		t.tag = ctag
	}
	if d := o.Runner.WorkDir; d != "." { // ".": where fan runs, as in GNU parallel
		t.workDir = given("--workdir", d)
	}
	t.results = given("--results", o.Output.Results)
	if r := c.remote; r != nil {
		for _, f := range r.transfer {
			t.transfer = append(t.transfer, parse("--transferfile", f))
		}
		for _, f := range r.ret {
			t.ret = append(t.ret, parse("--return", f))
		}
	}
	c.texts = t
	return first
}

// tagger returns what starts each output line of a job (--tag,
// --tagstring), or nil.
func (c *Config) tagger() func(*runner.Result) string {
	o := &c.Output
	return output.NewTagger(c.texts.tag, o.Tag || o.CTag || c.flagSet("ctagstring"))
}

// shownTagger is tagger for the lines fan writes: with --ctag or
// --ctagstring, in color when stdout takes it.
func (c *Config) shownTagger() func(*runner.Result) string {
	o := &c.Output
	if !o.CTag && !c.flagSet("ctagstring") {
		return c.tagger()
	}
	return output.ColorTags(c.tagger(), output.NewPalette(o.Display.Color, c.Streams.Out, c.Env.Get))
}
