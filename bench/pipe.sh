# pipe.sh - the pipe-mode workloads of bench/extra.sh, which sources this
# file and calls them by name (EXTRA="Ppipe Ppart Pfloor Pk"):
#
#   Ppipe    cat FILE | fan --pipe --block B wc -c  vs  cat FILE | wc -c,
#            and vs GNU parallel --pipe with the same flags
#   Ppart    fan --pipepart -a FILE --block B wc -c  vs  cat FILE | wc -c,
#            and vs GNU parallel --pipepart with the same flags
#   Pfloor   cat FILE | cat | wc -c  vs  cat FILE | wc -c: what one more
#            process copying the stream costs on this machine, the floor
#            of anything that reads a pipe and writes the bytes on; and
#            fan --pipe against that relay (Ppipe-vs-relay)
#   Pk       -k with a slow first block: every job copies its block to
#            stdout (cat), job 1 after 3 s, so fan must hold the output of
#            every later block until then: fan's peak RSS, and the output
#            compared byte for byte with FILE; and the same with every job
#            failing, so that fan holds every block for the failures file
#
# FILE is PIPE_BYTES (2 GiB) of 100-byte lines, made once in PIPE_DIR (the
# results directory) and removed at the end. Every timed workload checks
# its output: the byte counts its jobs print add up to FILE's size.
# Throughput is FILE's size over the median wall time, in GB/s (10^9
# bytes a second).
#
# knobs: PIPE_BYTES (2147483648) PIPE_BLOCK (10M) PIPE_RUNS (RUNS) PIPE_DIR
#   PARALLEL_BIN (parallel)

PIPE_BYTES="${PIPE_BYTES:-2147483648}"
PIPE_BLOCK="${PIPE_BLOCK:-10M}"
PIPE_RUNS="${PIPE_RUNS:-$RUNS}"
PIPE_DIR="${PIPE_DIR:-$RESULTS}"
PARALLEL_BIN="${PARALLEL_BIN:-parallel}"
PIPE_FILE=""

# pipefile makes FILE once, in PIPE_FILE (not in a subshell: call it as
# a command)
pipefile() {
	[ -n "$PIPE_FILE" ] && return
	PIPE_FILE="$PIPE_DIR/pipe-$PIPE_BYTES.txt"
	log "making $PIPE_FILE: $((PIPE_BYTES / 100)) lines of 100 bytes"
	yes "$(printf '%099d' 0)" | head -n "$((PIPE_BYTES / 100))" >"$PIPE_FILE"
	trap 'rm -f "$PIPE_FILE"' EXIT
}

# sumcheck CMD: runs the pipeline CMD once and says whether the numbers it
# prints (one wc -c per job) add up to FILE's size
sumcheck() {
	local want got
	want=$(stat -c %s "$PIPE_FILE")
	got=$(sh -c "$1" | awk '{s += $1} END {printf "%d", s}')
	if [ "$got" = "$want" ]; then echo "ok(bytes)"; else echo "FAIL(bytes=$got want $want)"; fi
}

# gbps SECONDS: FILE's size over SECONDS (with a trailing s), in GB/s
gbps() {
	awk -v b="$(stat -c %s "$PIPE_FILE")" -v t="${1%s}" 'BEGIN {if (t > 0) printf "%.2f", b / t / 1e9; else print "?"}'
}

# pipepair NAME A B: pair A (fan) with B, both checked, and rewrite the
# row's medians as "wall = throughput"
pipepair() {
	local name="$1" a="$2" b="$3" chk
	chk="A $(sumcheck "$a"), B $(sumcheck "$b")"
	pair "$name" "$PIPE_RUNS" "$chk" "$a" "$b"
	# the row pair wrote last: add the throughputs to its medians
	local last am bm
	last=$(tail -n 1 "$OUT")
	am=$(printf '%s' "$last" | cut -f3)
	bm=$(printf '%s' "$last" | cut -f5)
	sed -i '$d' "$OUT"
	printf '%s\n' "$last" | awk -F'\t' -v OFS='\t' -v am="$am = $(gbps "$am") GB/s" -v bm="$bm = $(gbps "$bm") GB/s" \
		'{$3 = am; $5 = bm; print}' >>"$OUT"
}

# pipevs NAME FAN_CMD PARALLEL_CMD: FAN_CMD against cat, then against GNU
# parallel
pipevs() {
	pipepair "$1-vs-cat" "$2" "cat $PIPE_FILE | wc -c"
	pipepair "$1-vs-parallel" "$2" "$3"
}

ppipe() {
	pipefile
	pipevs Ppipe "cat $PIPE_FILE | $FAN --pipe --block $PIPE_BLOCK wc -c" \
		"cat $PIPE_FILE | $PARALLEL_BIN --will-cite --pipe --block $PIPE_BLOCK wc -c"
}

ppart() {
	pipefile
	pipevs Ppart "$FAN --pipepart -a $PIPE_FILE --block $PIPE_BLOCK wc -c" \
		"$PARALLEL_BIN --will-cite --pipepart -a $PIPE_FILE --block $PIPE_BLOCK wc -c"
}

pfloor() {
	pipefile
	pipepair Pfloor "cat $PIPE_FILE | cat | wc -c" "cat $PIPE_FILE | wc -c"
	pipepair Ppipe-vs-relay "cat $PIPE_FILE | $FAN --pipe --block $PIPE_BLOCK wc -c" "cat $PIPE_FILE | cat | wc -c"
}

# pkpeak NAME CHECK_FILE FAN_ARGS... SCRIPT: runs cat FILE | fan FAN_ARGS under
# peak.py, compares CHECK_FILE (- for fan's stdout) with FILE byte for
# byte, and writes a row with fan's peak RSS
pkpeak() {
	local name="$1" out="$2" peak chk shown
	shift 2
	# the last argument, a shell script, shown quoted
	shown="${*:1:$#-1} '${!#}'"
	log "$name: cat FILE | fan $shown"
	if [ "$out" = - ]; then
		cat "$PIPE_FILE" | "$HERE/peak.py" -- "$FAN" "$@" 2>"$RESULTS/$name.peak" | cmp -s - "$PIPE_FILE"
	else
		cat "$PIPE_FILE" | "$HERE/peak.py" -- "$FAN" "$@" 2>"$RESULTS/$name.peak" >/dev/null
		cmp -s "$out" "$PIPE_FILE"
	fi && chk="ok(byte-exact, in order)" || chk="FAIL(output differs from the input)"
	peak=$(grep -o 'hwm_kib=[0-9]*' "$RESULTS/$name.peak" | cut -d= -f2)
	row "$name" "cat FILE | fan $shown" "$((peak / 1024))MiB" "-" "-" "-" "$chk; $(grep '^peak:' "$RESULTS/$name.peak")"
}

pk() {
	pipefile
	# {#} is the job number: job 1 sleeps before it reads its block
	pkpeak Pk-peak-RSS - -j2 -k --pipe --block "$PIPE_BLOCK" \
		sh -c '[ {#} = 1 ] && sleep 3; exec cat'
	# every job fails: the failed blocks wait for job 1, to go to the
	# failures file in input order
	pkpeak Pk-failed-peak-RSS "$RESULTS/Pk.failed" -j2 -k --pipe --block "$PIPE_BLOCK" --failures "$RESULTS/Pk.failed" \
		sh -c 'cat >/dev/null; [ {#} = 1 ] && sleep 3; exit 1'
	rm -f "$RESULTS/Pk.failed"
}
