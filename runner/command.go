package runner

import "fmt"

// Command is one rendered job: the program to exec and its argv.
type Command struct {
	// Path is the program to exec: the resolved program, or the shell.
	Path string
	// Args is the argv, Args[0] included.
	Args []string
	// Dir is the directory the job runs in (--workdir); "" is fan's own.
	Dir string
	// Err is set when the command cannot start (its program was not found);
	// the job then fails with Err's status.
	Err error
	// line is the shell command line when the job runs through a shell.
	line string
}

// String returns the command as a shell command line: what --dry-run and -t
// print, and what the shell would run.
func (c *Command) String() string {
	if c.line != "" || len(c.Args) == 0 {
		return c.line
	}
	return string(c.AppendTo(make([]byte, 0, 64)))
}

// AppendTo appends String's text to b and returns the extended slice,
// without a string of its own: a dry run writes a million of them.
func (c *Command) AppendTo(b []byte) []byte {
	if c.line != "" || len(c.Args) == 0 {
		return append(b, c.line...)
	}
	for i, a := range c.Args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendQuote(b, a)
	}
	return b
}

// StartError is why a job could not start; Status is the exit status a shell
// would give (126 or 127).
type StartError struct {
	Name   string
	Status int
	Reason string
}

func (e *StartError) Error() string { return fmt.Sprintf("%s: %s", e.Name, e.Reason) }
