package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// manDate is the date printed in the man page: fixed, so that the page only
// changes when the command does.
var manDate = time.Date(2026, time.November, 22, 0, 0, 0, 0, time.UTC)

// flagGroups are the man page's OPTIONS subsections, one per registration
// function in flags.go. A flag registered elsewhere is listed under
// "Other", so none is left out.
var flagGroups = []struct {
	title string
	add   func(*pflag.FlagSet, *Options)
}{
	{"Input", addInputFlags},
	{"Command", addCommandFlags},
	{"Execution", addExecFlags},
	{"Remote hosts", addRemoteFlags},
	{"Output", addOutputFlags},
	{"Bookkeeping", addBookkeepingFlags},
	{"Terminal", addTerminalFlags},
}

// ManHead writes the first part of a man page for a command (header, NAME,
// SYNOPSIS, DESCRIPTION), dated date: fan/internal/manhead.Write. It is
// passed in rather than imported so that the fan binary does not link
// cobra/doc (see that package).
type ManHead func(c *cobra.Command, date time.Time, w io.Writer) error

// WriteManPage writes fan's man page to w. head makes the header, NAME,
// SYNOPSIS and DESCRIPTION from the command; OPTIONS is made from the
// command's flags, grouped as flags.go registers them; the other sections
// are written out in man.go and man_sections.go.
func WriteManPage(w io.Writer, head ManHead) error {
	c := NewCommand(Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, nil, nil)
	c.Long = description
	c.Example = ""
	c.DisableAutoGenTag = true
	var buf bytes.Buffer
	if err := head(c, manDate, &buf); err != nil {
		return err
	}
	page := buf.String()
	end := strings.Index(page, "\n.SH OPTIONS")
	if end < 0 {
		return fmt.Errorf("cobra's man page has no OPTIONS section")
	}
	page = strings.Replace(page[:end+1], ".SH DESCRIPTION",
		".br\n\\fIproducer\\fP | \\fBfan [flags] [command [args...]]\\fP\n\n.SH DESCRIPTION", 1)
	var b strings.Builder
	b.WriteString(page)
	b.WriteString(".SH OPTIONS\n")
	writeOptions(&b, c.Flags())
	b.WriteString(manSections)
	b.WriteString(manJobs())
	writeExamples(&b)
	b.WriteString(manSeeAlso)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOptions lists every visible flag of all, by group.
func writeOptions(b *strings.Builder, all *pflag.FlagSet) {
	listed := map[string]bool{}
	section := func(title string, names []string) {
		if len(names) == 0 {
			return
		}
		fmt.Fprintf(b, ".SS %s\n", title)
		for _, name := range names {
			writeFlag(b, all.Lookup(name))
		}
	}
	for _, g := range flagGroups {
		fs := pflag.NewFlagSet(g.title, pflag.ContinueOnError)
		fs.SortFlags = false
		g.add(fs, &Options{})
		var names []string
		fs.VisitAll(func(f *pflag.Flag) {
			if real := all.Lookup(f.Name); real != nil && !real.Hidden {
				names = append(names, f.Name)
				listed[f.Name] = true
			}
		})
		section(g.title, names)
	}
	var rest []string
	all.VisitAll(func(f *pflag.Flag) {
		if !listed[f.Name] && !f.Hidden {
			rest = append(rest, f.Name)
		}
	})
	section("Other", rest)
}

// writeFlag writes one flag as a tagged paragraph.
func writeFlag(b *strings.Builder, f *pflag.Flag) {
	varname, usage := pflag.UnquoteUsage(f)
	b.WriteString(".TP\n")
	if f.Shorthand != "" {
		fmt.Fprintf(b, "\\fB%s\\fR, ", roff("-"+f.Shorthand))
	}
	fmt.Fprintf(b, "\\fB%s\\fR", roff("--"+f.Name))
	if varname != "" && f.Value.Type() != "bool" {
		fmt.Fprintf(b, " \\fI%s\\fR", roff(varname))
	}
	b.WriteString("\n")
	if d := f.DefValue; f.Value.Type() != "bool" && d != "" && d != "0" && d != "[]" {
		usage += fmt.Sprintf(" (default: %s)", d)
	}
	b.WriteString(roffText(usage) + "\n")
}

// roff escapes s for use inside a roff line: backslashes and hyphens.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffText escapes s as a line of running text: like roff, and a line
// must not start with a control character.
func roffText(s string) string {
	s = roff(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// writeExamples writes the EXAMPLES section from the examples --help shows.
func writeExamples(b *strings.Builder) {
	b.WriteString(".SH EXAMPLES\n")
	for _, e := range examples() {
		first := strings.ToUpper(e.what[:1]) + e.what[1:]
		fmt.Fprintf(b, ".PP\n%s:\n.PP\n.RS 4\n.EX\n%s\n.EE\n.RE\n", roffText(first), roff(e.command))
	}
}
