#!/bin/sh
# The cold-memory report on a real kernel (docs/policies.md "The cold-memory report"): one
# cgroup under policy "observe" (aged through lru_gen, never reclaimed) holding memhog with a
# known cold set: 200 MiB written once, 10 % of it hot (2,000 accesses a second, each hot page
# about every 2.6 s), its TLB flushed every 50 ms (tests/vm/README.md). cold_age 60 s (aged every
# 30 s; the idle bound of a lruvec's oldest generation is then about two agings, 60-62 s, so 60 s
# is known and 120 s not), interval 2 s, COLD_RUN s (default 150). Every 10 s `reclaimctl --json cgroups` and at
# the end `reclaimctl explain` go to the results. Not part of make check-vm (no test- prefix):
#   tests/vm/run-tests.sh cold-report
# Checks:
#   cold-report-observed  nothing was reclaimed (no job evicted, memory.current kept 95 %)
#   cold-report-idle      at the end, the bytes idle >= 60 s are between 80 % and 105 % of the
#                         180 MiB never touched again (printed with the other ages)
set -u
. "$VMTEST_LIB"

if ! need_feature cold-report-idle lru-gen lru-gen-debugfs; then
	skip cold-report-observed "kernel $(uname -r) has no lru-gen or no lru-gen-debugfs"
	exit 0
fi
RUN=${COLD_RUN:-150}
cat >/tmp/cold.json <<'JSON'
{
  "interval": 2,
  "log_level": "debug",
  "headroom": false,
  "mglru_aging": true,
  "defaults": { "min_bytes": "32M", "cold_age": 60 },
  "rules": [
    { "match": "reclaimd", "policy": "none" },
    { "match": "cold-*", "policy": "observe" }
  ]
}
JSON
cg=$(cg_create cold-obs)
cg_run "$cg" memhog --anon 200M --hot-pct 10 --rate 2000 --tlb-flush-ms 50 --duration 0 \
	--report-interval 10 --ready-file /tmp/memhog.ready >"$RESULTS/memhog.log" 2>&1
hog=$!
wait_for_file /tmp/memhog.ready 120 || fail cold-report-ready "memhog did not start"
cur0=$(cat "$cg/memory.current")
agent_start /tmp/cold.json "$RESULTS/agent.log"
t=0
while [ "$t" -lt "$RUN" ]; do
	sleep 10
	t=$((t + 10))
	reclaimctl --json cgroups >"$RESULTS/cgroups-$t.json" 2>&1 || true
	echo "t=$t current=$(cat "$cg/memory.current") $(tr -d ' \n' <"$RESULTS/cgroups-$t.json" |
		sed -n 's/.*"idle_bytes":\({[^}]*}\).*"idle_horizon_s":\([0-9.a-z]*\).*/idle=\1 horizon=\2/p')" |
		tee -a "$RESULTS/results.txt"
done
reclaimctl explain cold-obs >"$RESULTS/explain.txt" 2>&1 || true
cur1=$(cat "$cg/memory.current")
agent_stop >/dev/null
kill -TERM "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
cat "$RESULTS/explain.txt" >>"$RESULTS/results.txt"
evicted=$(grep "cold-obs: reclaim [a-z-]* on node" "$RESULTS/agent.log" | grep -c 'evicted through lru_gen')
if [ "$evicted" -eq 0 ] && [ "$cur1" -ge $((cur0 * 95 / 100)) ]; then
	pass cold-report-observed "no eviction; memory.current $(mib "$cur0") -> $(mib "$cur1") MiB"
else
	fail cold-report-observed "$evicted evictions; memory.current $(mib "$cur0") -> $(mib "$cur1") MiB"
fi
idle60=$(tr -d ' \n' <"$RESULTS/cgroups-$RUN.json" | sed -n 's/.*"idle_bytes":{"60":\([0-9]*\).*/\1/p')
cold=$((180 * 1048576))
if [ -n "$idle60" ] && [ "$idle60" -ge $((cold * 80 / 100)) ] && [ "$idle60" -le $((cold * 105 / 100)) ]; then
	pass cold-report-idle "idle >= 60 s: $(mib "$idle60") MiB of the 180 MiB never touched again"
else
	fail cold-report-idle "idle >= 60 s: $(mib "${idle60:-0}") MiB, not within 80-105 % of the 180 MiB never touched again"
fi
rmdir "$cg" 2>/dev/null || true
exit 0
