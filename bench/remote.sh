#!/usr/bin/env bash
# remote.sh - the remote workload: N_REMOTE x true over -S 4/h1,4/h2, two
# real OpenSSH hosts on this machine (internal/sshhosts: one sshd and one
# user per host on 127.0.0.x, the tests' hosts), fan against GNU parallel
# side by side (pairtime, alternating), printed as a markdown table, then
# what each side spends per job:
#
#   remote     wall time, fan vs GNU parallel (medians, ratio)
#   cpu        CPU ms per job on this side (the runner and its ssh clients)
#              and on the hosts' (their sshd sessions, shells and jobs),
#              for fan, GNU parallel, and fan running the same jobs locally
#   strace     strace -c -f of one fan run (remote-strace.txt in RESULTS)
#
# It needs root (the hosts' users and sshd), sshd, go and GNU parallel, and
# says so and stops without them. The hosts are started before and taken
# down after, whatever happens.
#
# usage: SHARED_BENCH=../shared/bench FAN_BIN=bin/fan bench/remote.sh
# knobs: N_REMOTE (300) RUNS_REMOTE (3) REMOTE ("wall cpu strace"; naming
#   none of them, e.g. "" or none: no hosts are started) RESULTS
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED_BENCH="${SHARED_BENCH:-$HERE/../../shared/bench}"
FAN="${FAN_BIN:?set FAN_BIN}"
N="${N_REMOTE:-300}"
RUNS="${RUNS_REMOTE:-3}"
# Unset, every part; set but empty (REMOTE=""), or "none", none.
PARTS="${REMOTE-wall cpu strace}"
RESULTS="${RESULTS:-${TMPDIR:-/tmp}/fan-bench/remote-$(date -u +%Y%m%dT%H%M%SZ)}"
TIMER="$SHARED_BENCH/pairtime.py"
LOGINS="4/h1,4/h2"
mkdir -p "$RESULTS"
log() { echo "[$(date -u +%H:%M:%S)] remote: $*" >&2; }
skip() {
	log "skipped: $*"
	printf '\n### Remote hosts\n\nskipped: %s\n' "$*"
	exit 0
}

part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
part wall || part cpu || part strace || skip "REMOTE='$PARTS' names no part (wall cpu strace)"
[ "$(id -u)" = 0 ] || skip "needs root, to run the test hosts' sshd and users"
command -v parallel >/dev/null || skip "GNU parallel is not installed (apt-get install parallel)"
command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || skip "sshd is not installed (apt-get install openssh-server)"
(cd "$HERE/.." && go build -o "$RESULTS/sshhosts" ./internal/sshhosts) || skip "cannot build internal/sshhosts"

# The hosts: up until this script exits.
ready="$RESULTS/hosts.env"
rm -f "$ready"
"$RESULTS/sshhosts" -n 2 "$ready" 2>"$RESULTS/sshhosts.log" &
hosts=$!
trap 'kill $hosts 2>/dev/null; wait $hosts 2>/dev/null' EXIT
for _ in $(seq 600); do
	[ -f "$ready" ] && break
	kill -0 $hosts 2>/dev/null || skip "the hosts did not start: $(tail -3 "$RESULTS/sshhosts.log")"
	sleep 0.1
done
[ -f "$ready" ] || skip "the hosts did not start in 60 s"
. "$ready"
export PARALLEL_SSH SHELL=/bin/sh
# GNU parallel keeps its state in ~/.parallel: a home of its own.
export HOME="$RESULTS/home"
mkdir -p "$HOME"
log "hosts up (users $SSHHOSTS_USERS)"

OUT="$RESULTS/remote.tsv"
printf 'row\tA\tA_median\tB\tB_median\tratio_median\tcheck\n' >"$OUT"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT"; }

# The jobs really ran on both hosts, each once.
check() {
	local got
	got=$(seq "$N" | "$FAN" -S "$LOGINS" 'echo {} $(whoami)' | sort -n | awk '{print $1}' | tr '\n' ' ')
	if [ "$got" = "$(seq "$N" | tr '\n' ' ')" ]; then echo "ok($N jobs)"; else echo "FAIL(jobs)"; fi
}

a="seq $N | $FAN -S $LOGINS true"
b="seq $N | parallel --will-cite -S $LOGINS true"
if part wall; then
	log "wall: $a  VS  $b ($RUNS runs each)"
	raw="$RESULTS/remote-wall.txt"
	"$TIMER" -n "$RUNS" --warmup 0 --timeout 6000 --vs "sh -c '$b'" -- sh -c "$a" >"$raw" 2>&1
	am=$(awk '$1=="A"&&$2=="wall"{print $5}' "$raw")
	bm=$(awk '$1=="B"&&$2=="wall"{print $5}' "$raw")
	r=$(awk '$1=="A/B"&&$2=="wall"{print $4}' "$raw")
	row "remote-wall" "$a" "${am}s" "$b" "${bm}s" "$r" "$(check)"
fi

# The hosts' CPU: their sshd go into a cgroup of their own, which all they
# start inherits (sessions, shells, jobs), and whose usage the kernel
# counts: a cgroup v1 cpuacct group, else a cgroup v2 one. (The listeners'
# children's times in /proc/PID/stat miss most of it: sshd's session
# processes are not all reaped into them.) Without either, no host row.
cg=""
for base in /sys/fs/cgroup/cpuacct /sys/fs/cgroup; do
	if [ -w "$base" ] && mkdir "$base/fan-remote-bench-$$" 2>/dev/null; then
		cg="$base/fan-remote-bench-$$"
		for p in $SSHHOSTS_PIDS; do echo "$p" >"$cg/cgroup.procs"; done
		break
	fi
done
trap 'kill $hosts 2>/dev/null; wait $hosts 2>/dev/null; [ -n "$cg" ] && rmdir "$cg"' EXIT
# hostcpu prints the hosts' CPU time so far, in ns.
hostcpu() {
	if [ -f "$cg/cpuacct.usage" ]; then
		cat "$cg/cpuacct.usage"
	elif [ -f "$cg/cpu.stat" ]; then
		awk '$1=="usage_usec"{print $2*1000}' "$cg/cpu.stat"
	else
		echo 0
	fi
}
# cpu NAME COMMAND: one run; CPU ms per job here (the command and all it
# waited for) and on the hosts
cpu() {
	local before after here
	before=$(hostcpu)
	here=$( { TIMEFORMAT='%U %S'; time sh -c "$2" >/dev/null 2>&1; } 2>&1 | tail -1)
	# The sessions end once the connections close, and their sshd is
	# reaped: wait for the hosts' users to have no process left.
	for _ in $(seq 100); do
		pgrep -u "${SSHHOSTS_USERS// /,}" >/dev/null || break
		sleep 0.1
	done
	sleep 0.5
	after=$(hostcpu)
	awk -v n="$N" -v h="$here" -v d=$((after - before)) -v name="$1" -v cg="$cg" 'BEGIN {
		split(h, t, " "); host = cg == "" ? "n/a" : sprintf("%.2f", d/1e6/n)
		printf "%s\t%.2f\t%s\n", name, (t[1]+t[2])*1000/n, host }'
}
part cpu && log "cpu per job" && {
	cpu fan "$a"
	cpu parallel "$b"
	cpu fan-local "seq $N | $FAN -j8 true"
} >"$RESULTS/remote-cpu.tsv"
while IFS=$'\t' read -r name here host; do
	row "remote-cpu-ms-per-job" "$name" "${here}ms here" "$name" "${host}ms on the hosts" "-" "-"
done < <(part cpu && cat "$RESULTS/remote-cpu.tsv")

if part strace && command -v strace >/dev/null; then
	log "strace -c -f of one fan run"
	strace -c -f -o "$RESULTS/remote-strace.txt" sh -c "$a" >/dev/null 2>&1
	top=$(awk 'NR>2 && $1 ~ /^[0-9.]+$/ {printf "%s %s%%, ", $NF, $1; if (++k == 5) exit}' "$RESULTS/remote-strace.txt")
	row "remote-strace" "strace -c -f: $a" "-" "top syscalls by time" "-" "-" "${top%, }"
fi

printf '\n### Remote hosts (%s x true over -S %s, two local sshd hosts; bench/remote.sh)\n\n' "$N" "$LOGINS"
printf '| row | A | A median | B | B median | A/B (median) | check |\n|---|---|---|---|---|---|---|\n'
tail -n +2 "$OUT" | while IFS=$'\t' read -r name A am B bm r c; do
	printf '| %s | `%s` | %s | `%s` | %s | %s | %s |\n' "$name" "$A" "$am" "$B" "$bm" "$r" "$c"
done
log "results in $RESULTS"
