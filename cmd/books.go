package cmd

import (
	"io"
	"os"

	"fan/output"
)

// openBooks opens the books of a run (output.OpenBooks) as the flags ask.
func openBooks(o *Options, c *config, stdin io.Reader, stdout *os.File) (*output.Books, error) {
	bc := output.BooksConfig{
		Joblog: o.Joblog, JoblogAppend: o.joblogAppend,
		Resume: o.Resume, ResumeFailed: o.ResumeFailed,
		Failures: o.Failures, Results: o.Results, DryRun: o.DryRun,
		Delim: c.delim, PerJob: max(o.MaxArgs, 1) * len(c.sources),
		Tag: o.tagger(), Colsep: c.colsep, FromArgs: o.Xargs,
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
	b, err := output.OpenBooks(bc, stdin, stdout)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return b, nil
}
