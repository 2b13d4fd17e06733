#!/bin/sh
# vm-options: --slow-node 768M --node-mem 512M
# VM test of memory tiers (docs/policies.md "Memory tiers"): nodes 0 and 1 (one vCPU each, DRAM) and
# a CPU-less node 2 that ACPI HMAT describes as slower, which Linux puts in a lower memory tier.
# Demotion on (/sys/kernel/mm/numa/demotion_enabled), NUMA balancing in tiering mode
# (kernel.numa_balancing=2), configs/tiers.json (MGLRU aging, cold age 10 s, interval 2 s).
# Two cgroups: tiers-cold (memhog, 200 MiB, 2 % hot) and tiers-hot (32 MiB, all hot, touched
# 20,000 times a second). For TIERS_RUN s (default 60), sampled every 2 s:
#   tiers-present          the guest has two tiers or more and node 2 is in the slowest one
#                          (else every check is skipped, with the tiers the kernel made: 6.1
#                          puts nodes 0-2 in memory_tier4; 6.12 and 7.3 put node 2 in
#                          memory_tier450);
#   tiers-agent-sees       the agent's "memory tiers:" line lists nodes 0-1 as top, then node 2 as
#                          lowest, demotion on;
#   tiers-demote-first     at least 64 MiB of tiers-cold reached node 2 (memory.numa_stat anon
#                          N2) before the host swapped out 4 MiB (pswpout + zswpout): cold pages
#                          go down a tier before any goes to swap;
#   tiers-hot-stays        at the end at most 10 % of tiers-hot's anon is on node 2;
#   tiers-promotions       tiers-cold's pgpromote_success growth is at most 10 % of its pgdemote_*
#                          growth + 1024 pages (4 MiB): its hot 2 % (1024 pages) may come back
#                          once; 10 % is where the agent's back-off starts halving demotion;
#   tiers-not-reclaimed    the agent's job lines for tiers-cold say what they demoted apart
#                          ("KiB more demoted").
set -u
. "$VMTEST_LIB"

RUN=${TIERS_RUN:-60}
log=$RESULTS/agent.log
: >"$log"

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
swapped() { echo $(($(vmstat pswpout) + $(vmstat zswpout 2>/dev/null || echo 0))); }
n2_anon() { awk '$1 == "anon" { for (i = 2; i <= NF; i++) if ($i ~ /^N2=/) { sub(/^N2=/, "", $i); print $i } }' "$1/memory.numa_stat"; }
pgdemote() { awk '$1 ~ /^pgdemote_/ { s += $2 } END { print s + 0 }' "$1/memory.stat"; }

tiers=
names="tiers-present tiers-agent-sees tiers-demote-first tiers-hot-stays tiers-promotions tiers-not-reclaimed"
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -e "$t/nodelist" ] || continue
	echo "${t##*/}: nodes $(cat "$t/nodelist")"
	tiers="${tiers:+$tiers, }${t##*/} {$(cat "$t/nodelist")}"
done
slowest=$(ls -d /sys/devices/virtual/memory_tiering/memory_tier* 2>/dev/null |
	sed 's/.*memory_tier//' | sort -n | tail -n 1)
ntiers=$(ls -d /sys/devices/virtual/memory_tiering/memory_tier* 2>/dev/null | wc -l)
if [ "$ntiers" -lt 2 ] || [ "$(cat "/sys/devices/virtual/memory_tiering/memory_tier$slowest/nodelist")" != 2 ]; then
	# 6.1 puts every node onlined at boot in the DRAM tier; later kernels place a CPU-less node
	# from its HMAT performance (memory-tiers.c: CPU-less nodes are set up after HMAT is read).
	for n in $names; do
		skip "$n" "this kernel made ${tiers:-no tiers} from the HMAT node 2: no lower tier to demote to"
	done
	exit 0
fi
pass tiers-present "$ntiers tiers, node 2 alone in memory_tier$slowest"
[ -x "$AGENT" ] || { fail tiers-agent-sees "no agent in the VM"; exit 0; }

echo true >/sys/kernel/mm/numa/demotion_enabled
echo 2 >/proc/sys/kernel/numa_balancing || echo "kernel.numa_balancing=2 refused"
echo "demotion_enabled $(cat /sys/kernel/mm/numa/demotion_enabled), numa_balancing $(cat /proc/sys/kernel/numa_balancing)"

cold=$(cg_create tiers-cold)
hot=$(cg_create tiers-hot)
cg_run "$cold" memhog --anon 200M --hot-pct 2 --rate 2000 --tlb-flush-ms 50 --duration 0 \
	--report-interval 10 --ready-file /tmp/cold.ready >"$RESULTS/memhog-cold.log" 2>&1
cold_pid=$!
cg_run "$hot" memhog --anon 32M --hot-pct 100 --rate 20000 --tlb-flush-ms 50 --duration 0 \
	--report-interval 10 --ready-file /tmp/hot.ready >"$RESULTS/memhog-hot.log" 2>&1
hot_pid=$!
wait_for_file /tmp/cold.ready 120 && wait_for_file /tmp/hot.ready 60 ||
	fail tiers-setup "memhog did not start"

swap0=$(swapped)
dem0=$(pgdemote "$cold")
pro0=$(memstat "$cold" pgpromote_success)
# At debug level: the job lines ("KiB more demoted") are DEBUG lines.
config_debug /etc/reclaimd/tiers.json /tmp/tiers.json
agent_start /tmp/tiers.json "$log"
n2_at_first_swap=
t=0
while [ "$t" -lt "$RUN" ]; do
	sleep 2
	t=$((t + 2))
	s=$(($(swapped) - swap0))
	n2=$(n2_anon "$cold")
	echo "t=$t s: tiers-cold N2 anon $(mib "${n2:-0}") MiB, swapped out $((s * 4)) KiB" >>"$RESULTS/samples.txt"
	if [ -z "$n2_at_first_swap" ] && [ "$s" -ge 1024 ]; then
		n2_at_first_swap=${n2:-0}
	fi
done
cat "$RESULTS/samples.txt"
n2_end=$(n2_anon "$cold")
[ -n "$n2_at_first_swap" ] || n2_at_first_swap=$n2_end
dem=$(($(pgdemote "$cold") - dem0))
pro=$(($(memstat "$cold" pgpromote_success) - pro0))
hot_anon=$(memstat "$hot" anon)
hot_n2=$(n2_anon "$hot")
agent_stop >/dev/null
kill -TERM "$cold_pid" "$hot_pid" 2>/dev/null
wait "$cold_pid" "$hot_pid" 2>/dev/null

if grep "memory tiers: memory_tier4 {0,1} top, memory_tier[0-9]* {2} lowest; demotion on" "$log" >/dev/null; then
	pass tiers-agent-sees "$(grep -m1 'memory tiers:' "$log" | sed 's/.*memory tiers:/memory tiers:/')"
else
	fail tiers-agent-sees "no 'memory tiers: memory_tier4 {0,1} top, memory_tier<N> {2} lowest; demotion on' line"
fi
if [ "${n2_at_first_swap:-0}" -ge $((64 * 1048576)) ]; then
	pass tiers-demote-first "$(mib "$n2_at_first_swap") MiB of tiers-cold on node 2 before 4 MiB reached swap"
else
	fail tiers-demote-first "$(mib "${n2_at_first_swap:-0}") MiB of tiers-cold on node 2 before 4 MiB reached swap (64 wanted)"
fi
if [ $((${hot_n2:-0} * 10)) -le "${hot_anon:-0}" ]; then
	pass tiers-hot-stays "$(mib "${hot_n2:-0}") of $(mib "${hot_anon:-0}") MiB of tiers-hot on node 2"
else
	fail tiers-hot-stays "$(mib "${hot_n2:-0}") of $(mib "${hot_anon:-0}") MiB of tiers-hot on node 2 (10 % at most)"
fi
if [ "$pro" -le $((dem / 10 + 1024)) ]; then
	pass tiers-promotions "$pro pages promoted back of $dem demoted"
else
	fail tiers-promotions "$pro pages promoted back of $dem demoted (at most $((dem / 10 + 1024)))"
fi
if grep "tiers-cold: reclaim" "$log" | grep -q "KiB more demoted"; then
	pass tiers-not-reclaimed "$(grep "tiers-cold: reclaim" "$log" | grep -c 'KiB more demoted') job lines report demoted pages apart"
else
	fail tiers-not-reclaimed "no tiers-cold job line with 'KiB more demoted'"
fi
exit 0
