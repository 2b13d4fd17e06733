#!/bin/sh
# VM test of MGLRU aging and eviction through lru_gen (docs/policies.md "MGLRU: aging and
# eviction"). One cgroup holds two workloads on different NUMA nodes: "hot" (16 MiB, all of it hot,
# bound to node 0, 20,000 accesses/s: each page about five times a second) and "cold" (300 MiB, 2 %
# hot, bound to node 1). Both flush their TLB every 50 ms (tests/vm/README.md). Two phases of
# MGLRU_RUN s (default 50), fresh workloads in a fresh cgroup each, interval 2 s, min_bytes 32M:
#   off:     configs/mglru-off.json, memory.reclaim (printed for comparison, not asserted);
#   lru_gen: configs/mglru.json ("mglru_aging": true, "cold_age": 10: aged every 5 s, and only
#            generations idle for 10 s are evicted).
# With lru_gen:
#   mglru-evicts       every reclaim of the cgroup went through lru_gen ("evicted through lru_gen");
#   mglru-cold         the cold workload lost at least half its cold memory (RssAnon);
#   mglru-hot-kept     the hot workload had at most 1 % of its pages as major faults: none of its
#                      pages is idle for the cold age, so none may be evicted, even when node 0
#                      has no cold generation left (memory.reclaim would make the kernel age it
#                      twice in a row there and evict what was not touched in between).
set -u
. "$VMTEST_LIB"

# MGLRU on and its debugfs file: without them the agent reclaims through memory.reclaim only.
if ! need_feature mglru-evicts lru-gen lru-gen-debugfs; then
	skip mglru-cold "kernel $(uname -r) has no lru-gen or no lru-gen-debugfs (as mglru-evicts)"
	skip mglru-hot-kept "kernel $(uname -r) has no lru-gen or no lru-gen-debugfs (as mglru-evicts)"
	exit 0
fi

RUN=${MGLRU_RUN:-50}
HOT_PAGES=4096 # 16 MiB

rss_anon_kib() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
majflt() { sed -n 's/.*memhog summary.* majflt=\([0-9]*\).*/\1/p' "$1" | tail -n 1; }

phase() { # NAME CONFIG
	p=$1
	cg=$(cg_create "mglru-$p")
	cg_run "$cg" memhog --anon 16M --hot-pct 100 --rate 20000 --node 0 --tlb-flush-ms 50 \
		--duration 0 --report-interval 10 --ready-file /tmp/hot.ready >"$RESULTS/memhog-hot-$p.log" 2>&1
	hot=$!
	cg_run "$cg" memhog --anon 300M --hot-pct 2 --rate 2000 --node 1 --tlb-flush-ms 50 \
		--duration 0 --report-interval 10 --ready-file /tmp/cold.ready >"$RESULTS/memhog-cold-$p.log" 2>&1
	cold=$!
	wait_for_file /tmp/hot.ready 60 && wait_for_file /tmp/cold.ready 120 ||
		fail "mglru-$p-ready" "memhog did not start"
	rm -f /tmp/hot.ready /tmp/cold.ready
	cold0=$(rss_anon_kib "$cold")
	# At debug level: the job lines counted below are DEBUG lines.
	config_debug "/etc/reclaimd/$2" "/tmp/$2"
	agent_start "/tmp/$2" "$RESULTS/agent-$p.log"
	sleep "$RUN"
	cold1=$(rss_anon_kib "$cold")
	agent_stop >/dev/null
	kill -TERM "$hot" "$cold" 2>/dev/null
	wait "$hot" "$cold" 2>/dev/null
	eval "${p}_cold_mib=$(((cold0 - cold1) / 1024)) ${p}_hot_majflt=$(majflt "$RESULTS/memhog-hot-$p.log")"
	eval "${p}_lines=$(grep -c "mglru-$p: reclaim [a-z-]* on node" "$RESULTS/agent-$p.log")"
	eval "${p}_lru_gen=$(grep "mglru-$p: reclaim [a-z-]* on node" "$RESULTS/agent-$p.log" | grep -c 'evicted through lru_gen')"
	eval "echo \"$p: cold workload -\$${p}_cold_mib MiB (of $((cold0 / 1024)) MiB), hot workload \$${p}_hot_majflt major faults, \$${p}_lines reclaims (\$${p}_lru_gen through lru_gen)\""
	rmdir "$cg" 2>/dev/null || true
}

[ -x "$AGENT" ] || { fail mglru-setup "no agent in the VM"; exit 0; }
phase off mglru-off.json
phase lru_gen mglru.json
cold_target=$((300 * 98 / 100 / 2))
# shellcheck disable=SC2154 # set by eval in phase
{
	echo "# memory.reclaim: cold -$off_cold_mib MiB, hot major faults $off_hot_majflt"
	echo "# lru_gen:        cold -$lru_gen_cold_mib MiB, hot major faults $lru_gen_hot_majflt"
} | tee -a "$RESULTS/results.txt"
if [ "$lru_gen_lines" -gt 0 ] && [ "$lru_gen_lru_gen" = "$lru_gen_lines" ]; then
	pass mglru-evicts "$lru_gen_lines reclaims, all through lru_gen"
else
	fail mglru-evicts "$lru_gen_lru_gen of $lru_gen_lines reclaims went through lru_gen"
fi
if [ "$lru_gen_cold_mib" -ge "$cold_target" ]; then
	pass mglru-cold "the cold workload lost $lru_gen_cold_mib MiB in $RUN s (at least $cold_target wanted; memory.reclaim: $off_cold_mib)"
else
	fail mglru-cold "the cold workload lost $lru_gen_cold_mib MiB in $RUN s (at least $cold_target wanted)"
fi
if [ "${lru_gen_hot_majflt:-999999}" -le $((HOT_PAGES / 100)) ]; then
	pass mglru-hot-kept "$lru_gen_hot_majflt major faults in the hot workload (memory.reclaim: $off_hot_majflt)"
else
	fail mglru-hot-kept "$lru_gen_hot_majflt major faults in the hot workload, more than $((HOT_PAGES / 100)) (memory.reclaim: $off_hot_majflt)"
fi
exit 0
