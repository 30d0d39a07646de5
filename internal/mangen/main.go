// Command mangen writes fan's man page to stdout (make man).
package main

import (
	"fmt"
	"os"

	"github.com/fan-run/fan/cmd"
	"github.com/fan-run/fan/internal/manhead"
)

func main() {
	if err := cmd.WriteManPage(os.Stdout, manhead.Write); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
}
