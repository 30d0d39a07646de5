package runner

// ShellLine returns the command line that the job's shell runs, and true,
// when the job runs through a shell (Args is [shell, -c, line]); a job that
// execs its program directly returns "", false, and its argv is Args (see
// String for it as a shell line). A remote executor runs the line on the
// host, where the local Path means nothing.
func (c *Command) ShellLine() (string, bool) { return c.line, c.line != "" }
