#!/bin/sh
# vm-options: --node-mem 1024M --data-size 512M
# Side by side (bench/peers.sh): one arm per VM boot. The same five workloads start fresh, each in
# its own cgroup under system.slice, then one reclaimer (or none) runs for PEERS_SECONDS while the
# cgroups are sampled every PEERS_SAMPLE_S seconds.
#
#   PEERS_ARM      none | senpai | damon | reclaimd-shipped | reclaimd-defaults | reclaimd-memreclaim
#   PEERS_SECONDS  measured run time after every workload is ready (default 300)
#
# Workloads (open loop at a fixed rate; --tlb-flush-ms 50, see memhog.c):
#   web        300 MiB anon, 20 % hot, 5000/s              cold 240 MiB
#   batch      400 MiB anon,  5 % hot, 5000/s              cold 380 MiB
#   filecache  300 MiB file on /data (ext2: page cache), 10 % read via pread, 5000/s   cold 270 MiB
#   warm30     200 MiB anon, 30 % hot, 3000/s              cold 140 MiB
#   warm50     200 MiB anon, 50 % hot, 3000/s              cold 100 MiB
#
# Arms:
#   senpai             oomd 0.5.0 (--exe /usr/bin/oomd), Senpai with Meta's "poking" settings
#   damon              DAMON_RECLAIM (built into the kernel), always-on watermarks, PEERS_DAMON_*
#   reclaimd-shipped   reclaimd --config /etc/reclaimd/reclaimd.json (config/reclaimd.json)
#   reclaimd-defaults  reclaimd with {"rules":[{"match":"system.slice/*.service"}]}
#   reclaimd-memreclaim  the same with "mglru_aging": false: memory.reclaim, the other reclaim path
#
# Results:
#   samples.tsv   arm t_s cgroup current swap zswap psi_some_us refaults   (t_s from the start)
#   summary.tsv   arm cgroup cold_bytes ops_per_s p99_us majflt            (memhog summaries)
#   agent.tsv     arm status agent_cpu_s seconds                           (status ok | failed:why)
#   damon-params-{start,end}.txt, agent.log, memhog-*.log
set -eu
. "$VMTEST_LIB"

ARM=${PEERS_ARM:-none}
SECONDS_RUN=${PEERS_SECONDS:-300}
SAMPLE_S=${PEERS_SAMPLE_S:-5}
TLB=${PEERS_TLB_FLUSH_MS:-50}
# DAMON_RECLAIM: pages unaccessed for 20 s are paged out, up to 128 MiB and 100 ms of kdamond CPU
# per second; watermarks always on (the defaults deactivate it while more than 40 % of memory is
# free, see bench/README.md).
DAMON_MIN_AGE_US=${PEERS_DAMON_MIN_AGE_US:-20000000}
DAMON_QUOTA_MS=${PEERS_DAMON_QUOTA_MS:-100}
DAMON_QUOTA_SZ=${PEERS_DAMON_QUOTA_SZ:-134217728}
DAMON_WMARKS=${PEERS_DAMON_WMARKS:-1000,999,0}
DAMON_MAX_NR_REGIONS=${PEERS_DAMON_MAX_NR_REGIONS:-1000}
# PEERS_DAMON_TRACE=1: the damon:damon_aggregated tracepoint (every region's nr_accesses and age per
# aggregation interval) for the last 2 s of the run, into damon-trace.txt.

SL=$CGROOT/system.slice
CGS="web batch filecache warm30 warm50"

some_total() { sed -n 's/^some .*total=\([0-9]*\)$/\1/p' "$1/memory.pressure"; }
refaults() { echo $(($(memstat "$1" workingset_refault_anon) + $(memstat "$1" workingset_refault_file))); }
# cpu_s PID: utime + stime of every thread of PID, in seconds (USER_HZ 100).
cpu_s() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
alive() { [ -e "/proc/$1/stat" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat")" != Z ]; }

mkdir -p "$SL"
echo "+memory" >"$SL/cgroup.subtree_control"
for c in $CGS; do mkdir -p "$SL/$c.service"; done
mkdir -p "$CGROOT/peer-agent"

start_hog() { # NAME COLD_BYTES MEMHOG_ARGS...
	_n=$1
	_cold=$2
	shift 2
	echo "$_n $_cold" >>/tmp/cold.txt
	cg_run "$SL/$_n.service" memhog "$@" --duration 0 --tlb-flush-ms "$TLB" --report-interval "$SAMPLE_S" \
		--ready-file "/tmp/$_n.ready" >"$RESULTS/memhog-$_n.log" 2>&1
	eval "pid_$_n=\$!"
}
: >/tmp/cold.txt
M=1048576
start_hog web $((240 * M)) --anon 300M --hot-pct 20 --rate 5000
start_hog batch $((380 * M)) --anon 400M --hot-pct 5 --rate 5000
start_hog filecache $((270 * M)) --file 300M --file-path /data/filecache.dat --file-hot-pct 10 --rate 5000
start_hog warm30 $((140 * M)) --anon 200M --hot-pct 30 --rate 3000 --seed 2
start_hog warm50 $((100 * M)) --anon 200M --hot-pct 50 --rate 3000 --seed 3
for c in $CGS; do
	wait_for_file "/tmp/$c.ready" 300 || { echo "peers: $c never became ready"; exit 1; }
done
echo "peers: workloads ready; arm $ARM for $SECONDS_RUN s"
grep -E '^(MemTotal|MemFree|MemAvailable|SwapTotal|SwapFree):' /proc/meminfo >"$RESULTS/meminfo-start.txt"

status=ok
agent_pid=
case $ARM in
none) ;;
senpai)
	list=
	for c in $CGS; do list="$list${list:+,}system.slice/$c.service"; done
	cat >/tmp/oomd.json <<EOF
{ "rulesets": [ { "name": "senpai", "silence-logs": "engine",
    "detectors": [ [ "always", { "name": "continue", "args": {} } ] ],
    "actions": [ { "name": "senpai", "args": {
        "cgroup": "$list",
        "limit_min_bytes": "104857600", "interval": "6", "immediate_backoff": "true",
        "io_pressure_pct": "1.0", "memory_high_timeout_ms": "20" } } ] } ] }
EOF
	cp /tmp/oomd.json "$RESULTS/oomd.json"
	(echo 0 >"$CGROOT/peer-agent/cgroup.procs" &&
		exec oomd --config /tmp/oomd.json --interval 1 --cgroup-fs /sys/fs/cgroup) >"$RESULTS/agent.log" 2>&1 &
	agent_pid=$!
	;;
damon)
	P=/sys/module/damon_reclaim/parameters
	if [ ! -d "$P" ]; then
		status="failed:no-damon_reclaim"
	else
		(cd "$P" && grep -e . -- *) >"$RESULTS/damon-params-default.txt" 2>&1 || true
		echo "$DAMON_MIN_AGE_US" >"$P/min_age"
		echo "$DAMON_QUOTA_MS" >"$P/quota_ms"
		echo "$DAMON_QUOTA_SZ" >"$P/quota_sz"
		echo "$DAMON_MAX_NR_REGIONS" >"$P/max_nr_regions"
		echo "${DAMON_WMARKS%%,*}" >"$P/wmarks_high"
		_r=${DAMON_WMARKS#*,}
		echo "${_r%%,*}" >"$P/wmarks_mid"
		echo "${_r#*,}" >"$P/wmarks_low"
		echo Y >"$P/enabled" || status="failed:enable"
		sleep 1
		(cd "$P" && grep -e . -- *) >"$RESULTS/damon-params-start.txt" 2>&1 || true
		agent_pid=$(cat "$P/kdamond_pid")
		[ "$agent_pid" -gt 0 ] 2>/dev/null || { status="failed:no-kdamond"; agent_pid=; }
	fi
	;;
reclaimd-shipped)
	agent_start /etc/reclaimd/reclaimd.json "$RESULTS/agent.log"
	agent_pid=$AGENT_PID
	;;
reclaimd-defaults)
	echo '{"rules":[{"match":"system.slice/*.service"}]}' >/tmp/defaults.json
	agent_start /tmp/defaults.json "$RESULTS/agent.log"
	agent_pid=$AGENT_PID
	;;
reclaimd-memreclaim)
	echo '{"mglru_aging":false,"rules":[{"match":"system.slice/*.service"}]}' >/tmp/memreclaim.json
	agent_start /tmp/memreclaim.json "$RESULTS/agent.log"
	agent_pid=$AGENT_PID
	;;
*)
	echo "peers: unknown arm $ARM"
	exit 2
	;;
esac

printf 'arm\tt_s\tcgroup\tcurrent\tswap\tzswap\tpsi_some_us\trefaults\n' >"$RESULTS/samples.tsv"
sample() { # T
	for c in $CGS; do
		cg=$SL/$c.service
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ARM" "$1" "$c" "$(cat "$cg/memory.current")" \
			"$(cat "$cg/memory.swap.current")" "$(cat "$cg/memory.zswap.current")" "$(some_total "$cg")" \
			"$(refaults "$cg")" >>"$RESULTS/samples.tsv"
	done
}
t0=$(uptime_s)
sample 0
next=$SAMPLE_S
while [ "$next" -le "$SECONDS_RUN" ]; do
	# Sleep to the next multiple of SAMPLE_S since t0 (no drift from the sampling itself).
	sleep "$(awk -v t0="$t0" -v n="$next" -v now="$(uptime_s)" 'BEGIN { d = t0 + n - now; printf "%.2f", (d > 0 ? d : 0) }')"
	sample "$(awk -v t0="$t0" -v now="$(uptime_s)" 'BEGIN { printf "%.1f", now - t0 }')"
	next=$((next + SAMPLE_S))
	if [ -n "$agent_pid" ] && [ "$status" = ok ] && ! alive "$agent_pid"; then
		status="failed:agent-exited-at-$next"
	fi
done
elapsed=$(awk -v t0="$t0" -v now="$(uptime_s)" 'BEGIN { printf "%.1f", now - t0 }')

agent_cpu=
if [ -n "$agent_pid" ] && alive "$agent_pid"; then
	agent_cpu=$(cpu_s "$agent_pid")
fi
case $ARM in
damon)
	(cd /sys/module/damon_reclaim/parameters && grep -e . -- *) >"$RESULTS/damon-params-end.txt" 2>&1 || true
	if [ "${PEERS_DAMON_TRACE:-0}" = 1 ]; then
		T=/sys/kernel/tracing
		[ -d "$T/events" ] || mount -t tracefs tracefs "$T" || true
		if echo 1 >"$T/events/damon/damon_aggregated/enable"; then
			sleep 2
			echo 0 >"$T/events/damon/damon_aggregated/enable" || true
			cat "$T/trace" >"$RESULTS/damon-trace.txt" || true
		fi
	fi
	echo N >/sys/module/damon_reclaim/parameters/enabled || true
	;;
senpai) kill -TERM "$agent_pid" 2>/dev/null || true ;;
reclaimd-*) agent_stop >/dev/null ;;
esac
[ "$ARM" = none ] && agent_cpu=0
[ -n "$agent_cpu" ] || [ "$status" != ok ] || status="failed:agent-gone"
printf 'arm\tstatus\tagent_cpu_s\tseconds\n%s\t%s\t%s\t%s\n' "$ARM" "$status" "${agent_cpu:--}" "$elapsed" \
	>"$RESULTS/agent.tsv"

for c in $CGS; do eval "kill -TERM \$pid_$c" 2>/dev/null || true; done
for c in $CGS; do eval "wait \$pid_$c" 2>/dev/null || true; done
printf 'arm\tcgroup\tcold_bytes\tops_per_s\tp99_us\tmajflt\n' >"$RESULTS/summary.tsv"
while read -r c cold; do
	sum=$(grep 'memhog summary' "$RESULTS/memhog-$c.log" | tail -1)
	ops=$(echo "$sum" | sed -n 's/.*ops_per_s=\([0-9.]*\).*/\1/p')
	p99=$(echo "$sum" | sed -n 's/.*p99_us=\([0-9.]*\).*/\1/p')
	mf=$(echo "$sum" | sed -n 's/.*majflt=\([0-9]*\).*/\1/p')
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ARM" "$c" "$cold" "${ops:--}" "${p99:--}" "${mf:--}" >>"$RESULTS/summary.tsv"
done </tmp/cold.txt
cat "$RESULTS/agent.tsv" "$RESULTS/summary.tsv"
