package cmd

import "github.com/fan-run/fan/output"

// openBooks opens the books of a run (output.OpenBooks) as the flags ask.
func openBooks(c *Config) (*output.Books, error) {
	o := &c.Output
	bc := output.BooksConfig{
		Joblog: o.Joblog.Path, JoblogAppend: o.Joblog.Append,
		Resume: o.Resume, ResumeFailed: o.ResumeFailed,
		Failures: o.Failures, Results: o.Results, DryRun: c.Runner.DryRun,
		Delim: c.delim, PerJob: max(c.maxArgs, 1) * len(c.sources),
		Tag: c.tagger(), Colsep: c.colsep, FromArgs: c.Xargs, TmpDir: o.TmpDir,
	}
	for _, s := range c.sources {
		switch {
		case s.List != nil:
			bc.Lists = append(bc.Lists, s.List)
		case s.ReadsStdin():
			bc.Inputs = append(bc.Inputs, "-")
		default:
			bc.Inputs = append(bc.Inputs, s.File)
		}
	}
	b, err := output.OpenBooks(bc, c.Streams.In, c.Streams.Out)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return b, nil
}
