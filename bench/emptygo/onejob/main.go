// Command onejob is the Go floor for one job (W5's echo x | fan echo): the
// program of bench/emptygo, linking the same packages, that also reads
// its items from stdin (blank-separated, as xargs without quotes) and runs
// its arguments with them as one command through os/exec, the command's
// output going straight to its own. Nothing is grouped, nothing is
// checked: no Go program that runs a job can start it sooner.
// bench/extra.sh builds it (W5 rows).
package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"

	_ "github.com/mattn/go-isatty"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/term"
)

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: onejob COMMAND [ARG...] < items\n")
		os.Exit(2)
	}
	args := os.Args[2:]
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		args = append(args, strings.Fields(sc.Text())...)
	}
	c := exec.Command(os.Args[1], args...)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if c.Run() != nil {
		os.Exit(1)
	}
}
