#!/bin/sh
# vm-options: --cpus-per-node 2
# VM tests of the per-NUMA-node worker pools (4 vCPUs, CPUs 0-1 on node 0, 2-3 on node 1), with
# tests/vm/configs/numa.json (interval 2 s, "numa.slice/*" managed, min_bytes 16 MiB):
#  1. workers-pinned: every worker thread (comm reclaimd-n<N>-w<I>) may run on exactly node N's
#     CPUs (Cpus_allowed_list in /proc/<pid>/task/<tid>/status = /sys/.../node<N>/cpulist), and
#     each node has as many as its "reclaim workers pinned" line says;
#  2. (run third) reclaim-on-node: a cold cgroup whose memory is bound to node 1 (memhog --node 1)
#     is reclaimed on node 1: at least one "reclaim ... on node 1" line for it, none on node 0;
#  3. (run second) workers-throttled / workers-restored: two busy loops pinned to node 1's CPUs make
#     the agent allow node 1 one worker within 15 s, and the full pool again within 30 s after they
#     stop. The idle cores of node 1 measured from /proc/stat over the same windows are printed.
# Log lines are parsed by their fields (guest/lib.sh log_select); the messages are in the results.
set -u
. "$VMTEST_LIB"

MiB=1048576
log=$RESULTS/agent.log
: >"$log"

if [ ! -x "$AGENT" ]; then
	fail numa-agent "no agent in the VM"
	exit 1
fi
nodes=
for n in /sys/devices/system/node/node[0-9]*; do
	id=${n##*node}
	[ -n "$(cat "$n/cpulist")" ] && nodes="$nodes $id"
	echo "node $id: cpus $(cat "$n/cpulist"), $(grep MemTotal "$n/meminfo" | sed 's/.*MemTotal: *//')"
done
cpus1=$(cpulist_expand "$(node_cpulist 1)")
echo "nodes with CPUs:$nodes; node 1 CPUs: $cpus1"
if [ "$(echo "$cpus1" | wc -w)" -lt 2 ]; then
	fail numa-vm "node 1 has fewer than 2 CPUs: run with --cpus-per-node 2"
	exit 1
fi

mkdir -p "$CGROOT/numa.slice"
echo "+memory" >"$CGROOT/numa.slice/cgroup.subtree_control"
# At debug level: the job lines (": reclaim ... on node") are DEBUG lines.
config_debug /etc/reclaimd/numa.json /tmp/numa.json
agent_start /tmp/numa.json "$log"
echo "agent pid $AGENT_PID"

# ---- 1. worker threads pinned to their node's CPUs ---------------------------------------------
# Wait for one "reclaim workers pinned" line per node with CPUs.
want=$(echo $nodes | wc -w)
i=0
while [ "$(grep -c ' reclaim workers pinned to CPUs ' "$log")" -lt "$want" ] && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
grep ' reclaim workers pinned to CPUs ' "$log" | log_message | sed 's/^/log: /'
{
	for t in /proc/"$AGENT_PID"/task/*; do
		echo "${t##*/} $(cat "$t/comm") $(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status")"
	done
} >"$RESULTS/threads.txt"
cat "$RESULTS/threads.txt"
bad=
detail=
for n in $nodes; do
	cpus=$(node_cpulist "$n")
	line=$(log_select "$log" "NODE=$n" | grep ' reclaim workers pinned to CPUs ' | tail -n 1)
	w=$(echo "$line" | log_message | sed -n 's/^node [0-9]*: \([0-9]*\) reclaim workers.*/\1/p')
	logcpus=$(echo "$line" | log_message | sed -n 's/.* pinned to CPUs \([0-9,-]*\).*/\1/p')
	have=$(awk -v p="reclaimd-n$n-w" 'index($2, p) == 1' "$RESULTS/threads.txt" | wc -l)
	wrong=$(awk -v p="reclaimd-n$n-w" -v c="$cpus" 'index($2, p) == 1 && $3 != c { print $2 "=" $3 }' "$RESULTS/threads.txt" | tr '\n' ' ')
	eval "workers_$n=\${w:-0}"
	detail="$detail node $n: $have threads on $cpus (log: ${w:-?} on ${logcpus:-?});"
	if [ -z "$line" ]; then
		bad="$bad node $n: no 'reclaim workers pinned' line;"
	elif [ "$have" -lt 1 ] || [ "$have" -ne "$w" ]; then
		bad="$bad node $n: $have reclaimd-n$n-w* threads, the log says $w;"
	elif [ -n "$wrong" ]; then
		bad="$bad node $n: threads not on $cpus: $wrong;"
	elif [ "$logcpus" != "$cpus" ]; then
		bad="$bad node $n: log says CPUs $logcpus, sysfs $cpus;"
	fi
done
if [ -z "$bad" ]; then pass workers-pinned "$detail"; else fail workers-pinned "$bad"; fi

# ---- 3. busy node 1: fewer workers, then the full pool again -----------------------------------
# workers_1: node 1's pool size from its start line.
# shellcheck disable=SC2154
full=$workers_1
allowed_last() { # NODE: the last ALLOWED_WORKERS value logged for NODE (empty: none yet)
	log_select "$log" "NODE=$1" | log_field ALLOWED_WORKERS | grep . | tail -n 1
}
# This shell and what it starts (the log polling below: a few processes every poll) run on node
# 0's CPUs, so node 1's idle time, which the agent turns into workers, is the busy loops' alone.
taskset -p -c "$(node_cpulist 0)" $$ >/dev/null 2>&1 ||
	echo "cannot pin the scenario to node 0's CPUs ($(node_cpulist 0)); its polling lands on node 1 too"
# The tracker averages the last 10 s: wait until node 1 is at its full pool (or has never
# changed from it) before loading it.
grep '^cpu[0-9]' /proc/stat >/tmp/stat.before
i=0
while [ $i -lt 30 ]; do
	a=$(allowed_last 1)
	[ "${a:-$full}" = "$full" ] && [ $i -ge 12 ] && break
	sleep 1
	i=$((i + 1))
done
idle_before=$(idle_cores_since /tmp/stat.before $cpus1)
# The pool starts with 1 allowed worker; "no line yet" means it never changed from that.
echo "node 1 before the load: allowed ${a:-(no line yet)} of $full; idle cores of node 1 over the wait: $idle_before"
if [ "$full" -lt 2 ]; then
	fail workers-throttled "node 1's pool has $full workers; need 2 to see it shrink"
else
	lines0=$(wc -l <"$log")
	grep '^cpu[0-9]' /proc/stat >/tmp/stat.load
	t_load=$(uptime_s)
	loops=
	for c in $cpus1; do
		taskset -c "$c" sh -c 'while :; do :; done' &
		loops="$loops $!"
	done
	echo "busy loops$loops on CPUs $cpus1 from t=$t_load"
	i=0
	t_down=
	while [ $i -lt 40 ]; do # 20 s, the test allows 15 (times come from the log lines)
		l=$(tail -n +$((lines0 + 1)) "$log" | grep ' | ' | grep -w 'NODE=1' | grep -w 'ALLOWED_WORKERS=1' | head -n 1)
		if [ -n "$l" ]; then
			t_down=$(echo "$l" | log_time)
			echo "log: $(echo "$l" | log_message)"
			break
		fi
		sleep 0.5
		i=$((i + 1))
	done
	idle_load=$(idle_cores_since /tmp/stat.load $cpus1)
	sleep 2 # a little longer under load, so the tracker's window is full of busy samples
	# shellcheck disable=SC2086
	kill $loops
	# shellcheck disable=SC2086
	wait $loops 2>/dev/null
	t_stop=$(uptime_s)
	lines1=$(wc -l <"$log")
	grep '^cpu[0-9]' /proc/stat >/tmp/stat.idle
	if [ -n "$t_down" ] && awk -v a="$t_load" -v b="$t_down" 'BEGIN { exit !(b - a <= 15) }'; then
		pass workers-throttled "node 1: 1 of $full workers allowed $(awk -v a="$t_load" -v b="$t_down" 'BEGIN { printf "%.1f", b - a }') s after 2 busy loops started (node 1 idle cores under load: $idle_load)"
	else
		fail workers-throttled "no NODE=1 ALLOWED_WORKERS=1 line within 15 s of the load (${t_down:+seen at t=$t_down, load from $t_load; }allowed before the load: ${a:-no line, the initial 1}; node 1 idle cores before the load: $idle_before, under load: $idle_load)"
	fi

	i=0
	t_up=
	while [ $i -lt 70 ]; do # 35 s, the test allows 30 (times come from the log lines)
		l=$(tail -n +$((lines1 + 1)) "$log" | grep ' | ' | grep -w 'NODE=1' | grep -w "ALLOWED_WORKERS=$full" | head -n 1)
		if [ -n "$l" ]; then
			t_up=$(echo "$l" | log_time)
			echo "log: $(echo "$l" | log_message)"
			break
		fi
		sleep 0.5
		i=$((i + 1))
	done
	idle_after=$(idle_cores_since /tmp/stat.idle $cpus1)
	if [ -n "$t_up" ] && awk -v a="$t_stop" -v b="$t_up" 'BEGIN { exit !(b - a <= 30) }'; then
		pass workers-restored "node 1: $full of $full workers allowed $(awk -v a="$t_stop" -v b="$t_up" 'BEGIN { printf "%.1f", b - a }') s after the load stopped (node 1 idle cores since: $idle_after)"
	else
		fail workers-restored "no NODE=1 ALLOWED_WORKERS=$full line within 30 s after the load stopped (${t_up:+seen at t=$t_up, stopped at $t_stop; }node 1 idle cores over that time: $idle_after of $(echo "$cpus1" | wc -w); last allowed: $(allowed_last 1))"
	fi
fi

# ---- 2. memory bound to node 1 is reclaimed on node 1 ------------------------------------------
cg=$(cg_create numa.slice/cold1)
cg_run "$cg" memhog --anon 300M --hot-pct 5 --rate 1000 --node 1 --duration 240 \
	--report-interval 10 --ready-file /tmp/cold1.ready >"$RESULTS/memhog-cold1.log" 2>&1
hog=$!
if ! wait_for_file /tmp/cold1.ready 90; then
	fail reclaim-on-node "memhog did not get ready"
else
	grep -E '^(anon|file) ' "$cg/memory.numa_stat" | sed 's/^/numa_stat at start: /'
	anon_n1=$(awk '$1 == "anon" { for (i = 2; i <= NF; i++) if ($i ~ /^N1=/) print substr($i, 4) }' "$cg/memory.numa_stat")
	cur0=$(cat "$cg/memory.current")
	# Reclaim of this cgroup: wait for the first line, then 20 s more.
	i=0
	while [ $i -lt 90 ] && [ -z "$(log_select "$log" CGROUP=numa.slice/cold1 | grep ': reclaim .* on node ')" ]; do
		sleep 1
		i=$((i + 1))
	done
	sleep 20
	cur1=$(cat "$cg/memory.current")
	grep -E '^(anon|file) ' "$cg/memory.numa_stat" | sed 's/^/numa_stat at end: /'
	log_select "$log" CGROUP=numa.slice/cold1 | grep ': reclaim .* on node ' >/tmp/cold1.reclaims
	on1=$(log_field NODE </tmp/cold1.reclaims | grep -cx 1)
	on0=$(log_field NODE </tmp/cold1.reclaims | grep -cx 0)
	msg1=$(grep -c ': reclaim [a-z-]* on node 1:' /tmp/cold1.reclaims)
	bytes=0
	for b in $(log_field RECLAIMED_BYTES </tmp/cold1.reclaims); do bytes=$((bytes + b)); done
	sed -n '1,3p' /tmp/cold1.reclaims | log_message | sed 's/^/log: /'
	summary="$on1 reclaims on node 1 ($msg1 say so in the message), $on0 on node 0, $(mib "$bytes") MiB reclaimed; memory.current $(mib "$cur0") -> $(mib "$cur1") MiB; anon on node 1 at start $(mib "${anon_n1:-0}") MiB"
	if [ "${anon_n1:-0}" -lt $((250 * MiB)) ]; then
		fail reclaim-on-node "memhog --node 1 did not put its memory on node 1: $summary"
	elif [ "$on1" -ge 1 ] && [ "$on0" -eq 0 ] && [ "$msg1" -eq "$on1" ] && [ "$bytes" -gt 0 ]; then
		pass reclaim-on-node "$summary"
	else
		fail reclaim-on-node "$summary"
	fi
fi
kill "$hog" 2>/dev/null

stop_s=$(agent_stop)
echo "agent stopped in $stop_s s"
grep -E 'workers allowed|workers pinned|on node' "$log" | head -n 40 >"$RESULTS/agent-numa-lines.txt"
