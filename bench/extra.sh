#!/usr/bin/env bash
# extra.sh - fan's workloads that the shared bench lacks, run side by side
# with their baseline in the same call, and printed as a markdown table:
#
#   W1s      the shell path: seq N | fan -j2 'true {};'  vs  xargs -P2 -n1 sh -c
#   W1lim    fan against the machine's spawn limit on equal work: the C
#            posix_spawn loop runs /bin/true without arguments, and so does
#            fan -n0 (GNU true given an argument loads the locale: 1 ms more)
#   owncpu   fan's own CPU (all threads, children excluded) per job on W1,
#            against xargs's and a C posix_spawn loop's, alternated run by
#            run (see owncpu.py)
#   W3cat    8 x W3_BYTES grouped to a pipe vs the same jobs run by xargs
#            (ungrouped, nothing captured) through cat
#   W3k3     -k with a 3 s first job, 8 x W3_BYTES: fan's peak RSS, bytes, order
#   W3floor  the floor of grouped output (groupfloor.c: jobs write into
#            temporary files, each copied out with sendfile when it ends)
#            against xargs writing straight into the pipe, and fan against
#            that floor; in $TMPDIR and on tmpfs (/dev/shm)
#   W4yes    yes 1 | fan -j2 sleep (each job: sleep 1) for 5 s: fan's peak RSS
#   J1000    1000 x sleep 1 with fan -j1000 vs xargs -P1000: wall, fan's threads;
#            and vs the floor, a C program starting the 1000 at once (spawnall.c);
#            J1000-floor-u: the same with -u (no spool files: the spawn path
#            alone); J1000-floor-fds: against spawnall keeping three
#            descriptors a job, as fan's grouped jobs hold;
#            J1000-floor-shm: spool files on tmpfs (TMPDIR=/dev/shm)
#   W5       fan --version vs /bin/true (the floor), xargs --version and an
#            empty static Go binary linking cobra, progressbar/v3, go-isatty
#            and x/term (bench/emptygo); echo x | fan echo vs xargs echo, and
#            vs the Go floor for one job (bench/emptygo/onejob: the same
#            packages, one command run through os/exec), itself vs xargs
#   W1go     fan -n0 /bin/true vs Go's os/exec loop (shared golimit), paired
#   W1rp     fan vs rust-parallel (RUSTPAR_BIN; no row without it), paired
#            directly at -j2 and -j8: on W1's job (true N, whose locale
#            loading every runner's jobs pay alike) and on a C program that
#            returns at once (nop.c), where the runners' own costs are not
#            diluted; W1nop-lim(-rp): fan (rust-parallel) on that program
#            vs the C posix_spawn loop running it, the floor for equal work
#   W3hold   peak output held (spool files in $TMPDIR plus memory files) of
#            8 x W3_BYTES at -j2 into a reader stalled for 3 s, every W3
#            mode, fan and GNU parallel
#   scale    1,000,000 items: fan --dry-run (vs sed printing the same
#            lines) and fan -X true (vs xargs true), with peak RSS
#   AUTOsleep AUTOcpu AUTOmem  -j auto against fixed -j (see auto.sh)
#   Ppipe Ppart Pfloor Pk   pipe mode (--pipe, --pipepart) vs cat and GNU
#            parallel, and -k with a slow first block: see pipe.sh
#
# Ratio columns: the median A/B wall ratio of the pairs (min-max), then
# the median A/B ratio of CPU time (user+sys of all processes).
#
# usage: SHARED_BENCH=../shared/bench FAN_BIN=bin/fan bench/extra.sh
# knobs: N (3000) RUNS (5) RUNS_SHORT (15) W3_BYTES (134217728) J1000_N (1000)
#   W1RP_N (3000: W1rp's jobs, the size of issue 19's pairing)
#   EXTRA ("W1s W1lim W1go W1rp owncpu W3cat W3floor W3hold W3k3 W4yes J1000 W5 scale
#          AUTOsleep AUTOcpu AUTOmem Ppipe Ppart Pfloor Pk"; "" or none: no row)
#   RESULTS (a directory); auto.sh's AUTO_* knobs; pipe.sh's PIPE_BYTES
#   PIPE_BLOCK PIPE_RUNS PIPE_DIR
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED_BENCH="${SHARED_BENCH:-$HERE/../../shared/bench}"
FAN="${FAN_BIN:?set FAN_BIN}"
N="${N:-3000}"
RUNS="${RUNS:-5}"
RUNS_SHORT="${RUNS_SHORT:-15}"
W3_BYTES="${W3_BYTES:-134217728}"
J1000_N="${J1000_N:-1000}"
W1RP_N="${W1RP_N:-3000}"
# Unset, every row; set but empty (EXTRA=""), or "none", no row.
EXTRA="${EXTRA-W1s W1lim W1go W1rp owncpu W3cat W3floor W3hold W3k3 W4yes J1000 W5 scale AUTOsleep AUTOcpu AUTOmem Ppipe Ppart Pfloor Pk}"
RESULTS="${RESULTS:-${TMPDIR:-/tmp}/fan-bench/extra-$(date -u +%Y%m%dT%H%M%SZ)}"
TIMER="$SHARED_BENCH/pairtime.py"
mkdir -p "$RESULTS"
OUT="$RESULTS/extra.tsv"
printf 'row\tA\tA_median\tB\tB_median\tratio_median\tcheck\n' >"$OUT"
export SHELL=/bin/sh
log() { echo "[$(date -u +%H:%M:%S)] extra: $*" >&2; }
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT"; }

# pair NAME RUNS CHECK A_SHELL B_SHELL: time two shell pipelines alternately
pair() {
	local name="$1" runs="$2" check="$3" a="$4" b="$5" raw="$RESULTS/extra-$1.txt"
	log "$name: $a  VS  $b"
	"$TIMER" -n "$runs" --warmup 1 --timeout 3000 --vs "sh -c '$b'" -- sh -c "$a" >"$raw" 2>&1
	local am bm r
	am=$(awk '$1=="A"&&$2=="wall"{print $5}' "$raw")
	bm=$(awk '$1=="B"&&$2=="wall"{print $5}' "$raw")
	# the wall ratio's median (min-max), and the CPU ratio (user+sys of
	# everything each side waited for), fairer on a loaded machine
	r=$(awk '$1=="A/B"&&$2=="wall"{w=sprintf("%s (%s-%s)", $4, $3, $5)} $1=="A/B"&&$2=="cpu"{c=$4} END{print w "; cpu " c}' "$raw")
	row "$name" "$a" "${am}s" "$b" "${bm}s" "$r" "$check"
}

# shellcheck source=auto.sh
. "$HERE/auto.sh"

# pairpeak: as pair, with the peak RSS of each side (MiB, the largest
# process) added to the check
pairpeak() {
	pair "$@"
	local raw="$RESULTS/extra-$1.txt" ap bp
	ap=$(awk '$1=="A"&&$2=="peak"{print $5}' "$raw")
	bp=$(awk '$1=="B"&&$2=="peak"{print $5}' "$raw")
	sed -i '$ s/$/; peak MiB A '"$ap"' B '"$bp"'/' "$OUT"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

w1s() {
	local chk
	if seq "$N" | "$FAN" -j2 'echo {};' | sort -n | cmp -s - <(seq "$N"); then chk="ok(lines)"; else chk="FAIL(lines)"; fi
	pair W1s-j2 "$RUNS" "$chk" "seq $N | $FAN -j2 \"true {};\"" "seq $N | xargs -P2 -n1 sh -c \"true \\\$1;\" sh"
}

# spawnlimit prints the path of the shared C spawn loop, built once; nothing
# if it cannot be built
spawnlimit() {
	[ -x "$RESULTS/spawnlimit" ] ||
		gcc -O2 -pthread -o "$RESULTS/spawnlimit" "$SHARED_BENCH/limit/spawnlimit.c" 2>/dev/null || return
	echo "$RESULTS/spawnlimit"
}

# W1go: fan against Go's own os/exec ceiling (the shared golimit loop,
# capturing output through pipes) on equal work, paired directly
w1go() {
	local g="$RESULTS/golimit" j
	(cd "$SHARED_BENCH/limit/golimit" && CGO_ENABLED=0 go build -o "$g" main.go) 2>/dev/null || { log "W1go: cannot build golimit"; return; }
	for j in 2 8; do
		pair "W1go-j$j" "$RUNS" "-" "seq $N | $FAN -j$j -n0 /bin/true" "$g -n $N -k $j -mode pipe"
	done
}

w1lim() {
	local c j
	c=$(spawnlimit) || { log "W1lim: no C compiler"; return; }
	for j in 2 8; do
		pair "W1lim-j$j" "$RUNS" "-" "seq $N | $FAN -j$j -n0 /bin/true" "$c $N $j spawn"
	done
}

# W1rp: fan against rust-parallel, paired directly (the shared bench
# compares them only through xargs, at its own N)
w1rp() {
	local rp="${RUSTPAR_BIN:-}" nop="$RESULTS/nop" c j
	[ -x "$rp" ] || { log "W1rp: RUSTPAR_BIN is not set to rust-parallel"; return; }
	[ -x "$nop" ] || gcc -O2 -o "$nop" "$HERE/nop.c" 2>/dev/null || { log "W1rp: no C compiler"; return; }
	seq "$W1RP_N" >"$RESULTS/w1rp-in"
	for j in 2 8; do
		pair "W1rp-j$j" "$RUNS_SHORT" "-" "$FAN -j$j true < $RESULTS/w1rp-in" "$rp -j$j true < $RESULTS/w1rp-in"
		pair "W1rp-nop-j$j" "$RUNS_SHORT" "-" "$FAN -j$j $nop < $RESULTS/w1rp-in" "$rp -j$j $nop < $RESULTS/w1rp-in"
	done
	c=$(spawnlimit) || return
	for j in 2 8; do
		pair "W1nop-lim-j$j" "$RUNS_SHORT" "-" "$FAN -j$j $nop < $RESULTS/w1rp-in" "$c $W1RP_N $j spawn $nop"
		pair "W1nop-lim-rp-j$j" "$RUNS_SHORT" "-" "$rp -j$j $nop < $RESULTS/w1rp-in" "$c $W1RP_N $j spawn $nop"
	done
}

owncpu() {
	local f="$RESULTS/owncpu.txt" i floor="" cm c
	: >"$f"
	# the floor: a C loop doing nothing but posix_spawn and waitpid (K=2)
	c=$(spawnlimit)
	log "owncpu: $RUNS x (fan, xargs${c:+, C loop}) on seq $N, -j2 true"
	for i in $(seq "$RUNS"); do
		echo "fan $(seq "$N" | "$HERE/owncpu.py" "$N" "$FAN" -j2 true)" >>"$f"
		echo "xargs $(seq "$N" | "$HERE/owncpu.py" "$N" xargs -P2 -n1 true)" >>"$f"
		[ -n "$c" ] && echo "C $("$HERE/owncpu.py" "$N" "$c" "$N" 2 spawn 2>/dev/null | tail -1)" >>"$f"
	done
	if [ -n "$c" ]; then
		cm=$(awk '$1=="C"{print $5}' "$f" | median)
		floor="; C posix_spawn loop K=2: ${cm}us/job"
	fi
	local fm xm
	fm=$(awk '$1=="fan"{print $5}' "$f" | median)
	xm=$(awk '$1=="xargs"{print $5}' "$f" | median)
	row "owncpu-us-per-job" "fan -j2 true (user+sys of fan, children excluded)" "${fm}us" \
		"xargs -P2 -n1 true (same)" "${xm}us" "$(awk -v a="$fm" -v b="$xm" 'BEGIN{printf "%.2f", a/b}')" "$RUNS runs each$floor"
}

w3cat() {
	local want got chk
	want=$((8 * W3_BYTES + $(seq 8 | sed 's/^/job /' | wc -c)))
	got=$(seq 8 | "$FAN" -j2 sh "$SHARED_BENCH/jobs/out.sh" "$W3_BYTES" | wc -c)
	if [ "$got" = "$want" ]; then chk="ok(bytes)"; else chk="FAIL(bytes=$got want $want)"; fi
	pair W3cat "$RUNS" "$chk" "seq 8 | $FAN -j2 sh $SHARED_BENCH/jobs/out.sh $W3_BYTES | wc -c" \
		"seq 8 | xargs -P2 -n1 sh $SHARED_BENCH/jobs/out.sh $W3_BYTES | cat | wc -c"
}

# W3floor: what grouping itself costs here, whoever does it. The floor
# writes every byte into a temporary file and out again, as fan does; the
# rows say how far it is from xargs (no grouping) and fan from it.
w3floor() {
	local g="$RESULTS/groupfloor" job="sh $SHARED_BENCH/jobs/out.sh $W3_BYTES" d tmp want got chk
	gcc -O2 -o "$g" "$HERE/groupfloor.c" 2>/dev/null || { log "W3floor: no C compiler"; return; }
	want=$((8 * W3_BYTES + $(seq 8 | sed 's/^/job /' | wc -c)))
	for d in "${TMPDIR:-/tmp}" /dev/shm; do
		[ -d "$d" ] || continue
		tmp=tmp
		[ "$d" = /dev/shm ] && tmp=shm
		got=$(seq 8 | "$g" 2 "$d" /bin/$job | wc -c)
		if [ "$got" = "$want" ]; then chk="ok(bytes)"; else chk="FAIL(bytes=$got want $want)"; fi
		pair "W3floor-$tmp-xargs" "$RUNS" "$chk" "seq 8 | $g 2 $d /bin/$job | wc -c" \
			"seq 8 | xargs -P2 -n1 $job | wc -c"
		pair "W3floor-$tmp-fan" "$RUNS" "-" "seq 8 | TMPDIR=$d $FAN -j2 $job | wc -c" \
			"seq 8 | $g 2 $d /bin/$job | wc -c"
	done
}

w3k3() {
	local want hdrs="$RESULTS/W3k3.headers" got peak chk
	want=$((8 * W3_BYTES + $(seq 8 | sed 's/^/job /' | wc -c)))
	log "W3k3: seq 8 | fan -j2 -k slowfirst3.sh $W3_BYTES"
	got=$(seq 8 | "$HERE/peak.py" -- "$FAN" -j2 -k sh "$HERE/slowfirst3.sh" "$W3_BYTES" 2>"$RESULTS/W3k3.peak" |
		tee >(tr -d '\000' | grep -a '^job ' >"$hdrs") | wc -c)
	sleep 1 # let the tee'd check finish
	peak=$(grep -o 'hwm_kib=[0-9]*' "$RESULTS/W3k3.peak" | cut -d= -f2)
	chk="bytes=$got"
	[ "$got" = "$want" ] && chk="ok(bytes" || chk="FAIL(bytes=$got want $want"
	if seq 8 | sed 's/^/job /' | cmp -s - "$hdrs"; then chk="$chk,ordered)"; else chk="$chk,FAIL-order)"; fi
	row W3k3-peak-RSS "seq 8 | fan -j2 -k slowfirst3.sh $W3_BYTES" "$((peak / 1024))MiB" "-" "-" "-" "$chk; $(cat "$RESULTS/W3k3.peak")"
}

w4yes() {
	# "yes 1" so that every job is "sleep 1" (plain yes would make "sleep 1 y" fail at once)
	log "W4yes: yes 1 | fan -j2 sleep, 5 s"
	yes 1 | "$HERE/peak.py" --duration 5 -- "$FAN" -j2 sleep >/dev/null 2>"$RESULTS/W4yes.peak"
	local peak
	peak=$(grep -o 'hwm_kib=[0-9]*' "$RESULTS/W4yes.peak" | cut -d= -f2)
	row W4yes-peak-RSS "yes 1 | fan -j2 sleep (SIGTERM after 5 s)" "$((peak / 1024))MiB" "-" "-" "-" "$(grep '^peak:' "$RESULTS/W4yes.peak")"
}

j1000() {
	# every input line is "1", so each job is "sleep 1"
	log "J1000: fan threads"
	yes 1 | head -n "$J1000_N" | "$HERE/peak.py" -- "$FAN" -j1000 sleep 2>"$RESULTS/J1000.peak"
	pair "J1000-wall" "$RUNS" "$(cat "$RESULTS/J1000.peak")" \
		"yes 1 | head -n $J1000_N | $FAN -j1000 sleep" "yes 1 | head -n $J1000_N | xargs -P1000 -n1 sleep"
	local c="$RESULTS/spawnall"
	if gcc -O2 -o "$c" "$HERE/spawnall.c" 2>/dev/null; then
		pair "J1000-floor" "$RUNS" "-" "yes 1 | head -n $J1000_N | $FAN -j1000 sleep" "$c $J1000_N $(command -v sleep) 1"
		# Making 2000 spool files is most of what fan adds where $TMPDIR
		# is slow to make files in (ext4 without a journal): these two
		# rows tell the spawn path from the file system.
		pair "J1000-floor-u" "$RUNS" "-" "yes 1 | head -n $J1000_N | $FAN -u -j1000 sleep" "$c $J1000_N $(command -v sleep) 1"
		# The floor for a runner that keeps three descriptors a running
		# job (fan's grouped jobs: two capture pipes' read ends, a pidfd)
		pair "J1000-floor-fds" "$RUNS" "-" "yes 1 | head -n $J1000_N | $FAN -j1000 sleep" "$c -k 3 $J1000_N $(command -v sleep) 1"
		if [ -d /dev/shm ]; then
			pair "J1000-floor-shm" "$RUNS" "-" "yes 1 | head -n $J1000_N | TMPDIR=/dev/shm $FAN -j1000 sleep" "$c $J1000_N $(command -v sleep) 1"
		fi
	else
		log "J1000-floor: no C compiler"
	fi
}

w5() {
	# B is the floor: starting any program at all on this machine
	pair "W5-version" "$RUNS_SHORT" "-" "$FAN --version" "/bin/true"
	pair "W5-version-xargs" "$RUNS_SHORT" "-" "$FAN --version" "xargs --version"
	# the Go floor: a static Go program linking what fan's design requires
	# (bench/emptygo), built as make build builds fan
	local e="$RESULTS/emptygo"
	if (cd "$HERE/emptygo" && CGO_ENABLED=0 go build -ldflags="-s -w" -o "$e" .) 2>/dev/null; then
		pair "W5-version-emptygo" "$RUNS_SHORT" "-" "$FAN --version" "$e"
	else
		log "W5-version-emptygo: cannot build bench/emptygo"
	fi
	pair "W5-onejob" "$RUNS_SHORT" "$(echo x | "$FAN" echo)" "echo x | $FAN echo" "echo x | xargs echo"
	# the Go floor for one job: emptygo's packages, the item read and one
	# command run through os/exec, output straight to stdout
	local o="$RESULTS/emptygo-onejob"
	if (cd "$HERE/emptygo" && CGO_ENABLED=0 go build -ldflags="-s -w" -o "$o" ./onejob) 2>/dev/null; then
		pair "W5-onejob-gofloor" "$RUNS_SHORT" "$(echo x | "$o" echo)" "echo x | $o echo" "echo x | xargs echo"
		pair "W5-onejob-emptygo" "$RUNS_SHORT" "-" "echo x | $FAN echo" "echo x | $o echo"
	else
		log "W5-onejob-gofloor: cannot build bench/emptygo/onejob"
	fi
}

# the output hold: 8 x W3_BYTES at -j2 into a reader that takes nothing for
# 3 s, in every W3 mode; the peak bytes of output the runner holds, in
# spool files and in memory files (heldpeak.py), for fan and GNU parallel
w3hold() {
	local tmp="$RESULTS/w3hold-tmp" mode job keep tool cmd out want peak
	mkdir -p "$tmp"
	want=$((8 * W3_BYTES + $(seq 8 | sed 's/^/job /' | wc -c)))
	for mode in u k ul kl; do
		case $mode in
		u) job=out.sh keep= ;; k) job=slowfirst.sh keep=-k ;;
		ul) job=outlines.sh keep= ;; kl) job=slowfirstlines.sh keep=-k ;;
		esac
		local a="" b=""
		for tool in fan parallel; do
			case $tool in
			fan) cmd="$FAN -j2 $keep" ;;
			parallel) command -v parallel >/dev/null || continue; cmd="parallel --will-cite -j2 $keep" ;;
			esac
			log "W3hold-$mode: $tool"
			out=$(TMPDIR="$tmp" python3 "$HERE/heldpeak.py" --tmpdir "$tmp" -- \
				"seq 8 | TMPDIR=$tmp $cmd sh $SHARED_BENCH/jobs/$job $W3_BYTES | (sleep 3; wc -c)")
			# held in all (spool files and memory files), and of it in memory
			peak=$(echo "$out" | awk -F= '$1=="max_held_bytes"{h=$2} $1=="max_mem_bytes"{m=$2} END{printf "%dMiB(in-memory:%dMiB)", h/1048576, m/1048576}')
			if [ "$(echo "$out" | head -1)" = "$want" ]; then peak="${peak} ok(bytes)"; else peak="${peak} FAIL(bytes)"; fi
			if [ $tool = fan ]; then a=$peak; else b=$peak; fi
		done
		row "W3hold-$mode" "seq 8 | fan -j2 $keep sh $job $W3_BYTES | (sleep 3; wc -c)" "${a% *}" \
			"${b:+same with parallel --will-cite -j2 $keep}" "${b% *}" "-" "peak held (spool + memory files): fan ${a#* }, parallel ${b#* }"
	done
	rm -rf "$tmp"
}

# scale: a million items through a dry run and through -X
scale() {
	local m="$RESULTS/1m"
	seq 1000000 >"$m"
	pairpeak "DRY1M" "$RUNS" "-" "$FAN --dry-run echo < $m > /dev/null" "sed \"s/^/echo /\" < $m > /dev/null"
	pairpeak "X1M" "$RUNS" "-" "$FAN -X true < $m" "xargs true < $m"
}

# shellcheck source=bench/pipe.sh
. "$HERE/pipe.sh"

for e in $EXTRA; do
	case "$e" in
	W1s) w1s ;; W1lim) w1lim ;; owncpu) owncpu ;; W3cat) w3cat ;; W3floor) w3floor ;; W3k3) w3k3 ;; W4yes) w4yes ;; J1000) j1000 ;; W5) w5 ;;
	W1go) w1go ;; W1rp) w1rp ;; W3hold) w3hold ;; scale) scale ;;
	AUTOsleep) auto_sleep ;; AUTOcpu) auto_cpu ;; AUTOmem) auto_mem ;;
	Ppipe) ppipe ;; Ppart) ppart ;; Pfloor) pfloor ;; Pk) pk ;;
	none) ;;
	*) log "unknown workload $e" ;;
	esac
done

echo "### Extra workloads (bench/extra.sh; N=$N RUNS=$RUNS RUNS_SHORT=$RUNS_SHORT W3_BYTES=$W3_BYTES PIPE_BYTES=$PIPE_BYTES PIPE_BLOCK=$PIPE_BLOCK)"
echo
echo "| row | A | A median | B | B median | A/B (paired median) | check |"
echo "|---|---|---|---|---|---|---|"
# commands are printed with "fan" and "rust-parallel" for the binaries'
# paths and programs built into the results directory by their names
tail -n +2 "$OUT" | awk -F'\t' -v fan="$FAN" -v res="$RESULTS/" -v rp="${RUSTPAR_BIN:-}" '{gsub(fan, "fan"); if (rp != "") gsub(rp, "rust-parallel"); gsub(res, ""); gsub(/\|/, "\\|", $2); gsub(/\|/, "\\|", $4); printf "| %s | `%s` | %s | `%s` | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7}'
