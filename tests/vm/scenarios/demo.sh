#!/bin/sh
# The demo (make demo): two workloads in their own cgroups, run for DEMO_SECONDS first without and
# then with reclaimd using the shipped example config (config/reclaimd.json, as
# /etc/reclaimd/reclaimd.json). Each phase starts fresh workloads. Writes $RESULTS/demo.tsv (one
# row per phase and cgroup), $RESULTS/samples-<phase>.tsv (a time series, below) and the agent's
# log; tests/vm/demo.sh prints the table and plots the samples on the host (bench/plot-demo.sh).
#   web:   300 MiB anonymous memory, 20 % hot   (system.slice/web.service)
#   batch: 400 MiB anonymous memory,  5 % hot   (system.slice/batch.service)
# Each workload touches its hot set open-loop at DEMO_RATE accesses per second (a service serving a
# steady request rate): ops/s then says whether it kept up, and p99 what each access cost. A
# closed-loop "as fast as possible" load would mostly measure how much host CPU the emulated VM got.
set -eu
. "$VMTEST_LIB"

SECONDS_RUN=${DEMO_SECONDS:-150}
RATE=${DEMO_RATE:-5000}
# Software emulation keeps TLB entries far longer than hardware, which hides accesses from reclaim
# (tests/vm/workloads/memhog.c, --tlb-flush-ms); 0 turns the correction off.
TLB_FLUSH_MS=${DEMO_TLB_FLUSH_MS:-50}

some_total() { sed -n 's/^some .*total=\([0-9]*\)$/\1/p' "$1/memory.pressure"; }
# sample_loop T0: once a second, a row per cgroup: seconds since T0, cgroup, memory.current
# (bytes), memory.pressure "some" total (us), memory.stat pgsteal (pages reclaimed from the cgroup,
# by the agent or the kernel), memory.swap.current (bytes). One awk per cgroup and sample.
sample_loop() {
	while :; do
		_now=$(uptime_s)
		for _w in web batch; do
			_d=$CGROOT/system.slice/$_w.service
			awk -v t="$_now" -v t0="$1" -v w="$_w" '
				FILENAME ~ /current$/ { v[FILENAME] = $1 }
				FILENAME ~ /pressure$/ && $1 == "some" { sub(/^total=/, "", $5); psi = $5 }
				FILENAME ~ /stat$/ && $1 == "pgsteal" { steal = $2 }
				END {
					if (psi == "" || steal == "") exit
					printf "%.1f\t%s\t%s\t%s\t%s\t%s\n", t - t0, w, v[ARGV[1]], psi, steal, v[ARGV[4]]
				}' "$_d/memory.current" "$_d/memory.pressure" "$_d/memory.stat" "$_d/memory.swap.current" \
				2>/dev/null || true
		done
		sleep 1
	done
}
refaults() { echo $(($(memstat "$1" workingset_refault_anon) + $(memstat "$1" workingset_refault_file))); }

printf 'phase\tcgroup\tcurrent_start\tcurrent_end\treclaimed\tswap_end\tzswap_end\tpsi_some_pct\trefaults\tops_per_s\tp99_us\n' \
	>"$RESULTS/demo.tsv"

run_phase() { # PHASE (without|with)
	phase=$1
	mkdir -p "$CGROOT/system.slice"
	echo "+memory" >"$CGROOT/system.slice/cgroup.subtree_control"
	for w in web batch; do mkdir -p "$CGROOT/system.slice/$w.service"; done
	web=$CGROOT/system.slice/web.service
	batch=$CGROOT/system.slice/batch.service
	rm -f /tmp/*.ready
	cg_run "$web" memhog --anon 300M --hot-pct 20 --rate "$RATE" --duration 0 \
		--tlb-flush-ms "$TLB_FLUSH_MS" --report-interval 10 --ready-file /tmp/web.ready >"$RESULTS/memhog-web-$phase.log" 2>&1
	web_pid=$!
	cg_run "$batch" memhog --anon 400M --hot-pct 5 --rate "$RATE" --duration 0 \
		--tlb-flush-ms "$TLB_FLUSH_MS" --report-interval 10 --ready-file /tmp/batch.ready >"$RESULTS/memhog-batch-$phase.log" 2>&1
	batch_pid=$!
	wait_for_file /tmp/web.ready 120
	wait_for_file /tmp/batch.ready 120
	for w in web batch; do
		eval "${w}_cur0=\$(cat \$$w/memory.current) ${w}_psi0=\$(some_total \$$w) ${w}_rf0=\$(refaults \$$w)"
	done
	t0=$(uptime_s)
	printf 't\tcgroup\tcurrent\tpsi_some_us\tpgsteal\tswap\n' >"$RESULTS/samples-$phase.tsv"
	sample_loop "$t0" >>"$RESULTS/samples-$phase.tsv" &
	sample_pid=$!
	# At debug level: what each workload had reclaimed is summed from the job lines (DEBUG).
	# DEMO_METRICS_LISTEN (tests/vm/demo.sh, with run.sh --hostfwd): the agent also serves
	# /metrics there, for the host's Prometheus.
	if [ "$phase" = with ]; then
		config_debug /etc/reclaimd/reclaimd.json /tmp/reclaimd-debug.json
		if [ -n "${DEMO_METRICS_LISTEN:-}" ] && ip -4 addr show dev eth0 2>/dev/null |
			grep -q "inet ${DEMO_METRICS_LISTEN%:*}/"; then
			sed -i "1s|^{|{ \"metrics\": { \"listen\": \"$DEMO_METRICS_LISTEN\" },|" /tmp/reclaimd-debug.json
			grep -q "\"listen\": \"$DEMO_METRICS_LISTEN\"" /tmp/reclaimd-debug.json ||
				echo "demo: could not add metrics.listen to the configuration" >&2
		fi
		agent_start /tmp/reclaimd-debug.json "$RESULTS/agent.log"
	fi
	# DEMO_TRACE=1: once a second, the batch memcg's MGLRU generations and the host's reclaim
	# counters, to see where hot pages are when they get evicted.
	trace_pid=
	if [ "${DEMO_TRACE:-0}" = 1 ]; then
		( while :; do
			echo "t=$(uptime_s) $(grep -E '^(pgscan_kswapd|pgscan_direct|pgmajfault|workingset_refault_anon|pswpin|pswpout) ' /proc/vmstat | tr '\n' ' ')"
			echo "batch: $(grep -E '^(workingset_refault_anon|pgscan|pgsteal|pgmajfault) ' "$batch/memory.stat" | tr '\n' ' ')"
			awk '/^memcg/ { on = 0 } /^memcg/ && $0 ~ "system.slice/batch.service" { on = 1 } on' \
				/sys/kernel/debug/lru_gen 2>/dev/null
			sleep 1
		done ) >"$RESULTS/trace-$phase.log" 2>&1 &
		trace_pid=$!
	fi
	echo "$phase: running for $SECONDS_RUN s"
	sleep "$SECONDS_RUN"
	t1=$(uptime_s)
	for w in web batch; do
		eval "${w}_cur1=\$(cat \$$w/memory.current) ${w}_psi1=\$(some_total \$$w) ${w}_rf1=\$(refaults \$$w)"
		eval "${w}_swap=\$(cat \$$w/memory.swap.current) ${w}_zswap=\$(cat \$$w/memory.zswap.current)"
	done
	[ -z "$trace_pid" ] || kill "$trace_pid" 2>/dev/null || true
	kill "$sample_pid" 2>/dev/null || true
	wait "$sample_pid" 2>/dev/null || true
	[ "$phase" = with ] && agent_stop >/dev/null
	# The workloads run until stopped, so both cover the whole phase; SIGTERM makes them print
	# their summary.
	kill -TERM "$web_pid" "$batch_pid" 2>/dev/null || true
	wait "$web_pid" "$batch_pid" || true
	for w in web batch; do
		eval "cur0=\$${w}_cur0 cur1=\$${w}_cur1 psi0=\$${w}_psi0 psi1=\$${w}_psi1 rf0=\$${w}_rf0 rf1=\$${w}_rf1"
		eval "swap=\$${w}_swap zswap=\$${w}_zswap"
		reclaimed=0
		[ "$phase" = with ] && reclaimed=$(log_sum "$RESULTS/agent.log" "system.slice/$w.service" RECLAIMED_BYTES)
		psi=$(awk -v a="$psi0" -v b="$psi1" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.3f", (b - a) / ((t1 - t0) * 1e6) * 100 }')
		# The workload's summary over its whole run: ops/s and p99 access latency.
		sum=$(grep 'memhog summary' "$RESULTS/memhog-$w-$phase.log" | tail -1)
		ops=$(echo "$sum" | sed -n 's/.*ops_per_s=\([0-9.]*\).*/\1/p')
		p99=$(echo "$sum" | sed -n 's/.*p99_us=\([0-9.]*\).*/\1/p')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$phase" "$w" "$cur0" "$cur1" "$reclaimed" \
			"$swap" "$zswap" "$psi" "$((rf1 - rf0))" "${ops:-0}" "${p99:-0}" >>"$RESULTS/demo.tsv"
	done
	rmdir "$web" "$batch"
}

run_phase without
run_phase with
cat "$RESULTS/demo.tsv"
