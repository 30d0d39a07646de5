#!/bin/sh
# usage: slowfirst3.sh BYTES INPUT -- prints "job INPUT" and BYTES zero bytes;
# input 1 sleeps 3 s first, so fan -k must hold every later job's output.
[ "$2" = 1 ] && sleep 3
printf 'job %s\n' "$2"
exec head -c "$1" /dev/zero
