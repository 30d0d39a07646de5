package cmd

const longHelp = `fan runs a command once per input item, several at a time.

Items come from stdin (one per line), from ::: lists, or from files given
with :::: or -a. The command's words are joined into a template; {} stands
for the item (it is appended when the template has none). Values put into a
command that runs through a shell are quoted, so an item is always data,
never code. Templates with no shell syntax run without a shell at all.

Each job's output is written whole when it ends (-k: in input order), so
output of different jobs never mixes. The exit status is the number of
failed jobs (101 for more than 100), 255 for a usage or input error, 130
when a signal cut the run short.

-X and -m put as many items in each job as fit. --xargs makes fan GNU
xargs: items split on blanks with xargs's quoting, packed, exec'd without
a shell, xargs's exit statuses (123-127, 1); output is still grouped.

Replacement strings:
  {}    the item          {.}   without extension    {/}   basename
  {//}  dirname           {/.}  basename, no ext.    {#}   job number
  {%}   job slot          {n} {n.} {n/} {n//} {n/.}  argument or column n`

const examples = `  fan -j4 gzip ::: *.log              compress files, 4 at a time
  find . -name '*.jpg' | fan -k convert {} {.}.png
  fan echo {1}-{2} ::: a b ::: 1 2    every combination: a-1 a-2 b-1 b-2
  fan --link echo ::: a b ::: 1 2     zipped: a 1, b 2
  fan -n2 echo ::: a b c d            two items per job
  fan < commands.txt                  each line is a command
  fan -X echo x{}y ::: a b c          packed: echo xay xby xcy
  find . -name '*.tmp' | fan --xargs rm -f   as xargs, with grouped output`
