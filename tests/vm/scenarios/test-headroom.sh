#!/bin/sh
# vm-options: --cpus-per-node 2 --node-mem 512M --data-size 768M
# VM test of the headroom policy: direct reclaim avoided for a latency-sensitive allocator.
#
# Each phase starts from fresh cgroups hr-<phase>/batch and hr-<phase>/latency and dropped caches:
#  - batch holds most of memory as cold anonymous pages (memhog, 5 % hot) and streams a file from
#    /data (page cache that refills free memory, as a batch job reading its input does: without it
#    free memory stays where the last burst left it and only the first burst stalls);
#  - after SETTLE s, latency runs ALLOCATORS allocburst processes (BURST bursts, every step of
#    2 MiB timed) for RUN s while /proc/vmstat allocstall_* (summed), pgscan_direct, pgsteal_direct
#    and pgscan_kswapd are recorded. Several allocators on 4 vCPUs, because one faulting process
#    under software emulation is slower than kswapd dropping clean page cache (measured without
#    the agent over 40 s: 0 allocstalls with one allocator, 26 with three). The p99 in the table
#    is the worst of the allocators' p99s.
# Phase "none" runs without the agent, phase "agent" with tests/vm/configs/headroom.json
# (headroom 160M per node, batch reclaim_priority 100, latency never reclaimed).
# headroom-allocstalls passes when allocstalls drop by at least 90 % with the agent. Table in
# $RESULTS/headroom-table.txt and in the results.
# Phase "fallback" (after both; tests/vm/configs/headroom-fallback.json: headroom 64M, the batch's
# psi steps 0.01 % so that only headroom would take memory from it): a cold batch bound to node 0
# (memhog --node 0) leaves node 0 at its high watermark + 24 MiB, 40 MiB under its goal, while
# node 1 has room for its own refill target and node 0's. With vm.zone_reclaim_mode 0 the
# allocator serves node 0's allocations from node 1 without reclaim:
#  - headroom-fallback passes when, over FALLBACK_WATCH s, the agent asks no cgroup for anything
#    (no REASON=headroom line, totals.headroom_requests 0) and its status shows node 0's
#    shortfall covered by other nodes;
#  - headroom-local then sets zone_reclaim_mode 1 (the kernel reclaims locally before it falls
#    back) and passes when headroom asks the batch for memory within FALLBACK_WATCH s;
#  - headroom-fallback-kernel checks the kernel's side with the agent stopped and mode 0: an
#    unbound allocator pinned to node 0's CPUs (allocburst, bursts of node 0's room above its low
#    watermark + 32 MiB, 10 s) gets pages from node 1 (node 1's numa_miss rises) with no
#    allocstall. It runs last: the kswapd wakeups its fallbacks cause (boosted watermarks) refill
#    node 0 and would blur the agent's checks.
# zone_reclaim_mode is put back as it was.
set -u
. "$VMTEST_LIB"

MiB=1048576
BURST=${HEADROOM_BURST:-64M}
ALLOCATORS=${HEADROOM_ALLOCATORS:-4}
SETTLE=${HEADROOM_SETTLE:-20}
RUN=${HEADROOM_RUN:-60}
FALLBACK_WATCH=${HEADROOM_FALLBACK_WATCH:-20}
STREAM_MIB=400

# A file larger than what page cache can keep next to the batch's anonymous memory.
if [ ! -d /data ]; then
	fail headroom-setup "no /data disk"
	exit 1
fi
dd if=/dev/zero of=/data/stream bs=1M count=$STREAM_MIB 2>/dev/null && sync
echo "wrote /data/stream ($STREAM_MIB MiB)"

# The streamer reads 16 MiB of /data/stream every 0.5 s, round robin: about 32 MiB/s of new page
# cache in the batch cgroup.
STREAMER='i=0; while :; do dd if=/data/stream of=/dev/null bs=1M count=16 skip=$(((i * 16) % $1)) 2>/dev/null; i=$((i + 1)); sleep 0.5; done'

phase() { # NAME USE_AGENT
	p=$1
	echo "=== phase $p"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	top=$(cg_create "hr-$p")
	echo "+memory" >"$top/cgroup.subtree_control"
	mkdir -p "$top/batch" "$top/latency"
	avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	batch_mib=$((avail_kib / 1024 - 96))
	echo "MemAvailable $((avail_kib / 1024)) MiB: batch holds $batch_mib MiB"
	cg_run "$top/batch" memhog --anon "${batch_mib}M" --hot-pct 5 --rate 1000 --duration 900 \
		--report-interval 10 --ready-file "/tmp/batch-$p.ready" >"$RESULTS/memhog-batch-$p.log" 2>&1
	hog=$!
	if ! wait_for_file "/tmp/batch-$p.ready" 180; then
		fail "headroom-$p" "batch memhog did not get ready"
		return 1
	fi
	cg_run "$top/batch" sh -c "$STREAMER" streamer "$STREAM_MIB"
	stream=$!
	if [ "$2" = 1 ]; then
		agent_start /etc/reclaimd/headroom.json "$RESULTS/agent-$p.log"
	fi
	sleep "$SETTLE"
	grep -E '^(MemFree|MemAvailable|Cached|SwapFree):' /proc/meminfo | tr -s ' ' | tr '\n' ' ' | sed 's/^/before the bursts: /'
	echo
	for n in 0 1; do
		awk -v n="$n" '$1 == "Node" && $2 == n "," { node = 1; next } $1 == "Node" { node = 0 } node && $1 == "pages" && $2 == "free" { f += $3 } node && $1 == "high" { h += $2 } END { printf "node %d: free %d KiB, high watermark %d KiB\n", n, f * 4, h * 4 }' /proc/zoneinfo
	done
	stall0=$(vmstat_sum 'allocstall_*')
	scan0=$(vmstat_sum pgscan_direct)
	steal0=$(vmstat_sum pgsteal_direct)
	kscan0=$(vmstat_sum pgscan_kswapd)
	allocs=
	a=0
	while [ $a -lt "$ALLOCATORS" ]; do
		cg_run "$top/latency" allocburst --burst "$BURST" --hold 200 --gap 1500 --duration "$RUN" \
			--report-interval 10 >"$RESULTS/allocburst-$p-$a.log" 2>&1
		allocs="$allocs $!"
		a=$((a + 1))
	done
	# shellcheck disable=SC2086
	wait $allocs
	stall1=$(vmstat_sum 'allocstall_*')
	scan1=$(vmstat_sum pgscan_direct)
	steal1=$(vmstat_sum pgsteal_direct)
	kscan1=$(vmstat_sum pgscan_kswapd)
	grep -h 'allocburst summary' "$RESULTS"/allocburst-"$p"-*.log >/tmp/summaries
	cat /tmp/summaries
	# field NAME max|sum|min: over the allocators' summaries
	field() { tr ' ' '\n' </tmp/summaries | sed -n "s/^$1=//p" | awk -v op="$2" 'NR == 1 || (op == "max" && $1 > v) || (op == "min" && $1 < v) { if (op != "sum") v = $1 } { s += $1 } END { print (op == "sum") ? s : v }'; }
	eval "stalls_$p=$((stall1 - stall0)) scan_$p=$((scan1 - scan0)) steal_$p=$((steal1 - steal0)) kscan_$p=$((kscan1 - kscan0))"
	eval "p99_$p=$(field p99_us max) p50_$p=$(field p50_us max) max_$p=$(field max_us max) bps_$p=$(field bursts_per_s sum) bursts_$p=$(field bursts sum)"
	echo "phase $p: allocstalls $((stall1 - stall0)), pgscan_direct $((scan1 - scan0)), pgsteal_direct $((steal1 - steal0)), pgscan_kswapd $((kscan1 - kscan0))"
	if [ "$2" = 1 ]; then
		echo "agent stopped in $(agent_stop) s"
		hr_lines=$(log_select "$RESULTS/agent-$p.log" REASON=headroom | wc -l)
		echo "agent: $hr_lines headroom lines, $(log_select "$RESULTS/agent-$p.log" REASON=headroom | grep -c 'from [0-9]* stalling cgroups') of them with a last-resort request of the stalling batch"
		log_select "$RESULTS/agent-$p.log" REASON=headroom | head -n 3 | log_message | sed 's/^/log: /'
	fi
	kill "$stream" "$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	# The streamer's dd or sleep child, if any is left.
	for pid in $(cat "$top/batch/cgroup.procs"); do kill "$pid" 2>/dev/null; done
	sleep 1
	rmdir "$top/batch" "$top/latency" "$top" 2>/dev/null || echo "could not remove $top"
	return 0
}

phase none 0 || exit 1
if [ ! -x "$AGENT" ]; then
	fail headroom-allocstalls "no agent in the VM (phase without it: ${stalls_none} allocstalls, ${scan_none} pgscan_direct, ${kscan_none} pgscan_kswapd, p99 ${p99_none} us)"
	exit 1
fi
phase agent 1 || exit 1

# shellcheck disable=SC2154 # set by eval in phase
{
	printf '%-8s %12s %14s %15s %14s %10s %10s %10s %8s %12s\n' phase allocstalls pgscan_direct pgsteal_direct pgscan_kswapd p50_us p99_us max_us bursts bursts_per_s
	for p in none agent; do
		eval "printf '%-8s %12s %14s %15s %14s %10s %10s %10s %8s %12s\n' $p \$stalls_$p \$scan_$p \$steal_$p \$kscan_$p \$p50_$p \$p99_$p \$max_$p \$bursts_$p \$bps_$p"
	done
} >"$RESULTS/headroom-table.txt"
cat "$RESULTS/headroom-table.txt"
sed 's/^/# /' "$RESULTS/headroom-table.txt" >>"$RESULTS/results.txt"

# shellcheck disable=SC2154
if [ "$stalls_none" -lt 20 ]; then
	fail headroom-allocstalls "without the agent only $stalls_none allocstalls: the setup does not make the allocator stall"
elif [ $((stalls_agent * 10)) -le "$stalls_none" ]; then
	pass headroom-allocstalls "allocstalls $stalls_none -> $stalls_agent, pgscan_direct $scan_none -> $scan_agent, p99 $p99_none -> $p99_agent us"
else
	fail headroom-allocstalls "allocstalls $stalls_none -> $stalls_agent (less than a 90 % drop), pgscan_direct $scan_none -> $scan_agent, p99 $p99_none -> $p99_agent us"
fi
if [ "${hr_lines:-0}" -ge 1 ]; then
	pass headroom-logged "$hr_lines headroom reclaim lines (REASON=headroom)"
else
	fail headroom-logged "no REASON=headroom line in the agent's log"
fi

# ---- phase fallback ------------------------------------------------------------------------------
node_free_mib() { # NODE
	awk '/MemFree:/ { print int($4 / 1024) }' "/sys/devices/system/node/node$1/meminfo"
}
node_wmark_mib() { # NODE low|high: the sum of the node's zones' watermark, MiB
	awk -v n="$1" -v k="$2" '$1 == "Node" && $2 == n "," { node = 1; next } $1 == "Node" { node = 0 } node && $1 == k { h += $2 } END { print int(h * 4 / 1024) }' /proc/zoneinfo
}
numastat() { # NODE KEY
	awk -v k="$2" '$1 == k { print $2 }' "/sys/devices/system/node/node$1/numastat"
}
# status_u64 KEY: the first "KEY": N of `reclaimctl --json status`, or -1.
status_u64() {
	reclaimctl --json status 2>/dev/null | tr -d ' \n' | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2 | grep . || echo -1
}
echo "=== phase fallback"
if ! command -v taskset >/dev/null; then
	fail headroom-fallback "setup: no taskset in the VM"
	exit 1
fi
GOAL_MIB=64
zrm_was=$(cat /proc/sys/vm/zone_reclaim_mode)
echo 0 >/proc/sys/vm/zone_reclaim_mode
sync
echo 3 >/proc/sys/vm/drop_caches
sleep 1
high0=$(node_wmark_mib 0 high)
high1=$(node_wmark_mib 1 high)
top=$(cg_create hr-fallback)
echo "+memory" >"$top/cgroup.subtree_control"
mkdir -p "$top/batch" "$top/latency"
# Node 0 left at its high watermark + 24 MiB: 40 MiB short of its goal, above its low watermark.
hog_mib=$(($(node_free_mib 0) - high0 - 24))
cg_run "$top/batch" memhog --anon "${hog_mib}M" --hot-pct 5 --rate 1000 --node 0 --duration 600 \
	--report-interval 10 --ready-file /tmp/batch-fallback.ready >"$RESULTS/memhog-batch-fallback.log" 2>&1
hog=$!
if ! wait_for_file /tmp/batch-fallback.ready 180; then
	fail headroom-fallback "batch memhog --node 0 did not get ready"
	exit 1
fi
sleep 2
free0=$(node_free_mib 0)
free1=$(node_free_mib 1)
echo "batch holds $hog_mib MiB on node 0: node 0 free $free0 MiB (high $high0), node 1 free $free1 MiB (high $high1); goal $GOAL_MIB MiB above high"
# Node 1 must cover node 0's shortfall even at both refill targets (high + 2 * goal), with 96 MiB
# to spare for the allocator's bursts below.
need1=$((high1 + 2 * GOAL_MIB + high0 + 2 * GOAL_MIB - free0 + 96))
if [ "$free0" -ge $((high0 + GOAL_MIB - 8)) ] || [ "$free1" -lt "$need1" ]; then
	fail headroom-fallback "setup: node 0 must be under its goal and node 1 must cover it (node 0 free $free0 MiB, goal $((high0 + GOAL_MIB)); node 1 free $free1 MiB, needs $need1)"
	kill "$hog" 2>/dev/null
	echo "$zrm_was" >/proc/sys/vm/zone_reclaim_mode
	exit 1
fi
flog=$RESULTS/agent-fallback.log
agent_start /etc/reclaimd/headroom-fallback.json "$flog"
i=0
while [ "$i" -lt "$FALLBACK_WATCH" ]; do
	sleep 1
	i=$((i + 1))
	echo "t=$i s: node 0 free $(node_free_mib 0) MiB, node 1 free $(node_free_mib 1) MiB" >>"$RESULTS/fallback-free.txt"
done
lines=$(log_select "$flog" REASON=headroom | wc -l)
asked=$(status_u64 headroom_requests)
covered=$(status_u64 covered_by_other_nodes_bytes)
reclaimctl status >"$RESULTS/status-fallback.txt" 2>&1 || true
sed -n '/^NODE/,/^$/p' "$RESULTS/status-fallback.txt"
tail -n 3 "$RESULTS/fallback-free.txt"
echo "zone_reclaim_mode 0, $FALLBACK_WATCH s: $lines headroom lines, $asked requests, node 0 covered by other nodes: $covered bytes"
if [ "$lines" -eq 0 ] && [ "$asked" -eq 0 ] && [ "$covered" -gt 0 ]; then
	pass headroom-fallback "node 0 under its goal, covered by node 1: no request in $FALLBACK_WATCH s, $((covered / MiB)) MiB covered by other nodes"
else
	fail headroom-fallback "zone_reclaim_mode 0: $lines headroom lines, $asked requests, $covered bytes covered by other nodes (want 0, 0, > 0)"
fi

echo 1 >/proc/sys/vm/zone_reclaim_mode
n=0
while [ "$n" -lt "$FALLBACK_WATCH" ]; do
	sleep 1
	n=$((n + 1))
	asked=$(status_u64 headroom_requests)
	[ "$asked" -gt 0 ] && break
done
lines=$(log_select "$flog" REASON=headroom | wc -l)
echo "zone_reclaim_mode 1: $asked requests after $n s, $lines headroom lines"
log_select "$flog" REASON=headroom | head -n 2 | log_message | sed 's/^/log: /'
if [ "$asked" -gt 0 ] && [ "$lines" -ge 1 ]; then
	pass headroom-local "zone_reclaim_mode 1: headroom asked the batch within $n s ($asked requests)"
else
	fail headroom-local "zone_reclaim_mode 1: $asked requests and $lines headroom lines in $n s (want > 0, >= 1)"
fi
echo "agent stopped in $(agent_stop) s"
echo 0 >/proc/sys/vm/zone_reclaim_mode

# The kernel's side of the model, with the agent stopped: an unbound allocator on node 0's CPUs,
# outside any managed cgroup, gets node 1's memory once node 0 is at its low watermark, with no
# direct reclaim. Each burst is node 0's room above its low watermark now plus 32 MiB, so every
# burst goes on to node 1 (at most node 0's refill target, about 170 MiB here; node 1 has over 350).
low0=$(node_wmark_mib 0 low)
burst=$(($(node_free_mib 0) - low0 + 32))
stall0=$(vmstat_sum 'allocstall_*')
kscan0=$(vmstat_sum pgscan_kswapd)
miss0=$(numastat 1 numa_miss)
cg_run "$top/latency" taskset -c "$(node_cpulist 0)" allocburst --burst "${burst}M" --hold 200 \
	--gap 300 --duration 10 --report-interval 10 >"$RESULTS/allocburst-fallback.log" 2>&1
wait $!
stalls=$(($(vmstat_sum 'allocstall_*') - stall0))
kscan=$(($(vmstat_sum pgscan_kswapd) - kscan0))
miss=$(($(numastat 1 numa_miss) - miss0))
grep -h 'allocburst summary' "$RESULTS/allocburst-fallback.log" || true
echo "the allocator on node 0's CPUs ($burst MiB bursts, node 0 low watermark $low0 MiB): node 1 numa_miss +$miss pages, allocstalls +$stalls, pgscan_kswapd +$kscan"
if [ "$miss" -gt 0 ] && [ "$stalls" -eq 0 ]; then
	pass headroom-fallback-kernel "the allocator on node 0's CPUs took $((miss * 4 / 1024)) MiB from node 1 with 0 allocstalls (pgscan_kswapd +$kscan)"
else
	fail headroom-fallback-kernel "the allocator on node 0's CPUs: node 1 numa_miss +$miss pages, allocstalls +$stalls (want > 0, 0)"
fi
echo "$zrm_was" >/proc/sys/vm/zone_reclaim_mode
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
rmdir "$top/batch" "$top/latency" "$top" 2>/dev/null || echo "could not remove $top"
