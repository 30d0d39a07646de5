# auto.sh - -j auto's workloads, sourced by extra.sh (which gives FAN,
# RESULTS, log and row): each runs fan -j auto once beside fixed -j runs
# in the same call, and records the limit's trace over time (the
# "fan: -j auto:" lines -t prints, stamped with the seconds since the
# start) in $RESULTS/auto-*.trace.
#
#   AUTOsleep  AUTO_SLEEP_N x sleep 0.5: -j auto should climb well above
#              the CPU count; against -j CPUs and -j 4xCPUs
#   AUTOcpu    40 CPU-bound jobs of about 1 s of CPU each: -j auto against
#              the best of -j 1, 2, 4 and 8 in each of AUTO_RUNS rounds (3),
#              and how long it sat above 2x the CPUs
#   AUTOmem    AUTO_MEM_N jobs holding AUTO_MEM_MIB MiB for 2 s in a memory
#              cgroup of AUTO_MEM_LIMIT_MIB: -j 8 is killed for memory,
#              -j auto should not be
#
# fan runs in a cgroup v2 child of its own where one can be made (so that
# its PSI is its jobs', not the rest of a shared machine's), and AUTOmem
# in a memory cgroup made for it; both are removed afterwards. Without
# root or cgroups, AUTOsleep and AUTOcpu run where they are (with the
# machine's PSI) and AUTOmem is skipped.

AUTO_SLEEP_N="${AUTO_SLEEP_N:-240}"
AUTO_MEM_N="${AUTO_MEM_N:-16}"
AUTO_MEM_MIB="${AUTO_MEM_MIB:-200}"
AUTO_MEM_LIMIT_MIB="${AUTO_MEM_LIMIT_MIB:-1024}"

# auto_cgroup KIND: makes a cgroup for the workloads and prints its
# directory: "psi" a cgroup v2 child (for PSI of its own), "mem" a child
# of this shell's memory cgroup (v2 or v1) limited to AUTO_MEM_LIMIT_MIB.
auto_cgroup() {
	local kind="$1" own base dir
	if [ "$kind" = psi ]; then
		own=$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)
		for base in /sys/fs/cgroup /sys/fs/cgroup/unified; do
			[ -e "$base$own/cgroup.procs" ] && [ -e "$base$own/cpu.pressure" ] && break
			base=""
		done
	else
		own=$(awk -F: '$2~/(^|,)memory(,|$)/{print $3}' /proc/self/cgroup)
		base=/sys/fs/cgroup/memory
		if [ -z "$own" ]; then
			own=$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)
			base=/sys/fs/cgroup
			grep -qw memory "$base$own/cgroup.subtree_control" 2>/dev/null || base=""
		fi
	fi
	[ -n "$base" ] || return 1
	dir="$base$own/fan-bench-$kind-$$"
	mkdir "$dir" 2>/dev/null || return 1
	if [ "$kind" = mem ]; then
		if [ -e "$dir/memory.max" ]; then
			echo $((AUTO_MEM_LIMIT_MIB << 20)) >"$dir/memory.max"
			echo 0 >"$dir/memory.swap.max" 2>/dev/null
		else
			echo $((AUTO_MEM_LIMIT_MIB << 20)) >"$dir/memory.limit_in_bytes"
		fi || { rmdir "$dir"; return 1; }
	fi
	echo "$dir" >>"$RESULTS/auto-cgroups"
	echo "$dir"
}

# auto_cleanup removes the cgroups auto_cgroup made (their processes have
# ended; the kernel may take a moment to let go of one).
auto_cleanup() {
	local d
	[ -e "$RESULTS/auto-cgroups" ] || return 0
	while read -r d; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$d" 2>/dev/null && break; sleep 0.2; done
		[ -d "$d" ] && log "could not remove the cgroup $d"
	done <"$RESULTS/auto-cgroups"
	rm -f "$RESULTS/auto-cgroups"
}

# auto_run TRACE ARGS: runs fan ARGS in the cgroups CGS names (a
# directory each, space-separated), its stdout discarded, the "fan: -j
# auto" lines of its stderr stamped into TRACE; prints the wall time in
# seconds.
auto_run() {
	local trace="$1"
	shift
	local t0 t1
	t0=$EPOCHREALTIME
	CGS="${CGS:-}" sh -c 'for d in $CGS; do echo $$ > "$d/cgroup.procs" || exit 99; done; exec "$@"' sh "$FAN" "$@" \
		2> >(auto_stamp "$t0" >"$trace") >/dev/null
	t1=$EPOCHREALTIME
	sleep 0.3 # let the stamping finish
	awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}'
}

# auto_stamp T0: the lines of stdin about the limit, each stamped with the
# seconds since T0 as it arrives (a shell loop: awk may read ahead)
auto_stamp() {
	local line
	while IFS= read -r line; do
		case "$line" in
		"fan: -j auto"* | "fan: waiting"* | "fan: --memfree"*)
			printf '%s %s\n' "$(awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b - a}')" "$line" ;;
		esac
	done
}

# auto_summary TRACE START: the limit's steps as "t:limit" pairs from
# START, the highest limit and when the last change came (the settle time).
auto_summary() {
	awk -v start="$2" '
		/jobs at once, was/ { for (i = 1; i <= NF; i++) if ($i == "jobs" && $(i+1) == "at") n = $(i-1); steps = steps " " $1 "s:" n; if (n + 0 > top) top = n; last = $1 }
		END { if (top == 0) top = start; printf "limit %s ->%s; highest %d; last change at %ss", start, steps == "" ? " (no change)" : steps, top, last == "" ? "-" : last }' "$1"
}

auto_sleep() {
	local cg ncpu t dir="$RESULTS" ta tl th
	ncpu=$(nproc)
	cg=$(auto_cgroup psi) || { cg=""; log "AUTOsleep: no cgroup v2 of its own: the machine's PSI"; }
	log "AUTOsleep: $AUTO_SLEEP_N x sleep 0.5, -j auto vs -j $ncpu and -j $((4 * ncpu))"
	ta=$(CGS="$cg" auto_run "$dir/auto-sleep.trace" -t -j auto sh -c 'sleep 0.5' ::: $(seq "$AUTO_SLEEP_N"))
	tl=$(CGS="$cg" auto_run /dev/null -j "$ncpu" sh -c 'sleep 0.5' ::: $(seq "$AUTO_SLEEP_N"))
	th=$(CGS="$cg" auto_run /dev/null -j "$((4 * ncpu))" sh -c 'sleep 0.5' ::: $(seq "$AUTO_SLEEP_N"))
	auto_cleanup
	row AUTOsleep "fan -j auto sleep 0.5 (x$AUTO_SLEEP_N)" "${ta}s" "fan -j $((4 * ncpu)) (max); -j $ncpu: ${tl}s" "${th}s" \
		"$(awk -v a="$ta" -v b="$th" 'BEGIN{printf "%.2f", a/b}')" "$(auto_summary "$dir/auto-sleep.trace" "$ncpu")"
}

auto_cpu() {
	local cg ncpu dir="$RESULTS" j t r ta best bestj over fixed="" ratios="" runs="${AUTO_RUNS:-3}"
	ncpu=$(nproc)
	cg=$(auto_cgroup psi) || { cg=""; log "AUTOcpu: no cgroup v2 of its own: the machine's PSI"; }
	local job="awk 'BEGIN{for(i=0;i<8e7;i++);}'"
	: >"$dir/auto-cpu.times"
	# rounds of auto, 1, 2, 4, 8 in turn: on a shared machine only the
	# ratio to the best fixed -j of the same round means anything
	for r in $(seq "$runs"); do
		log "AUTOcpu round $r/$runs: 40 x ~1 s of CPU, -j auto vs -j 1 2 4 8"
		ta=$(CGS="$cg" auto_run "$dir/auto-cpu-$r.trace" -t -j auto "$job" ::: $(seq 40))
		echo "$r auto $ta" >>"$dir/auto-cpu.times"
		best="" bestj=""
		for j in 1 2 4 8; do
			t=$(CGS="$cg" auto_run /dev/null -j "$j" "$job" ::: $(seq 40))
			echo "$r $j $t" >>"$dir/auto-cpu.times"
			if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t bestj=$j; fi
		done
		echo "$r ratio $(awk -v a="$ta" -v b="$best" 'BEGIN{printf "%.2f", a/b}') best-j$bestj" >>"$dir/auto-cpu.times"
		# seconds the limit sat above 2x the CPUs, from the trace's steps
		over=$(awk -v lim=$((2 * ncpu)) -v n="$ncpu" -v end="$ta" '
			/jobs at once, was/ { for (i = 1; i <= NF; i++) if ($i == "jobs" && $(i+1) == "at") m = $(i-1); if (n > lim) s += $1 - t; t = $1; n = m }
			END { if (n > lim) s += end - t; printf "%.1f", s }' "$dir/auto-cpu-$r.trace")
		echo "$r above $over" >>"$dir/auto-cpu.times"
	done
	auto_cleanup
	for j in auto 1 2 4 8; do
		fixed="$fixed -j$j=$(awk -v j="$j" '$2==j{print $3}' "$dir/auto-cpu.times" | median)s"
	done
	ratios=$(awk '$2=="ratio"{printf " %s(%s)", $3, $4}' "$dir/auto-cpu.times")
	row AUTOcpu "fan -j auto (40 x 1 s CPU), $runs rounds" "$(awk '$2=="auto"{print $3}' "$dir/auto-cpu.times" | median)s" \
		"the best fixed -j of each round" "-" "$(awk '$2=="ratio"{print $3}' "$dir/auto-cpu.times" | median)" \
		"medians:$fixed; auto/best by round:$ratios; seconds above $((2 * ncpu)) by round: $(awk '$2=="above"{printf "%s ", $3}' "$dir/auto-cpu.times"); round 1: $(auto_summary "$dir/auto-cpu-1.trace" "$ncpu")"
}

auto_mem() {
	local mem psi dir="$RESULTS" ta t8 fa f8 job
	if ! command -v python3 >/dev/null; then
		log "AUTOmem: needs python3"
		return
	fi
	mem=$(auto_cgroup mem) || { log "AUTOmem: cannot make a memory cgroup (needs root): skipped"; return; }
	psi=$(auto_cgroup psi) || psi=""
	job="python3 -c 'import time; b = b\"x\" * ($AUTO_MEM_MIB << 20); time.sleep(2)'"
	log "AUTOmem: $AUTO_MEM_N x $AUTO_MEM_MIB MiB in $AUTO_MEM_LIMIT_MIB MiB, -j auto vs -j 8"
	ta=$(CGS="$mem $psi" auto_run "$dir/auto-mem.trace" -t -j auto --joblog "$dir/auto-mem-auto.log" "$job" ::: $(seq "$AUTO_MEM_N"))
	t8=$(CGS="$mem $psi" auto_run /dev/null -j 8 --joblog "$dir/auto-mem-8.log" "$job" ::: $(seq "$AUTO_MEM_N"))
	auto_cleanup
	# failed jobs: killed for memory (signal 9) or exited non-zero
	fa=$(awk -F'\t' 'NR>1 && ($7 != 0 || $8 != 0)' "$dir/auto-mem-auto.log" | wc -l)
	f8=$(awk -F'\t' 'NR>1 && ($7 != 0 || $8 != 0)' "$dir/auto-mem-8.log" | wc -l)
	row AUTOmem "fan -j auto ($AUTO_MEM_N x $AUTO_MEM_MIB MiB in $AUTO_MEM_LIMIT_MIB MiB)" "${ta}s, $fa failed" \
		"fan -j 8" "${t8}s, $f8 failed" "-" "$(auto_summary "$dir/auto-mem.trace" "$(nproc)"); $(grep -c '^fan: waiting' "$dir/auto-mem.trace") held-back notices"
}
