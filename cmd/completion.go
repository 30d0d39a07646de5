package cmd

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// writeCompletion writes the completion script for shell, made by cobra's
// generators, to w. Completions are behind a flag (--completion SHELL), not
// a subcommand, so that a job command named "completion" still runs.
func writeCompletion(c *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return c.GenBashCompletionV2(w, true)
	case "zsh":
		return c.GenZshCompletion(w)
	case "fish":
		return c.GenFishCompletion(w, true)
	}
	return usageErrorf("--completion: %q is not a shell fan has completions for (try bash, zsh or fish)", shell)
}

// plainUsages drops the backquotes that name a flag's value in its usage
// (`N`, `FILE`): --help shows them as a placeholder, but cobra hands the
// usage to zsh and fish as a completion description, raw.
func plainUsages(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		_, f.Usage = pflag.UnquoteUsage(f)
	})
}

// registerCompletions tells the completion scripts the values of fan's
// flags that take a fixed set.
func registerCompletions(c *cobra.Command) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = c.RegisterFlagCompletionFunc("color", fixed("auto", "always", "never"))
	_ = c.RegisterFlagCompletionFunc("completion", fixed("bash", "zsh", "fish"))
}
