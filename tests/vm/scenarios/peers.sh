#!/bin/sh
# vm-options: --node-mem 1024M --data-size 512M
# Side by side (bench/peers.sh): one arm per VM boot. The same five workloads start fresh, each in
# its own cgroup under system.slice, then one reclaimer (or none) runs for PEERS_SECONDS while the
# cgroups are sampled every PEERS_SAMPLE_S seconds.
#
#   PEERS_ARM      none | senpai | damon | damon-sysfs | reclaimd-shipped | reclaimd-defaults |
#                  reclaimd-memreclaim
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
#   damon-sysfs        DAMON_RECLAIM's scheme (the same PEERS_DAMON_* values) through the DAMON sysfs
#                      interface: on 6.12 the module loses its scheme (bench/README.md)
#   reclaimd-shipped   reclaimd --config /etc/reclaimd/reclaimd.json (config/reclaimd.json)
#   reclaimd-defaults  reclaimd with {"rules":[{"match":"system.slice/*.service"}]}
#   reclaimd-memreclaim  the same with "mglru_aging": false: memory.reclaim, the other reclaim path
#
# Results:
#   samples.tsv   arm t_s cgroup current swap zswap psi_some_us refaults   (t_s from the start)
#   summary.tsv   arm cgroup cold_bytes ops_per_s p99_us majflt            (memhog summaries)
#   agent.tsv     arm status agent_cpu_s seconds                           (status ok | failed:why)
#   damon-params-{start,end}.txt, damon-probes-{start,end}.txt, damon-stats.txt (one line: the
#   scheme's stats and the probe counts), agent.log, memhog-*.log
set -eu
. "$VMTEST_LIB"

ARM=${PEERS_ARM:-none}
SECONDS_RUN=${PEERS_SECONDS:-300}
SAMPLE_S=${PEERS_SAMPLE_S:-5}
TLB=${PEERS_TLB_FLUSH_MS:-50}
# DAMON_RECLAIM: pages unaccessed for 20 s are paged out, up to 128 MiB per second and no limit on
# kdamond's CPU time (quota_ms 0: under emulation a 100 ms/s cap let it page out only about 1 MiB/s,
# see bench/README.md); watermarks always on (the defaults deactivate it while more than 40 % of
# memory is free).
DAMON_MIN_AGE_US=${PEERS_DAMON_MIN_AGE_US:-20000000}
DAMON_QUOTA_MS=${PEERS_DAMON_QUOTA_MS:-0}
DAMON_QUOTA_SZ=${PEERS_DAMON_QUOTA_SZ:-134217728}
DAMON_WMARKS=${PEERS_DAMON_WMARKS:-1000,999,0}
DAMON_MAX_NR_REGIONS=${PEERS_DAMON_MAX_NR_REGIONS:-1000}
# PEERS_DAMON_TRACE=1: the damon:damon_aggregated tracepoint (every region's nr_accesses and age per
# aggregation interval) for the last 2 s of the run, into damon-trace.txt.
DAMON_AGGR_US=100000 # DAMON_RECLAIM's default aggregation interval (5 ms sampling, 1 s ops update)

# DAMON probes (both damon arms): kprobes on the DAMON functions that show whether the scheme
# exists and is applied, counted in kprobe_profile (hits), and a hist trigger that counts the
# damon:damos_before_apply tracepoint (fired for every region just before the action). On the
# module's after-aggregation callback the probe also fetches, through BTF, ctx->schemes.next and
# its ->next: equal means the running context's scheme list is empty.
T=/sys/kernel/tracing
DPROBES="damon_commit_ctx damon_new_scheme damon_destroy_scheme damon_pa_scheme_score damon_pa_apply_scheme"
damon_probes_on() {
	[ -d "$T/events" ] || mount -t tracefs tracefs "$T" 2>/dev/null || return 0
	for _f in $DPROBES; do
		grep -q " [tT] $_f\$" /proc/kallsyms && echo "p:damonprobe/$_f $_f" >>"$T/kprobe_events"
	done
	if grep -q ' [tT] damon_reclaim_after_aggregation$' /proc/kallsyms; then
		echo 'p:damonprobe/reclaim_after_aggregation damon_reclaim_after_aggregation next=c->schemes.next:x64 next_next=c->schemes.next->next:x64' \
			>>"$T/kprobe_events" 2>/dev/null ||
			echo 'p:damonprobe/reclaim_after_aggregation damon_reclaim_after_aggregation' >>"$T/kprobe_events"
	fi
	echo 1 >"$T/events/damonprobe/enable" 2>/dev/null || true
	echo 'hist:keys=context_idx' >"$T/events/damon/damos_before_apply/trigger" 2>/dev/null || true
	echo 1 >"$T/tracing_on" 2>/dev/null || true
}
# damon_probes_snap FILE: kprobe hits, the tracepoint's count, the last after-aggregation record.
damon_probes_snap() {
	{
		cat "$T/kprobe_profile" 2>/dev/null
		echo "damos_before_apply $(sed -n 's/^ *Hits: *//p' "$T/events/damon/damos_before_apply/hist" 2>/dev/null | tail -1)"
		grep 'reclaim_after_aggregation:' "$T/trace" 2>/dev/null | tail -1
	} >"$1"
}
# hits FILE NAME: a probe's hit count in a damon_probes_snap file.
hits() { awk -v n="$2" '$1 == "damonprobe/" n || $1 == n { print $2; f = 1 } END { if (!f) print "-" }' "$1"; }
# damon_schemes FILE: "empty" or "1+" from the after-aggregation record's list pointers, or "?".
damon_schemes() {
	sed -n 's/.* next=\(0x[0-9a-f]*\) next_next=\(0x[0-9a-f]*\).*/\1 \2/p' "$1" |
		awk '{ print ($1 == $2 ? "empty" : "1+"); f = 1 } END { if (!f) print "?" }'
}

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
		damon_probes_on
		echo Y >"$P/enabled" || status="failed:enable"
		sleep 2
		(cd "$P" && grep -e . -- *) >"$RESULTS/damon-params-start.txt" 2>&1 || true
		damon_probes_snap "$RESULTS/damon-probes-start.txt"
		agent_pid=$(cat "$P/kdamond_pid")
		[ "$agent_pid" -gt 0 ] 2>/dev/null || { status="failed:no-kdamond"; agent_pid=; }
	fi
	;;
damon-sysfs)
	# The scheme DAMON_RECLAIM builds (mm/damon/reclaim.c, damon_reclaim_new_scheme()), on the
	# region it picks (the largest System RAM resource), with its monitoring intervals, quota
	# weights (size 0, access rate 0, age 1) and the same PEERS_DAMON_* values.
	A=/sys/kernel/mm/damon/admin/kdamonds
	if [ ! -d "$A" ]; then
		status="failed:no-damon-sysfs"
	else
		ram=$(grep ' : System RAM$' /proc/iomem | grep -v '^ ' | while IFS='- ' read -r _s _e _; do
			echo "$((0x$_e - 0x$_s + 1)) $((0x$_s)) $((0x$_e + 1))"
		done | sort -n | tail -1)
		read -r _ ram_start ram_end <<EOF
${ram:-0 0 0}
EOF
		echo 1 >"$A/nr_kdamonds"
		K=$A/0
		echo 1 >"$K/contexts/nr_contexts"
		C=$K/contexts/0
		echo paddr >"$C/operations"
		echo 5000 >"$C/monitoring_attrs/intervals/sample_us"
		echo "$DAMON_AGGR_US" >"$C/monitoring_attrs/intervals/aggr_us"
		echo 1000000 >"$C/monitoring_attrs/intervals/update_us"
		echo 10 >"$C/monitoring_attrs/nr_regions/min"
		echo "$DAMON_MAX_NR_REGIONS" >"$C/monitoring_attrs/nr_regions/max"
		echo 1 >"$C/targets/nr_targets"
		echo 1 >"$C/targets/0/regions/nr_regions"
		echo "$ram_start" >"$C/targets/0/regions/0/start"
		echo "$ram_end" >"$C/targets/0/regions/0/end"
		echo 1 >"$C/schemes/nr_schemes"
		S=$C/schemes/0
		echo pageout >"$S/action"
		echo 0 >"$S/apply_interval_us"
		echo 4096 >"$S/access_pattern/sz/min"
		echo 18446744073709551615 >"$S/access_pattern/sz/max"
		echo 0 >"$S/access_pattern/nr_accesses/min"
		echo 0 >"$S/access_pattern/nr_accesses/max"
		echo $((DAMON_MIN_AGE_US / DAMON_AGGR_US)) >"$S/access_pattern/age/min"
		echo 4294967295 >"$S/access_pattern/age/max"
		echo "$DAMON_QUOTA_MS" >"$S/quotas/ms"
		echo "$DAMON_QUOTA_SZ" >"$S/quotas/bytes"
		echo 1000 >"$S/quotas/reset_interval_ms"
		echo 0 >"$S/quotas/weights/sz_permil"
		echo 0 >"$S/quotas/weights/nr_accesses_permil"
		echo 1 >"$S/quotas/weights/age_permil"
		echo free_mem_rate >"$S/watermarks/metric"
		echo 5000000 >"$S/watermarks/interval_us"
		echo "${DAMON_WMARKS%%,*}" >"$S/watermarks/high"
		_r=${DAMON_WMARKS#*,}
		echo "${_r%%,*}" >"$S/watermarks/mid"
		echo "${_r#*,}" >"$S/watermarks/low"
		damon_probes_on
		echo on >"$K/state" || status="failed:damon-sysfs-on"
		sleep 2
		{
			echo "region=$ram_start-$ram_end"
			for f in $(find "$C" -type f | sort); do echo "${f#"$C"/}:$(cat "$f" 2>/dev/null)"; done
		} >"$RESULTS/damon-params-start.txt" 2>&1 || true
		damon_probes_snap "$RESULTS/damon-probes-start.txt"
		agent_pid=$(cat "$K/pid")
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
damon | damon-sysfs)
	damon_probes_snap "$RESULTS/damon-probes-end.txt"
	if [ "$ARM" = damon ]; then
		P=/sys/module/damon_reclaim/parameters
		(cd "$P" && grep -e . -- *) >"$RESULTS/damon-params-end.txt" 2>&1 || true
		pv() { cat "$P/$1" 2>/dev/null || echo -; }
		st="kdamond_pid=$(pv kdamond_pid) schemes=$(damon_schemes "$RESULTS/damon-probes-start.txt")"
		st="$st tried=$(pv nr_reclaim_tried_regions) tried_bytes=$(pv bytes_reclaim_tried_regions)"
		st="$st reclaimed=$(pv nr_reclaimed_regions) reclaimed_bytes=$(pv bytes_reclaimed_regions)"
		st="$st quota_exceeds=$(pv nr_quota_exceeds)"
	else
		echo update_schemes_stats >"$K/state" 2>/dev/null || true
		sv() { cat "$S/stats/$1" 2>/dev/null || echo -; }
		st="kdamond_pid=$(cat "$K/pid" 2>/dev/null || echo -) schemes=$(cat "$C/schemes/nr_schemes")"
		st="$st tried=$(sv nr_tried) tried_bytes=$(sv sz_tried) reclaimed=$(sv nr_applied)"
		st="$st reclaimed_bytes=$(sv sz_applied) quota_exceeds=$(sv qt_exceeds)"
	fi
	# At enable: how often the context was committed and schemes made and destroyed; over the run:
	# regions scored for the quota, regions the action was applied to, damos_before_apply events.
	f0=$RESULTS/damon-probes-start.txt
	f1=$RESULTS/damon-probes-end.txt
	st="$st enable:commit_ctx=$(hits "$f0" damon_commit_ctx),new_scheme=$(hits "$f0" damon_new_scheme)"
	st="$st,destroy_scheme=$(hits "$f0" damon_destroy_scheme) run:scored=$(hits "$f1" damon_pa_scheme_score)"
	st="$st,applied=$(hits "$f1" damon_pa_apply_scheme),before_apply=$(hits "$f1" damos_before_apply)"
	echo "$st" >"$RESULTS/damon-stats.txt"
	echo "damon: $st"
	if [ "${PEERS_DAMON_TRACE:-0}" = 1 ]; then
		echo 0 >"$T/events/damonprobe/enable" 2>/dev/null || true
		echo >"$T/trace" || true
		if echo 1 >"$T/events/damon/damon_aggregated/enable"; then
			sleep 2
			echo 0 >"$T/events/damon/damon_aggregated/enable" || true
			cat "$T/trace" >"$RESULTS/damon-trace.txt" || true
		fi
	fi
	if [ "$ARM" = damon ]; then
		echo N >/sys/module/damon_reclaim/parameters/enabled || true
	else
		echo off >"$K/state" || true
	fi
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
