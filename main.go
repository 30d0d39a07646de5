// Command fan runs jobs in parallel: see README.md or fan --help.
package main

import (
	"os"

	"github.com/fan-run/fan/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
