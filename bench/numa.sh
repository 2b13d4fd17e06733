#!/bin/sh
# numa.sh - reclaim throughput and CPU cost of the per-NUMA-node worker pools, in the test VM.
#
# Usage (host): bench/numa.sh [--keep-going] [run.sh options...]
#   Boots tests/vm/run.sh with 2 NUMA nodes of 2 vCPUs each (--cpus-per-node 2), 768M per node,
#   a 1G zram, and runs this same file as the scenario. Results: bench/out/numa/ (table.txt,
#   raw.txt, the agent's logs). Prints the table.
#   Environment: BENCH_NUMA_WORKERS ("1 2": max_workers_per_node values), BENCH_NUMA_CGROUPS
#   ("1 2": cold cgroups per node), BENCH_NUMA_MIB (300: cold MiB per node, split over its
#   cgroups), BENCH_NUMA_TIMEOUT (150 s per run).
#
# Guest part (when $VMTEST_LIB is set): for every (workers, cgroups) pair, fresh cgroups
# bench-numa/r<i>/n<N>c<j>, each a memhog --node N with hot-pct 0 (all cold), then reclaimd with
# interval 2, headroom off, max_workers_per_node <workers>, probe_min = probe_max = 1 (ask for
# everything above min_bytes 8M every tick). A run ends when every cgroup is within 8 MiB of
# its floor, or at the timeout. Measured:
#   MiB/s      (memory.current sum at agent start - at the end) / (end - agent start); includes the
#              first interval, in which the agent only samples (a decision needs a PSI delta)
#   busy MiB/s the same bytes over the span from the first "reclaim requested" line to the last
#              finished reclaim line of the run
#   cpu_s      the agent's utime + stime (/proc/<pid>/stat, clock ticks / 100) at the end: the
#              kernel's reclaim work inside the memory.reclaim writes is system time of the workers
#   cpu_s/GiB  cpu_s per GiB reclaimed
#   on node    finished reclaims per node (the "on node <N>" of the log: DEBUG lines, so the
#              agent runs at "log_level": "debug")
# At most one reclaim is in flight per cgroup, so with one cgroup per node a second worker per node
# has nothing to do; the 2-cgroups rows show what it adds.
set -u

if [ -z "${VMTEST_LIB:-}" ]; then
	# ---- host --------------------------------------------------------------------------------
	HERE=$(cd "$(dirname "$0")" && pwd)
	REPO=$(cd "$HERE/.." && pwd)
	out=$REPO/bench/out/numa
	mkdir -p "$out"
	envs=""
	for v in BENCH_NUMA_WORKERS BENCH_NUMA_CGROUPS BENCH_NUMA_MIB BENCH_NUMA_TIMEOUT; do
		eval "val=\${$v:-}"
		# shellcheck disable=SC2154
		[ -n "$val" ] && envs="$envs --env $v=$val"
	done
	# shellcheck disable=SC2086 # one word per option
	if ! "$REPO/tests/vm/run.sh" --cpus-per-node 2 --zram-size 1G --timeout 1500 $envs "$@" \
		"$HERE/numa.sh" "$out" >&2; then
		echo "numa.sh: the VM run failed; see $out/console.log" >&2
		exit 1
	fi
	if [ ! -s "$out/table.txt" ]; then
		echo "numa.sh: no table; see $out/scenario.log" >&2
		exit 1
	fi
	cat "$out/table.txt"
	exit 0
fi

# ---- guest -----------------------------------------------------------------------------------
. "$VMTEST_LIB"
MiB=1048576
WORKERS=${BENCH_NUMA_WORKERS:-1 2}
CGROUPS=${BENCH_NUMA_CGROUPS:-1 2}
TOTAL_MIB=${BENCH_NUMA_MIB:-300}
TIMEOUT=${BENCH_NUMA_TIMEOUT:-150}
RAW=$RESULTS/raw.txt
: >"$RAW"
[ -x "$AGENT" ] || { echo "numa.sh: no agent in the VM"; exit 1; }
mkdir -p "$CGROOT/bench-numa"
echo "+memory" >"$CGROOT/bench-numa/cgroup.subtree_control"
clk_tck=100 # USER_HZ; /proc/<pid>/stat counts in it on every architecture Linux runs on

run=0
for c in $CGROUPS; do
	for w in $WORKERS; do
		run=$((run + 1))
		sync
		echo 3 >/proc/sys/vm/drop_caches
		top=$CGROOT/bench-numa/r$run
		mkdir -p "$top"
		echo "+memory" >"$top/cgroup.subtree_control"
		per=$((TOTAL_MIB / c))
		cgs=
		hogs=
		for n in 0 1; do
			j=0
			while [ $j -lt "$c" ]; do
				name=n${n}c$j
				mkdir -p "$top/$name"
				cg_run "$top/$name" memhog --anon "${per}M" --hot-pct 0 --node "$n" \
					--ready-file "/tmp/r$run-$name.ready" >"$RESULTS/memhog-r$run-$name.log" 2>&1
				hogs="$hogs $!"
				cgs="$cgs $name"
				j=$((j + 1))
			done
		done
		for name in $cgs; do wait_for_file "/tmp/r$run-$name.ready" 180 || echo "memhog $name not ready"; done
		sum_current() { s=0; for x in $cgs; do s=$((s + $(cat "$top/$x/memory.current"))); done; echo $s; }
		cat >/tmp/numa-bench.json <<JSON
{ "interval": 2, "log_level": "debug", "headroom": false, "mglru_aging": false, "max_workers_per_node": $w,
  "defaults": { "min_bytes": "8M", "probe_min": 1, "probe_max": 1 },
  "rules": [ { "match": "reclaimd", "policy": "none" }, { "match": "bench-numa/r$run/*" } ] }
JSON
		log=$RESULTS/agent-r$run.log
		cur0=$(sum_current)
		t0=$(uptime_s)
		agent_start /tmp/numa-bench.json "$log"
		done_at=$((16 * MiB))
		while :; do
			sleep 0.5
			t1=$(uptime_s)
			left=0
			for x in $cgs; do
				cur=$(cat "$top/$x/memory.current")
				[ "$cur" -gt "$done_at" ] && left=$((left + 1))
			done
			[ "$left" -eq 0 ] && break
			awk -v a="$t0" -v b="$t1" -v t="$TIMEOUT" 'BEGIN { exit !(b - a >= t) }' && break
			kill -0 "$AGENT_PID" 2>/dev/null || break
		done
		cur1=$(sum_current)
		# shellcheck disable=SC2046
		set -- $(sed 's/^.*) //' "/proc/$AGENT_PID/stat" 2>/dev/null)
		# after "pid (comm) ": $1 = state (field 3), so utime (14) is ${12} and stime (15) ${13}
		cpu_ticks=$(( ${12:-0} + ${13:-0} ))
		agent_stop >/dev/null
		for h in $hogs; do kill "$h" 2>/dev/null; done
		for h in $hogs; do wait "$h" 2>/dev/null; done
		first=$(grep 'RECLAIM_REQUESTED_BYTES=' "$log" | log_time | head -n 1)
		last=$(grep ': reclaim [a-z-]* on node ' "$log" | log_time | tail -n 1)
		on0=$(grep ': reclaim [a-z-]* on node ' "$log" | log_field NODE | grep -cx 0)
		on1=$(grep ': reclaim [a-z-]* on node ' "$log" | log_field NODE | grep -cx 1)
		echo "run=$run workers=$w cgroups_per_node=$c mib_per_node=$TOTAL_MIB t0=$t0 t1=$t1 first=${first:-} last=${last:-} cur0=$cur0 cur1=$cur1 cpu_ticks=$cpu_ticks on0=$on0 on1=$on1 left=$left" | tee -a "$RAW"
		for x in $cgs; do rmdir "$top/$x" 2>/dev/null; done
		rmdir "$top" 2>/dev/null
	done
done

awk -v hz="$clk_tck" '
	function kv(k,   i, a) { for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return "" }
	BEGIN {
		printf "%-8s %-9s %9s %8s %9s %11s %7s %10s %9s %9s\n", "workers", "cgroups", "MiB", "wall_s", "MiB/s", "busy_MiB/s", "cpu_s", "cpu_s/GiB", "on_node0", "on_node1"
	}
	{
		b = kv("cur0") - kv("cur1"); m = b / 1048576
		wall = kv("t1") - kv("t0")
		busy = (kv("first") != "" && kv("last") != "") ? kv("last") - kv("first") : 0
		cpu = kv("cpu_ticks") / hz
		# Comparisons in parentheses: a bare ">" in a printf argument list is a redirection.
		rate = (wall > 0) ? m / wall : 0
		busy_rate = (busy > 0) ? sprintf("%.1f", m / busy) : "-"
		per_gib = (m > 0) ? sprintf("%.2f", cpu / (m / 1024)) : "-"
		note = (kv("left") > 0) ? "  (timed out: " kv("left") " cgroups above the floor)" : ""
		printf "%-8s %-9s %9.0f %8.1f %9.1f %11s %7.2f %10s %9s %9s%s\n", kv("workers"), kv("cgroups_per_node") "/node", m, wall,
			rate, busy_rate, cpu, per_gib, kv("on0"), kv("on1"), note
	}' "$RAW" >"$RESULTS/table.txt"
cat "$RESULTS/table.txt"
