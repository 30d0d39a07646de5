package cmd

import (
	"fmt"
	"strings"
)

// description is what fan does, for --help and the man page's DESCRIPTION.
const description = `fan runs a command once per input item, several at a time.

Items come from stdin (one per line), from ::: lists, or from files given
with :::: or -a. The command's words are joined into a template; {} stands
for the item (it is appended when the template has none). Values put into a
command that runs through a shell are quoted, so an item is always data,
never code. Templates with no shell syntax run without a shell at all.

Each job's output is written whole when it ends (-k: in input order), so
output of different jobs never mixes. On a terminal, a progress bar on
stderr shows jobs done, failures, the rate and the time left; it is never
drawn into pipes, files or CI logs. The exit status is the number of failed
jobs (101 for more than 100), 255 for a usage or input error, 130 when a
signal cut the run short.`

// longHelp is --help's text above the flags.
const longHelp = description + `

-X and -m put as many items in each job as fit. --xargs makes fan GNU
xargs: items split on blanks with xargs's quoting, packed, exec'd without
a shell, xargs's exit statuses (123-127, 1); output is still grouped.

Replacement strings:
  {}    the item          {.}   without extension    {/}   basename
  {//}  dirname           {/.}  basename, no ext.    {#}   job number
  {%}   job slot          {n} {n.} {n/} {n//} {n/.}  argument or column n
  {-n} {-n.} {-n/} {-n//} {-n/.}  argument or column n from the last`

// example is one worked example, for --help and the man page's EXAMPLES.
type example struct {
	command string
	what    string
}

// examples are fan's examples, simplest first.
func examples() []example {
	return []example{
		{"fan -j4 gzip ::: *.log", "compress the log files, four at a time"},
		{"find . -name '*.jpg' | fan -k convert {} {.}.png", "convert every image, writing the output in input order"},
		{"fan echo {1}-{2} ::: a b ::: 1 2", "every combination: a-1 a-2 b-1 b-2"},
		{"fan --link echo ::: a b ::: 1 2", "zip the sources instead: a 1, b 2"},
		{"fan -n2 echo ::: a b c d", "two items per job"},
		{"fan --timeout 30s --retries 3 --failures failed.txt curl -fsSO {} < urls.txt", "fetch URLs, give each 30 seconds and three tries, and keep the ones that failed"},
		{"fan -a failed.txt curl -fsSO {}", "run again the items that failed"},
		{"fan < commands.txt", "each line is a command"},
		{"fan -j1 -X echo x{}y ::: a b c", "as many items per job as fit: echo xay xby xcy"},
		{"find . -name '*.tmp' | fan --xargs rm -f", "as xargs, with grouped output"},
		{"fan --completion bash > /etc/bash_completion.d/fan", "install bash completions"},
	}
}

// exampleHelp is --help's Examples section.
func exampleHelp() string {
	var b strings.Builder
	for i, e := range examples() {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  %s\n      %s", e.command, e.what)
	}
	return b.String()
}
