#!/bin/sh
# vm-options: --node-mem 1536M
# VM tests 3-5 (docs/testing.md "Tests"): with the test configuration (interval 2 s, min_bytes 32
# MiB, every other parameter at its default)
#  - a mostly cold cgroup (400 MiB, 5 % hot) loses at least half its cold memory within 60 s;
#  - a cgroup matched by "policy": "none" is untouched (its pgsteal does not move);
#  - a thrashing cgroup (hot set larger than its memory.max) is not squeezed, and the log says why;
#  - min_bytes and memory.min are never crossed (memory.current sampled every 0.5 s);
#  - the Prometheus textfile (metrics.textfile) is written and shows the bytes reclaimed;
#  - the cold age reacts to pages read back on the other NUMA node (cold-age-cross-node): a cgroup
#    (test/cross, 16 MiB floor) holds 48 MiB of anonymous memory, written on node 0's CPU
#    (workloads/readback.c) and never touched again; once the agent has evicted at least 24 MiB
#    of it, the workload reads every page back on node 1's CPU, and the agent's log must say
#    "cold age 10 s -> 20 s" for it after that and not before. Under MGLRU the kernel's
#    workingset_refault_anon misses these (lru_gen_refault() in mm/workingset.c skips a folio
#    whose node is not its shadow entry's); the agent's pages-back signal (docs/pages-back.md)
#    counts them. The cold age is the MGLRU path's: on a kernel with MGLRU off (Debian's 6.1 by
#    default, where the classic LRU's workingset_refault() counts these pages itself) the check
#    is skipped.
# The workloads (about 1.1 GiB) fit in either node with room above its watermarks (1.5 GiB a node),
# so no allocation wakes kswapd and nothing but the agent's own requests reclaims (on the default
# 768 MiB nodes one node starts below its low watermark).
# Every memhog flushes its TLB every 50 ms (--tlb-flush-ms, memhog.c): qemu's software TLB would
# otherwise keep the accessed bits of hot pages from coming back, so reclaim could not tell the 5 %
# hot set from the cold pages.
# The cold cgroup's hot set is hot at the scale of the 10 s cold age: memhog picks a random hot
# page per access, so a page's idle gaps are exponential with mean hot_pages / rate. At 6,000
# accesses a second over 5,120 hot pages (0.85 s) a hot page is idle for 10 s with probability
# e^-11.7, about 0.04 pages of the hot set per window; at 2,000 a second (2.56 s) it was e^-3.9,
# about 100 pages, which the agent rightly evicted, saw refault, and answered by doubling the cold
# age, so the 60 s window's outcome hung on when that happened.
set -eu
. "$VMTEST_LIB"

MiB=1048576
cg=$(cg_create test)
for c in cold excluded thrash floor-min floor-bytes cross; do mkdir -p "$cg/$c"; done
echo "+memory" >"$cg/cgroup.subtree_control"
# io.stat for the pages-back signal's io term where the kernel has the io controller.
echo "+io" >"$cg/cgroup.subtree_control" 2>/dev/null || echo "no io controller: pages back from refaults and major faults"
echo $((150 * MiB)) >"$cg/floor-min/memory.min"
echo $((48 * MiB)) >"$cg/thrash/memory.max"

start_hog() { # NAME ANON HOTPCT RATE
	cg_run "$cg/$1" memhog --anon "$2" --hot-pct "$3" --rate "$4" --tlb-flush-ms 50 --duration 90 \
		--report-interval 10 --ready-file "/tmp/$1.ready" >"$RESULTS/memhog-$1.log" 2>&1
}
start_hog cold 400M 5 6000
start_hog excluded 150M 5 2000
start_hog floor-min 250M 5 2000
start_hog floor-bytes 250M 5 2000
start_hog thrash 64M 100 2000
cpu0=$(cpulist_expand "$(node_cpulist 0)" | awk '{ print $1 }')
cpu1=$(cpulist_expand "$(node_cpulist 1 2>/dev/null)" | awk '{ print $1 }')
rm -f /tmp/cross.ready /tmp/cross.done /tmp/cross.signalled
cross=
if [ -z "$cpu0" ] || [ -z "$cpu1" ]; then
	fail cold-age-cross-node "the VM has no CPU on node 0 or node 1 (run.sh gives two nodes)"
elif kfeature lru-gen; then
	cross=cross
	cg_run "$cg/cross" readback --anon 48M --first-cpus "$cpu0" --then-cpus "$cpu1" \
		--ready /tmp/cross.ready --done /tmp/cross.done 2>"$RESULTS/readback.log"
	cross_pid=$!
fi
for c in cold excluded floor-min floor-bytes thrash $cross; do
	wait_for_file "/tmp/$c.ready" 60 || fail "$c-ready" "$c did not start"
done
sleep 2

cold_start=$(cat "$cg/cold/memory.current")
excl_steal0=$(memstat "$cg/excluded" pgsteal)
kswapd0=$(vmstat_sum pgsteal_kswapd)
excl_cur0=$(cat "$cg/excluded/memory.current")
echo "start: cold=$(mib "$cold_start") MiB excluded=$(mib "$excl_cur0") MiB"

for c in cold floor-min floor-bytes; do
	sampler "$cg/$c" "$RESULTS/samples-$c.txt" 0.5
	eval "sampler_$(echo $c | tr - _)=\$!"
done

# The test configuration plus a metrics textfile, on the default reclaim path: the agent ages the
# memcgs through lru_gen and evicts only generations idle for the cold age (10 s here, so that a
# 60 s window sees eviction). test.json, which test-psi-off also uses, pins it off; plain
# memory.reclaim on a young memcg makes the kernel age it twice at once and takes hot pages with
# the cold (docs/policies.md "MGLRU: aging and eviction"). 6.1 has no lru_gen and uses
# memory.reclaim. At debug level: the floors below sum RECLAIMED_BYTES of the job lines, which are
# DEBUG lines.
mkdir -p /tmp/metrics
sed -e '1s|^{|{ "metrics": { "textfile": "/tmp/metrics/reclaimd.prom" },|' \
	-e 's|"mglru_aging": false|"mglru_aging": true|' -e 's|"min_bytes": "32M" }|"min_bytes": "32M", "cold_age": 10 }|' \
	-e 's|"log_level": "info"|"log_level": "debug"|' /etc/reclaimd/test.json \
	>/tmp/test-metrics.json
grep -q '"mglru_aging": true' /tmp/test-metrics.json && grep -q '"cold_age": 10' /tmp/test-metrics.json &&
	grep -q '"log_level": "debug"' /tmp/test-metrics.json ||
	fail reclaim-setup "the config edit did not apply: $(tr -d '\n' </tmp/test-metrics.json | cut -c1-200)"
agent_start /tmp/test-metrics.json "$RESULTS/agent.log"
# test/cross: once the agent has evicted at least 24 of its 48 MiB (at most 50 s), note whether
# its cold age already doubled, take its memory.stat and start the read-back on node 1.
[ -z "$cross" ] || (
	_i=0
	while [ "$(cat "$cg/cross/memory.current")" -gt $((24 * MiB)) ] && [ $_i -lt 500 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	{
		_c=$(cat "$cg/cross/memory.current")
		echo "after $((_i / 10)) s memory.current $(mib "$_c") MiB"
		[ "$_c" -le $((24 * MiB)) ] && echo "evicted yes" || echo "evicted no"
		echo "doubled_before $(grep -c 'test/cross: cold age 10 s -> 20 s' "$RESULTS/agent.log")"
		echo "refault_anon $(memstat "$cg/cross" workingset_refault_anon) pgmajfault $(memstat "$cg/cross" pgmajfault)"
	} >/tmp/cross.signalled 2>&1
	kill -USR1 "$cross_pid"
) &
sleep 60
cold_end=$(cat "$cg/cold/memory.current")
excl_steal1=$(memstat "$cg/excluded" pgsteal)
kswapd1=$(vmstat_sum pgsteal_kswapd)
excl_cur1=$(cat "$cg/excluded/memory.current")
# shellcheck disable=SC2154
kill "$sampler_cold" "$sampler_floor_min" "$sampler_floor_bytes" 2>/dev/null || true
# test/cross: the read-back done (at most 60 s more), then up to 30 ticks of 2 s for the minute's
# average of pages back to cross refault_target_pct.
cross_line=
if [ -n "$cross" ]; then
	wait_for_file /tmp/cross.done 60 || echo "cross: the workload did not read back in 60 s"
	cross_line=$(log_wait "$RESULTS/agent.log" 'test/cross: cold age 10 s -> 20 s' 60 || true)
fi
stop_s=$(agent_stop)
[ -z "$cross" ] || kill "$cross_pid" 2>/dev/null || true

for c in cold floor-min floor-bytes thrash excluded cross; do
	{ echo "--- $c"; cat "$cg/$c/memory.stat"; } >>"$RESULTS/memory-stat-end.txt"
done

# Test 3: the cold cgroup lost at least half of its cold memory (95 % of 400 MiB).
cold_bytes=$((400 * MiB * 95 / 100))
lost=$((cold_start - cold_end))
echo "cold: $(mib "$cold_start") -> $(mib "$cold_end") MiB, lost $(mib "$lost") MiB of $(mib "$cold_bytes") MiB cold"
if [ "$lost" -ge $((cold_bytes / 2)) ]; then
	pass cold-reclaimed "lost $(mib "$lost") MiB of $(mib "$cold_bytes") MiB cold in 60 s"
else
	fail cold-reclaimed "lost only $(mib "$lost") MiB of $(mib "$cold_bytes") MiB cold in 60 s"
fi
echo "cold_start_bytes=$cold_start cold_end_bytes=$cold_end" >"$RESULTS/numbers.txt"

# Excluded: never a target, so no reclaim at all happened in it (no memory pressure in the VM).
if [ "$excl_steal1" -eq "$excl_steal0" ] && ! grep -q "CGROUP=test/excluded " "$RESULTS/agent.log"; then
	pass excluded-untouched "pgsteal $excl_steal0 -> $excl_steal1, memory.current $(mib "$excl_cur0") -> $(mib "$excl_cur1") MiB; kswapd reclaimed $((kswapd1 - kswapd0)) pages system-wide"
else
	fail excluded-untouched "pgsteal $excl_steal0 -> $excl_steal1 or the agent logged about it (kswapd reclaimed $((kswapd1 - kswapd0)) pages system-wide meanwhile; the setup means 0)"
fi

# Test 4: thrashing cgroup not squeezed, and the log says why.
thrash_reclaimed=$(log_sum "$RESULTS/agent.log" test/thrash RECLAIMED_BYTES)
if [ "$thrash_reclaimed" -le $((1 * MiB)) ] &&
	grep "CGROUP=test/thrash " "$RESULTS/agent.log" | grep -q "REASON=memory-pressure"; then
	pass thrash-not-squeezed "agent reclaimed $thrash_reclaimed bytes; log: $(grep 'CGROUP=test/thrash ' "$RESULTS/agent.log" | grep 'REASON=memory-pressure' | grep -m1 'not reclaiming' | sed 's/.*reclaimd\[[a-z]*\]: //; s/ |.*//')"
else
	fail thrash-not-squeezed "agent reclaimed $thrash_reclaimed bytes, or no memory-pressure reason logged"
fi

# Test 5: floors. memory.current never below memory.min (150 MiB) / min_bytes (200 MiB), allowing
# the kernel's over-reclaim of one batch (32 pages, a few large folios): 2 MiB.
check_floor() { # NAME FLOOR_BYTES
	lowest=$(awk '$2 != "gone" { if (min == "" || $2 < min) min = $2 } END { print min }' "$RESULTS/samples-$1.txt")
	reclaimed=$(log_sum "$RESULTS/agent.log" "test/$1" RECLAIMED_BYTES)
	if [ -n "$lowest" ] && [ "$lowest" -ge $(($2 - 2 * MiB)) ] && [ "$reclaimed" -gt 0 ]; then
		pass "floor-$1" "lowest memory.current $(mib "$lowest") MiB >= floor $(mib "$2") MiB; agent reclaimed $(mib "$reclaimed") MiB above it"
	else
		fail "floor-$1" "lowest memory.current $(mib "${lowest:-0}") MiB vs floor $(mib "$2") MiB; agent reclaimed $(mib "$reclaimed") MiB"
	fi
}
check_floor floor-min $((150 * MiB))
check_floor floor-bytes $((200 * MiB))

# The agent stops quickly on SIGTERM.
awk -v s="$stop_s" 'BEGIN { exit !(s < 2.0) }' && pass sigterm-fast "exited ${stop_s} s after SIGTERM" ||
	fail sigterm-fast "took ${stop_s} s to exit after SIGTERM"

# The textfile: written every tick, its reclaimed bytes those of the finished jobs.
cp /tmp/metrics/reclaimd.prom "$RESULTS/metrics.prom" 2>/dev/null || true
prom_reclaimed=$(awk '$1 == "reclaimd_reclaimed_bytes_total" { print $2 }' "$RESULTS/metrics.prom" 2>/dev/null || true)
prom_done=$(awk '$1 == "reclaimd_request_outcomes_total{outcome=\"done\"}" { print $2 }' "$RESULTS/metrics.prom" 2>/dev/null || true)
if [ -n "$prom_reclaimed" ] && [ "$prom_reclaimed" -gt 0 ] && [ -z "$(ls /tmp/metrics | grep -v '^reclaimd.prom$')" ]; then
	pass metrics-textfile "reclaimd_reclaimed_bytes_total $(mib "$prom_reclaimed") MiB, $prom_done requests done, no temporary file left"
else
	fail metrics-textfile "no textfile or no reclaimed bytes in it ($(ls /tmp/metrics 2>&1 | tr '\n' ' '))"
fi

# The cold age reacts to pages read back on the other node.
cross_before=
if [ -n "$cross" ]; then
	[ ! -e /tmp/cross.signalled ] ||
		cross_before=$(awk '$1 == "doubled_before" { print $2 }' /tmp/cross.signalled)
	cross_detail="evicted $(sed -n 1p /tmp/cross.signalled 2>/dev/null || true); before the read-back $(sed -n 4p /tmp/cross.signalled 2>/dev/null || true), after it refault_anon $(memstat "$cg/cross" workingset_refault_anon) pgmajfault $(memstat "$cg/cross" pgmajfault); read back: $(cat /tmp/cross.done 2>/dev/null || true)"
	cross_line=${cross_line%% | MESSAGE_ID=*}
	echo "cross: $cross_detail; ${cross_line#*cross: }"
fi
if [ -z "$cross" ]; then
	skip cold-age-cross-node "MGLRU is off on kernel $(uname -r) (lru_gen/enabled $(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || echo absent)): no cold age"
elif [ -z "$cross_before" ]; then
	fail cold-age-cross-node "the read-back was never started: $cross_detail"
elif ! grep -q '^evicted yes$' /tmp/cross.signalled; then
	fail cold-age-cross-node "the agent did not evict 24 of the 48 MiB in 50 s: $cross_detail"
elif [ "$cross_before" -ne 0 ]; then
	fail cold-age-cross-node "the cold age doubled before the read-back began: $cross_detail"
elif [ -n "$cross_line" ]; then
	pass cold-age-cross-node "${cross_line#*cross: }; $cross_detail"
else
	fail cold-age-cross-node "no 'cold age 10 s -> 20 s' for test/cross in the agent's log: $cross_detail"
fi

cp /proc/vmstat "$RESULTS/vmstat-end.txt"
cat /proc/swaps
