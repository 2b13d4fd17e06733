#!/bin/sh
# vm-options: --cpus-per-node 1 --node-mem 512M --data-size 768M
# VM test of the kernel feature table (docs/kernels.md "Kernel features") and of what new kernels
# give.   features-agree      the agent's table (one "kernel feature X ... is absent" line per
# absent                       feature, probed with empty memory.reclaim requests since this is no
# dry                       run) says absent exactly for the features the guest's own probe
#                       (have_feature, tests/vm/guest/lib.sh) finds missing.
#   node-reclaim        (Linux 6.17+, SKIP before) configs/features-node.json: headroom 200M per
#                       node, and no managed cgroup (its only psi rule matches nothing), so every
#                       deficit is uncovered. Page cache read by an unmanaged cgroup takes free
#                       memory below the goal; the agent must write nodeN/reclaim (its headroom
#                       line says "asked of node<N>/reclaim", status counts the writes) and the
#                       kernel's pgsteal_proactive must grow.
#   swappiness-max      (swappiness= needed, SKIP without) configs/features-max.json: a rule with
#                       "swappiness": "max" on a cgroup with anonymous memory and swap room (a
#                       swap file on /data): its reclaim lines say swappiness=max where the
#                       kernel takes it (6.16+), swappiness=200 where it does not.
set -u
. "$VMTEST_LIB"

MiB=1048576
FEATURES="swappiness swappiness_max lru_gen lru_gen_debugfs zswap_writeback zswap_shrinker
zswap_zpool node_reclaim proactive_counters numa_stat cgroup_pressure"

# ---- the table agrees with the guest's probe -------------------------------------------------
LOG=$RESULTS/agent-features.log
agent_start /etc/reclaimd/features-node.json "$LOG"
log_wait "$LOG" 'started:' 30 >/dev/null || fail features-agree "the agent did not start"
guest="" mismatch=""
for f in $FEATURES; do
	if have_feature "$f"; then g=present; else g=absent; fi
	if grep -q "kernel feature $f (" "$LOG"; then a=absent; else a=present; fi
	guest="$guest $f=$g"
	[ "$a" = "$g" ] || mismatch="$mismatch $f(agent $a, guest $g)"
done
echo "Linux $(uname -r):$guest"
if [ -z "$mismatch" ]; then
	pass features-agree "Linux $(uname -r):$guest"
else
	fail features-agree "differ:$mismatch"
fi

# ---- nodeN/reclaim covers what no managed cgroup can -----------------------------------------
if need_feature node-reclaim node-reclaim; then
	dd if=/dev/zero of=/data/fill bs=1M count=700 2>/dev/null && sync
	echo 3 >/proc/sys/vm/drop_caches
	before=$(vmstat_sum pgsteal_proactive)
	cg=$(cg_create feat-reader)
	# Page cache in a cgroup the agent does not manage: only the kernel's per-node reclaim can
	# take it back for the headroom.
	cg_run "$cg" sh -c 'for i in 1 2 3; do cat /data/fill >/dev/null; sleep 1; done'
	reader=$!
	line=$(log_wait "$LOG" 'asked of node[0-9]*/reclaim' 60)
	wait "$reader" 2>/dev/null
	sleep 2
	after=$(vmstat_sum pgsteal_proactive)
	reclaimctl --socket /run/reclaimd-features.sock --json status >"$RESULTS/status.json" 2>&1
	reqs=$(sed -n '/"headroom_node_reclaim"/,/}/s/.*"requests": \([0-9]*\).*/\1/p' "$RESULTS/status.json")
	done_n=$(sed -n '/"headroom_node_reclaim"/,/}/s/.*"done": \([0-9]*\).*/\1/p' "$RESULTS/status.json")
	echo "node reclaim: ${reqs:-?} writes, ${done_n:-?} done; pgsteal_proactive $before -> $after"
	if [ -n "$line" ] && [ "${reqs:-0}" -gt 0 ] && [ "$after" -gt "$before" ]; then
		pass node-reclaim "${reqs} writes (${done_n} done), pgsteal_proactive +$((after - before)) pages; $(echo "$line" | log_message)"
	else
		fail node-reclaim "line: '${line:-none}', writes ${reqs:-none}, pgsteal_proactive $before -> $after"
	fi
	rm -f /data/fill
fi
echo "agent stopped in $(agent_stop) s"

# ---- swappiness "max" where the kernel has it, 200 where not ---------------------------------
if need_feature swappiness-max reclaim-swappiness; then
	if have_feature swappiness_max; then want=max; else want=200; fi
	dd if=/dev/zero of=/data/swap bs=1M count=192 2>/dev/null && chmod 600 /data/swap &&
		mkswap /data/swap >/dev/null && swapon /data/swap || echo "no swap file: $(cat /proc/swaps)"
	cg=$(cg_create feat-max)
	cg_run "$cg" memhog --anon 96M --hot-pct 0 --rate 10 --duration 0 --report-interval 30 \
		--ready-file /tmp/max.ready >"$RESULTS/memhog-max.log" 2>&1
	hog=$!
	wait_for_file /tmp/max.ready 120 || fail swappiness-max "memhog did not get ready"
	LOG=$RESULTS/agent-max.log
	agent_start /etc/reclaimd/features-max.json "$LOG"
	line=$(log_wait "$LOG" 'feat-max: reclaim [a-z-]+ on node .*swappiness=' 90)
	echo "agent stopped in $(agent_stop) s"
	kill "$hog" 2>/dev/null
	swapoff /data/swap 2>/dev/null
	rm -f /data/swap
	case $line in
	*"swappiness=$want,"*) pass swappiness-max "rule \"max\" written as swappiness=$want: $(echo "$line" | log_message)" ;;
	*) fail swappiness-max "want swappiness=$want; line: '${line:-none}'" ;;
	esac
fi
