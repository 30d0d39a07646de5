package cmd

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// writeCompletion writes the completion script for shell, made by cobra's
// generators, to w. Completions are behind a flag (--completion SHELL), not
// a subcommand, so that a job command named "completion" still runs.
func writeCompletion(c *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return writeBashCompletion(c, w)
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
// flags that take a fixed set, and what the words after the flags are: the
// job command's name, from the directories of path ($PATH), then file
// names (the command's arguments, ::: items, :::: files).
func registerCompletions(c *cobra.Command, path string) {
	c.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 || strings.Contains(toComplete, "/") {
			return nil, cobra.ShellCompDirectiveDefault
		}
		names := commandsOnPath(path, toComplete)
		if len(names) == 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = c.RegisterFlagCompletionFunc("color", fixed("auto", "always", "never"))
	_ = c.RegisterFlagCompletionFunc("completion", fixed("bash", "zsh", "fish"))
}

// commandsOnPath lists the names of the executable files that start with
// prefix in the directories of path (a $PATH value), sorted, each once.
func commandsOnPath(path, prefix string) []string {
	var names []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), prefix) || e.IsDir() {
				continue
			}
			st, err := os.Stat(filepath.Join(dir, e.Name())) // follows links
			if err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
				names = append(names, e.Name())
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// writeBashCompletion writes cobra's bash completion script (V2) for c,
// made to work in a bare bash too. Cobra's script calls two functions of
// the bash-completion package, _get_comp_words_by_ref and _filedir, which a
// bash without that package lacks: every Tab then printed "command not
// found". The script calls stand-ins instead, which use the package's
// functions when they are defined and do without them when not.
func writeBashCompletion(c *cobra.Command, w io.Writer) error {
	var b strings.Builder
	if err := c.GenBashCompletionV2(&b, true); err != nil {
		return err
	}
	script := b.String()
	name := c.Name()
	script = strings.ReplaceAll(script, `_get_comp_words_by_ref "$@" cur prev words cword`, "__"+name+"_comp_words \"$@\"")
	script = bashFiledir().ReplaceAllString(script, "${1}__"+name+"_filedir")
	header, rest, _ := strings.Cut(script, "\n")
	_, err := io.WriteString(w, header+"\n"+strings.ReplaceAll(bashStandIns, "__fan_", "__"+name+"_")+rest)
	return err
}

// bashFiledir finds the calls of _filedir in cobra's script.
// It is compiled when first used, as cmd's other expressions are: every
// regular expression compiled at start-up delays every run.
var bashFiledir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^\w])_filedir\b`) })

// bashStandIns are the functions writeBashCompletion puts in cobra's
// script in place of bash-completion's.
const bashStandIns = `
# Without the bash-completion package, bash has neither
# _get_comp_words_by_ref nor _filedir, which the script below was written
# for: these use them when they are there and do without them when not.
__fan_comp_words()
{
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    # Bash cuts words at the characters of COMP_WORDBREAKS, so that
    # --color=al arrives as "--color" "=" "al": a flag's "=value" is put
    # back together, as _get_comp_words_by_ref -n = does.
    local i n glue=0
    words=()
    cword=0
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        n=${#words[@]}
        if ((glue)); then
            words[n-1]+=${COMP_WORDS[i]}
            glue=0
        elif [[ ${COMP_WORDS[i]} == "=" && $n -gt 0 && ${words[n-1]} == -* && ${words[n-1]} != *=* ]]; then
            words[n-1]+="="
            glue=1
        else
            words+=("${COMP_WORDS[i]}")
        fi
        if ((i == COMP_CWORD)); then
            cword=$((${#words[@]} - 1))
        fi
    done
    cur=${words[cword]}
    prev=
    if ((cword > 0)); then
        prev=${words[cword-1]}
    fi
}

__fan_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n' kind=-f
    if [[ ${1-} == -d ]]; then
        kind=-d
    fi
    COMPREPLY+=($(compgen $kind -- "$cur"))
    if [[ $(type -t compopt) == builtin ]]; then
        compopt -o filenames
    fi
}
`
