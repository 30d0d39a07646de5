// Command emptygo is the start-up floor for fan --version: a static Go
// program that links the packages fan's design requires (cobra,
// progressbar/v3, go-isatty, x/term), runs their initialisers, prints a
// version line and exits. bench/extra.sh builds it (W5 rows).
package main

import (
	"os"

	_ "github.com/mattn/go-isatty"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/term"
)

func main() { os.Stdout.WriteString("emptygo\n") }
