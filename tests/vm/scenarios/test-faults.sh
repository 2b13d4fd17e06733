#!/bin/sh
# vm-options: --zram-size 0 --swap-size 96M --data-size 128M --timeout 900
# Faults on the real kernel, each while the agent runs and reclaims (docs/operating.md "Safety"):
#   churn-1000         1,000 cgroup create/destroy cycles, a process in each, 20 alive at a time
#                      under a managed parent: the agent stays up, its fds end where they began
#                      and its RSS is flat over the second half (curve in churn.txt);
#   sighup-storm       101 SIGHUPs in well under a second, alternating a good and a bad file, three
#                      times: it ends on the last file, fds unchanged, RSS flat from storm to storm
#                      (pending SIGHUPs merge: the reloads done are counted and printed);
#   reload-storm       101 Reload calls through the status socket, alternating good and bad, twice:
#                      every call one reload, every bad file refused, the last file in force;
#   mglru-off-mid-run  /sys/kernel/mm/lru_gen/enabled switched off with mglru_aging on: one line
#                      says so, reclaim goes on through memory.reclaim; switched on: aging again;
#   debugfs-umount     an administrator's umount of /sys/kernel/debug succeeds while the agent
#                      runs (it holds no debugfs file between uses), and it carries on without;
#   zswap-disabled     zswap switched off under the agent: it stays up, does not switch it on
#                      again, and says at most one line about it;
#   swapoff-by-other   its configured swap device swapped off by someone else: reported once,
#                      not swapped on again behind the administrator's back;
#   oom-mid-reclaim    a managed cgroup OOM-killed while the agent manages and reclaims it: it goes
#                      on deciding for that cgroup (explain's decision tick moves);
#   agent-at-high      the agent's own cgroup held at its memory.high: memory.high set to its
#                      memory.current, then 300 new cgroups to manage (the agent's memory grows
#                      with each: hot files kept open, their seq_file buffers, a PSI trigger,
#                      all charged to it), so it is throttled in every run (memory.events high
#                      rises: checked, printed). It says so in one WARNING however many events
#                      come, keeps managing new cgroups while throttled, and once memory.high is
#                      back to max says it is no longer throttled (one NOTICE), manages all 300,
#                      and status shows the events;
#   swap-full          all swap full: no futile EAGAIN loop (requests that reclaim nothing back
#                      off), log lines for the cgroup per minute bounded (both printed);
#   state-enospc-*,    no change without its record: the state file on a 12 KiB tmpfs that is
#   state-erofs-*      full (ENOSPC), then remounted read-only (EROFS), under an agent that sets
#                      max_pool_percent 7 and accept_threshold_percent 80 (the administrator's:
#                      20 and 90). While the record fails neither is written (one warning, held
#                      back every tick); at the first tick after it can be saved, both are.
#                      SIGKILL after each step; after every kill each parameter is the
#                      administrator's or recorded with it, and a restart puts them back;
#                      state-enospc-shown: reclaimctl status says what is held back and why.
#                      These run first, with an agent of their own (no swap, zswap not managed).
# SIGTERM during a write is test-lifecycle's sigterm-during-reclaim, SIGKILL during zram writeback
# and zswap management test-restart's, and a kernel booted with psi=0 is test-psi-off.
set -u
. "$VMTEST_LIB"

[ -x "$AGENT" ] || { fail faults-setup "no agent in the VM"; exit 0; }
MiB=1048576
swapdev=$(awk 'NR > 1 && $1 ~ /^\/dev\/vd/ { print $1; exit }' /proc/swaps)
[ -n "$swapdev" ] || { fail faults-setup "no disk swap in /proc/swaps"; exit 0; }
echo "swap device: $swapdev"

# shellcheck disable=SC2012 # fd names are numbers
fds() { ls "/proc/$AGENT_PID/fd" 2>/dev/null | wc -l; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT_PID/status" 2>/dev/null || echo 0; }
alive() { kill -0 "$AGENT_PID" 2>/dev/null; }
ticks() { reclaimctl status 2>/dev/null | sed -n 's/^ticks: *\([0-9]*\),.*/\1/p'; }
# lines LOG PATTERN: lines of LOG matching the ERE.
lines() { grep -c -E -- "$2" "$1" 2>/dev/null || true; }

# The configuration: interval 1 s, MGLRU aging on, zswap on and managed, the disk swap arranged.
# Rules: the agent itself never; faults/marker by a rule whose name shows which file is loaded.
write_config() { # FILE MARKER_RULE
	cat >"$1" <<EOF
{
  "interval": 1,
  "log_level": "debug",
  "headroom": false,
  "mglru_aging": true,
  "defaults": { "min_bytes": "16M", "cold_age": 6, "psi_some_target_pct": 50, "chunk_bytes": "8M" },
  "swap": { "devices": [ { "path": "$swapdev", "priority": 10, "kind": "ssd" } ],
            "reprioritize": "empty-only" },
  "zswap": { "enabled": true, "compressor": "lz4", "max_pool_percent": 10, "manage": true,
             "restore_on_exit": true },
  "rules": [
    { "match": "reclaimd", "policy": "none" },
    { "match": "faults/marker", "policy": "$2" },
    { "match": "faults/*" },
    { "match": "faults/churn/*" }
  ]
}
EOF
}
write_config /tmp/faults.json psi
printf '{ "interval": 1, "rules": [ { "match": "a" } \n' >/tmp/bad.json

# ---- state-enospc, state-erofs: no change without its record ---------------------------------------
RF=/run/reclaimd-rf
RF_STATE=$RF/state.json
rf_mpp0=$(zswap_param max_pool_percent)
rf_atp0=$(zswap_param accept_threshold_percent)
rf_config() { # FILE WITH_ZSWAP(0|1)
	_zs='"manage": false'
	[ "$2" = 1 ] && _zs='"max_pool_percent": 7, "accept_threshold_percent": 80, "manage": false, "restore_on_exit": true'
	cat >"$1" <<EOF
{ "interval": 1, "log_level": "info", "headroom": false, "state_file": "$RF_STATE",
  "zswap": { $_zs }, "rules": [ { "match": "reclaimd", "policy": "none" } ] }
EOF
}
rf_config /tmp/rf.json 1
rf_config /tmp/rf-none.json 0
rf_file() { if [ -e "$RF_STATE" ]; then tr -d ' \n' <"$RF_STATE"; else echo none; fi; }
# rf_ok NAME ADMIN: parameter NAME is the administrator's ADMIN, or the state file records it
# with ADMIN as the original (so a start after a crash puts it back).
rf_ok() {
	[ "$(zswap_param "$1")" = "$2" ] ||
		rf_file | grep -q "\"key\":\"zswap/$1\",\"administrator\":\"$2\""
}
rf_values() {
	echo "max_pool_percent $(zswap_param max_pool_percent), accept_threshold_percent $(zswap_param accept_threshold_percent), state file: $(rf_file)"
}
# rf_check NAME: after a SIGKILL, both parameters are the administrator's or recorded with it.
rf_check() {
	if rf_ok max_pool_percent 20 && rf_ok accept_threshold_percent 90; then
		pass "$1" "$(rf_values)"
	else
		fail "$1" "changed without a record: $(rf_values)"
	fi
}
rf_kill() {
	kill -9 "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID" 2>/dev/null
}
# rf_held NAME LOG ERRNO_TEXT: the agent's record failed with ERRNO_TEXT, and for 4 more ticks
# nothing was written, with one warning in all.
rf_held() {
	if ! log_wait "$2" "cannot record zswap/.*: $3; not changed" 20 >/dev/null; then
		fail "$1" "no held-back warning ($3): $(grep -E 'state file|zswap' "$2" | tail -n 3 | log_message)"
		return 0
	fi
	sleep 4
	_w=$(lines "$2" 'REASON=held-back')
	_a=$(lines "$2" 'zswap: (max_pool_percent|accept_threshold_percent) [0-9]+ -> ')
	if [ "$(zswap_param max_pool_percent)" = 20 ] && [ "$(zswap_param accept_threshold_percent)" = 90 ] &&
		[ "$_w" = 1 ] && [ "$_a" = 0 ] && [ ! -e "$RF_STATE" ]; then
		pass "$1" "held back 4+ ticks, $_w warning: $(grep -m1 'REASON=held-back' "$2" | log_message)"
	else
		fail "$1" "$_w warnings, $_a applied lines; $(rf_values)"
	fi
}
# rf_goes_ahead NAME LOG: once the record can be saved, a later tick records and writes both.
rf_goes_ahead() {
	if log_wait "$2" 'zswap: accept_threshold_percent 90 -> 80' 10 >/dev/null &&
		log_wait "$2" 'zswap: max_pool_percent 20 -> 7' 10 >/dev/null &&
		[ "$(zswap_param max_pool_percent)" = 7 ] &&
		rf_file | grep -q '"key":"zswap/max_pool_percent","administrator":"20","agent":"7"'; then
		pass "$1" "recorded, then written: $(grep -m1 'REASON=recorded' "$2" | log_message)"
	else
		fail "$1" "$(rf_values); $(grep -E 'state file|zswap' "$2" | tail -n 3 | log_message)"
	fi
}
rf_run() {
	mkdir -p "$RF"
	# Three pages: the lock file (the holder's pid, written at a start with room), the state
	# file and its temporary copy, written before the rename.
	if ! mount -t tmpfs -o size=12k,mode=0755 tmpfs "$RF"; then
		fail state-setup "cannot mount a tmpfs on $RF"
		return 0
	fi
	zswap_param max_pool_percent 20
	zswap_param accept_threshold_percent 90
	# ENOSPC: the tmpfs full (both pages taken).
	dd if=/dev/zero of="$RF/fill" bs=4096 count=4 2>/dev/null
	# 1. Started on the full file system: held back. SIGKILL.
	agent_start /tmp/rf.json "$RESULTS/agent-rf-1.log"
	rf_held state-enospc-held "$RESULTS/agent-rf-1.log" 'No space left on device'
	# What an operator sees: reclaimctl status's state: line.
	_st=$(reclaimctl status 2>&1 | grep '^state:')
	case $_st in
	*"zswap: "[1-9]*"held back"*"No space left on device"*"failing now"*)
		pass state-enospc-shown "$_st" ;;
	*) fail state-enospc-shown "reclaimctl status: ${_st:-no state: line}" ;;
	esac
	rf_kill
	rf_check state-enospc-kill-held
	# 2. Started again, still full; room made while it runs: a later tick records and writes.
	agent_start /tmp/rf.json "$RESULTS/agent-rf-2.log"
	log_wait "$RESULTS/agent-rf-2.log" 'REASON=held-back' 20 >/dev/null
	sleep 2
	rm -f "$RF/fill"
	rf_goes_ahead state-enospc-goes-ahead "$RESULTS/agent-rf-2.log"
	rf_kill
	rf_check state-enospc-kill-applied
	# 3. A restart without the zswap settings puts the administrator's values back at start.
	agent_start /tmp/rf-none.json "$RESULTS/agent-rf-3.log"
	log_wait "$RESULTS/agent-rf-3.log" 'started: cgroup root' 20 >/dev/null
	sleep 1
	check state-enospc-restart-restores [ "$(zswap_param max_pool_percent).$(zswap_param accept_threshold_percent)" = 20.90 ]
	agent_stop >/dev/null
	check state-enospc-stop-removes [ ! -e "$RF_STATE" ]

	# EROFS: the same tmpfs remounted read-only.
	mount -o remount,ro "$RF"
	# 4. Started on it: held back. SIGKILL.
	agent_start /tmp/rf.json "$RESULTS/agent-rf-4.log"
	rf_held state-erofs-held "$RESULTS/agent-rf-4.log" 'Read-only file system'
	rf_kill
	rf_check state-erofs-kill-held
	# 5. Started again; read-write while it runs: recorded and written; read-only again, SIGKILL.
	agent_start /tmp/rf.json "$RESULTS/agent-rf-5.log"
	log_wait "$RESULTS/agent-rf-5.log" 'REASON=held-back' 20 >/dev/null
	mount -o remount,rw "$RF"
	rf_goes_ahead state-erofs-goes-ahead "$RESULTS/agent-rf-5.log"
	mount -o remount,ro "$RF"
	rf_kill
	rf_check state-erofs-kill-applied
	# 6. Restarted on the read-only file system: it adopts the records, and its clean stop puts
	# the administrator's values back though it cannot drop the records.
	agent_start /tmp/rf.json "$RESULTS/agent-rf-6.log"
	log_wait "$RESULTS/agent-rf-6.log" 'started: cgroup root' 20 >/dev/null
	sleep 2
	agent_stop >/dev/null
	check state-erofs-stop-restores [ "$(zswap_param max_pool_percent).$(zswap_param accept_threshold_percent)" = 20.90 ]
	# 7. Read-write again: the next start finds the stale records, leaves 20 and 90 as they
	# are, and its stop removes the file.
	mount -o remount,rw "$RF"
	agent_start /tmp/rf-none.json "$RESULTS/agent-rf-7.log"
	log_wait "$RESULTS/agent-rf-7.log" 'started: cgroup root' 20 >/dev/null
	sleep 1
	agent_stop >/dev/null
	if [ "$(zswap_param max_pool_percent).$(zswap_param accept_threshold_percent)" = 20.90 ] &&
		[ ! -e "$RF_STATE" ]; then
		pass state-erofs-final "the administrator's values, the state file gone"
	else
		fail state-erofs-final "$(rf_values)"
	fi
	grep -h -E 'state file|as the last run|put back|restored|changed since' "$RESULTS"/agent-rf-*.log |
		log_message | sed 's/^/  /'
	umount "$RF"
	zswap_param max_pool_percent "$rf_mpp0"
	zswap_param accept_threshold_percent "$rf_atp0"
}
if [ -d /sys/module/zswap/parameters ]; then
	rf_run
else
	fail state-setup "no zswap in this kernel"
fi

cg=$(cg_create faults)
echo "+memory" >"$cg/cgroup.subtree_control"
mkdir -p "$cg/work" "$cg/marker" "$cg/churn" "$cg/oom" "$cg/full"
echo "+memory" >"$cg/churn/cgroup.subtree_control"
cg_run "$cg/work" memhog --anon 64M --hot-pct 5 --rate 1000 --duration 0 --report-interval 30 \
	--ready-file /tmp/work.ready >"$RESULTS/memhog-work.log" 2>&1
work_pid=$!
wait_for_file /tmp/work.ready 120 || fail faults-setup "memhog did not start"
cp /tmp/faults.json /tmp/live.json
agent_start /tmp/live.json "$RESULTS/agent.log"
log_wait "$RESULTS/agent.log" "CGROUP=faults/work .*REASON=reclaim" 90 >/dev/null ||
	echo "note: no reclaim of faults/work within 90 s"

# ---- churn-1000 -----------------------------------------------------------------------------------
sleep 2
fd0=$(fds)
rss0=$(rss_kib)
echo "# cycle fds rss_kib" >"$RESULTS/churn.txt"
echo "0 $fd0 $rss0" >>"$RESULTS/churn.txt"
t0=$(uptime_s)
i=0
p=
rss_half=
while [ $i -lt 1000 ]; do
	d=$cg/churn/c$i
	mkdir "$d"
	(echo 0 >"$d/cgroup.procs" && exec sleep 600) &
	eval "pid_$i=$!"
	if [ $i -ge 20 ]; then
		j=$((i - 20))
		eval "p=\$pid_$j"
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		n=0
		until rmdir "$cg/churn/c$j" 2>/dev/null; do
			n=$((n + 1)); [ $n -gt 100 ] && { echo "cannot rmdir c$j"; break; }; sleep 0.02
		done
	fi
	i=$((i + 1))
	if [ $((i % 100)) -eq 0 ]; then
		_r=$(rss_kib)
		echo "$i $(fds) $_r" >>"$RESULTS/churn.txt"
		[ $i -eq 500 ] && rss500=$_r
		[ $i -ge 500 ] && rss_half="$rss_half $_r"
	fi
done
j=$((i - 20))
while [ $j -lt $i ]; do
	eval "p=\$pid_$j"
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	rmdir "$cg/churn/c$j" 2>/dev/null || { sleep 0.1; rmdir "$cg/churn/c$j" 2>/dev/null; }
	j=$((j + 1))
done
churn_s=$(fsub "$(uptime_s)" "$t0")
sleep 4 # a few ticks with the churn over
fd1=$(fds)
rss1=$(rss_kib)
echo "end $fd1 $rss1" >>"$RESULTS/churn.txt"
rss_half="$rss_half $rss1"
# RSS steps of more than 32 KiB between samples 100 cycles apart over the second half (cycle 500
# to the end): a leak of a third of a KiB per cycle or more grows every step; the allocator
# grows in one step now and then (a new arena region: 420 KiB once at cycle 700 on 6.1).
rss_steps=$(echo "$rss_half" | awk '{ n = 0; for (i = 2; i <= NF; i++) if ($i - $(i - 1) > 32) n++; print n }')
cat "$RESULTS/churn.txt"
seen=$(grep -c 'faults/churn/c[0-9]*: managed by rule' "$RESULTS/agent.log" || true)
left=$(find "$cg/churn" -mindepth 1 -type d | wc -l)
# fds: jobs in flight hold a cgroup directory and lru_gen each for their duration, so the count
# moves by a few from tick to tick; a leak of one per cycle would be hundreds. RSS: at most one
# step of growth over the six intervals of the second half, and at most 1 MiB in all (a leak of
# 1 KiB per cgroup would grow every step, 500 KiB in all).
if alive && [ "$fd1" -le $((fd0 + 4)) ] && [ "$rss_steps" -le 1 ] && [ $((rss1 - rss500)) -le 1024 ] &&
	[ "$seen" -ge 100 ] && [ "$left" -eq 0 ]; then
	pass churn-1000 "1000 cycles in $churn_s s, $seen cgroups managed; fds $fd0 -> $fd1; RSS $rss0 -> $rss500 (cycle 500) -> $rss1 KiB, $rss_steps step(s) of growth over the second half"
else
	fail churn-1000 "alive=$(alive && echo y || echo n) fds $fd0 -> $fd1, RSS $rss0 -> $rss500 (cycle 500) -> $rss1 KiB ($rss_steps steps of growth, samples$rss_half), $seen managed, $left left"
fi

# ---- sighup-storm ---------------------------------------------------------------------------------
# Written with shell builtins (no fork per step), so 100 signals take about a second even here.
good=$(cat /tmp/faults.json)
bad=$(cat /tmp/bad.json)
storm() { # FINAL_MARKER_POLICY
	write_config /tmp/final.json "$1"
	final=$(cat /tmp/final.json)
	_t0=$(uptime_s)
	_k=0
	while [ $_k -lt 50 ]; do
		echo "$good" >/tmp/live.json
		kill -HUP "$AGENT_PID"
		echo "$bad" >/tmp/live.json
		kill -HUP "$AGENT_PID"
		_k=$((_k + 1))
	done
	echo "$final" >/tmp/live.json
	kill -HUP "$AGENT_PID"
	storm_s=$(fsub "$(uptime_s)" "$_t0")
	sleep 4
}
# reloads LOG: reloads done or refused so far.
reloads() { grep -c -E 'configuration reloaded from|configuration not reloaded' "$RESULTS/agent.log" || true; }
fdh0=$(fds)
r0=$(reloads)
storm none
rssh1=$(rss_kib)
storm psi
rssh2=$(rss_kib)
storm none
fdh1=$(fds)
rssh3=$(rss_kib)
r1=$(reloads)
explain=$(reclaimctl explain faults/marker 2>&1 | tr '\n' ' ')
echo "storm: $((r1 - r0)) reloads for 303 SIGHUPs, fds $fdh0 -> $fdh1, RSS $rssh1 -> $rssh2 -> $rssh3 KiB; explain: $explain"
# SIGHUPs that arrive while one is pending are one signal: the count of reloads is printed, and
# the end state must be the last file's. fds: as for the churn.
if alive && [ "$fdh1" -le $((fdh0 + 4)) ] && [ $((rssh3 - rssh1)) -le 128 ] && [ $((r1 - r0)) -ge 3 ] &&
	echo "$explain" | grep -q 'rules\[1\] "faults/marker".*policy none: excluded'; then
	pass sighup-storm "3 storms of 101 SIGHUPs (the last in $storm_s s), $((r1 - r0)) reloads: ends on the last file (faults/marker: policy none), fds $fdh0 -> $fdh1, RSS $rssh1 -> $rssh3 KiB"
else
	fail sighup-storm "alive=$(alive && echo y || echo n) $((r1 - r0)) reloads, fds $fdh0 -> $fdh1, RSS $rssh1 -> $rssh2 -> $rssh3 KiB; explain: $explain"
fi

# ---- reload-storm: 100 Reload calls through the status socket, each one a reload ------------------
rstorm() { # FINAL_MARKER_POLICY: 50 good and 50 bad files, then the final one
	write_config /tmp/final.json "$1"
	final=$(cat /tmp/final.json)
	_t0=$(uptime_s)
	_k=0
	while [ $_k -lt 50 ]; do
		echo "$good" >/tmp/live.json
		reclaimctl reload >/dev/null 2>&1 || _bad=$((_bad + 1000))
		echo "$bad" >/tmp/live.json
		reclaimctl reload >/dev/null 2>&1 || _bad=$((_bad + 1))
		_k=$((_k + 1))
	done
	echo "$final" >/tmp/live.json
	reclaimctl reload >/dev/null 2>&1 || _bad=$((_bad + 1000))
	rstorm_s=$(fsub "$(uptime_s)" "$_t0")
}
r0=$(reloads)
fdr0=$(fds)
_bad=0
rstorm psi
rssr1=$(rss_kib)
rstorm none
fdr1=$(fds)
rssr2=$(rss_kib)
r1=$(reloads)
explain=$(reclaimctl explain faults/marker 2>&1 | tr '\n' ' ')
echo "reload storm: $((r1 - r0)) reloads in 2 x $rstorm_s s, refused as expected: $_bad (100 wanted), fds $fdr0 -> $fdr1, RSS $rssr1 -> $rssr2 KiB"
# Each call is answered after its reload: 202 of them, the 100 bad files refused (reclaimctl exit
# 7); a good file refused would add 1000.
if alive && [ $((r1 - r0)) -eq 202 ] && [ "$_bad" -eq 100 ] && [ "$fdr1" -le $((fdr0 + 4)) ] &&
	[ $((rssr2 - rssr1)) -le 128 ] && echo "$explain" | grep -q 'rules\[1\] "faults/marker".*policy none: excluded'; then
	pass reload-storm "2 x 101 Reload calls ($rstorm_s s for the last 101), every bad file refused, ends on the last file; fds $fdr0 -> $fdr1, RSS $rssr1 -> $rssr2 KiB"
else
	fail reload-storm "alive=$(alive && echo y || echo n) $((r1 - r0)) reloads (202 wanted), bad-call count $_bad (100 wanted), fds $fdr0 -> $fdr1, RSS $rssr1 -> $rssr2 KiB; explain: $explain"
fi
echo "$good" >/tmp/live.json
kill -HUP "$AGENT_PID"
sleep 2

# ---- mglru-off-mid-run ----------------------------------------------------------------------------
# wait_count PATTERN N: waits up to 10 s until the agent log has N lines matching PATTERN.
wait_count() {
	_w=0
	until [ "$(lines "$RESULTS/agent.log" "$1")" -ge "$2" ]; do
		_w=$((_w + 1)); [ $_w -gt 100 ] && return 1; sleep 0.1
	done
}
mglru_run() {
	need_feature mglru-off-mid-run lru-gen lru-gen-debugfs || return 0
	log_wait "$RESULTS/agent.log" "MGLRU aging on: each managed memcg" 10 >/dev/null ||
		{ fail mglru-off-mid-run "the agent did not start MGLRU aging"; return 0; }
	was=$(cat /sys/kernel/mm/lru_gen/enabled)
	_stop0=$(lines "$RESULTS/agent.log" "MGLRU aging stopped")
	_back0=$(lines "$RESULTS/agent.log" "MGLRU aging back on")
	echo n >/sys/kernel/mm/lru_gen/enabled
	_ok=1
	log_wait "$RESULTS/agent.log" "MGLRU aging stopped .*switched off" 10 >/dev/null || _ok=0
	# Jobs dispatched before the switch may still end with their lru_gen eviction: count from two
	# ticks later.
	sleep 2
	_mark=$(wc -l <"$RESULTS/agent.log")
	sleep 10
	_said=$(($(lines "$RESULTS/agent.log" "MGLRU aging stopped") - _stop0))
	# Reclaim after the switch: through memory.reclaim (no "evicted through lru_gen").
	_after=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep -c 'faults/[a-z]*: reclaim [a-z-]* on node' || true)
	_lrugen=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep -c 'evicted through lru_gen' || true)
	echo "$was" >/sys/kernel/mm/lru_gen/enabled
	wait_count "MGLRU aging back on" $((_back0 + 1)) || _ok=0
	if alive && [ "$_ok" -eq 1 ] && [ "$_said" -eq 1 ] && [ "$_after" -ge 1 ] && [ "$_lrugen" -eq 0 ]; then
		pass mglru-off-mid-run "said once: $(grep -m1 'MGLRU aging stopped' "$RESULTS/agent.log" | sed 's/.*: MGLRU/MGLRU/; s/ |.*//'); $_after reclaims in the next 10 s, none through lru_gen; back on when switched on"
	else
		fail mglru-off-mid-run "alive=$(alive && echo y || echo n) stopped/back lines ok=$_ok, said $_said times, $_after reclaims after the switch, $_lrugen of them through lru_gen"
	fi
}
mglru_run

# ---- debugfs-umount -------------------------------------------------------------------------------
debugfs_run() {
	need_feature debugfs-umount lru-gen lru-gen-debugfs || return 0
	_stop0=$(lines "$RESULTS/agent.log" "MGLRU aging stopped")
	_back0=$(lines "$RESULTS/agent.log" "MGLRU aging back on")
	_n=0 _um=0
	while [ $_n -lt 10 ]; do
		echo "$(uptime_s): umount" >>"$RESULTS/umount.err"
		umount /sys/kernel/debug 2>>"$RESULTS/umount.err" && { _um=1; break; }
		_n=$((_n + 1))
		sleep 0.3
	done
	_att=$((_n + 1))
	if [ "$_um" -eq 0 ]; then
		fail debugfs-umount "umount /sys/kernel/debug failed 10 times: $(cat "$RESULTS/umount.err"); agent fds: $(for f in "/proc/$AGENT_PID"/fd/*; do readlink "$f"; done | grep -c /sys/kernel/debug) on debugfs"
		return 0
	fi
	_ok=1
	log_wait "$RESULTS/agent.log" "MGLRU aging stopped .*debugfs is not mounted" 10 >/dev/null || _ok=0
	sleep 3
	_t=$(ticks)
	_said=$(($(lines "$RESULTS/agent.log" "MGLRU aging stopped") - _stop0))
	mount -t debugfs debugfs /sys/kernel/debug
	wait_count "MGLRU aging back on" $((_back0 + 1)) || _ok=0
	if alive && [ "$_ok" -eq 1 ] && [ "$_said" -eq 1 ]; then
		pass debugfs-umount "umount succeeded at attempt $_att of at most 10, 0.3 s apart; one line, the agent went on without (tick $_t) and took up aging again after the mount"
	else
		fail debugfs-umount "alive=$(alive && echo y || echo n) stopped/back lines ok=$_ok, stopped said $_said times"
	fi
}
debugfs_run

# ---- zswap-disabled -------------------------------------------------------------------------------
zp=/sys/module/zswap/parameters
if [ "$(cat $zp/enabled)" = Y ]; then
	_mark=$(wc -l <"$RESULTS/agent.log")
	echo N >$zp/enabled
	sleep 8
	_now=$(cat $zp/enabled)
	_said=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep -c -i 'zswap' || true)
	if alive && [ "$_now" = N ] && [ "$_said" -le 1 ]; then
		pass zswap-disabled "zswap off under the agent: left off, $_said log lines about zswap in 8 s"
	else
		fail zswap-disabled "alive=$(alive && echo y || echo n), enabled now $_now, $_said zswap lines in 8 s"
	fi
else
	fail zswap-disabled "the agent did not enable zswap at start (enabled=$(cat $zp/enabled))"
fi

# ---- swapoff-by-other -----------------------------------------------------------------------------
swapoff "$swapdev"
_ok=1
log_wait "$RESULTS/agent.log" "swap device removed: $swapdev" 10 >/dev/null || _ok=0
sleep 5
_on=$(grep -c "^$swapdev " /proc/swaps || true)
_said=$(lines "$RESULTS/agent.log" "swap device removed: $swapdev")
if alive && [ "$_ok" -eq 1 ] && [ "$_on" -eq 0 ] && [ "$_said" -eq 1 ]; then
	pass swapoff-by-other "reported once, left off: $(grep -m1 "swap device removed" "$RESULTS/agent.log" | sed 's/.*: swap/swap/; s/ |.*//')"
else
	fail swapoff-by-other "alive=$(alive && echo y || echo n), reported=$_ok ($_said times), on again=$_on"
fi
swapon-prio "$swapdev" 10

# ---- oom-mid-reclaim ------------------------------------------------------------------------------
# Page cache for the agent to reclaim (no swap for this cgroup), then an allocation past memory.max.
echo 0 >"$cg/oom/memory.swap.max"
echo $((96 * MiB)) >"$cg/oom/memory.max"
cg_run "$cg/oom" memhog --anon 8M --file 64M --file-path /data/oom.dat --hot-pct 100 --rate 100 \
	--duration 0 --report-interval 30 --ready-file /tmp/oom.ready >"$RESULTS/memhog-oom.log" 2>&1
oom_pid=$!
wait_for_file /tmp/oom.ready 60 || true
log_wait "$RESULTS/agent.log" "CGROUP=faults/oom .*REASON=reclaim" 30 >/dev/null || echo "note: no reclaim of faults/oom yet"
cg_run "$cg/oom" memhog --anon 160M --hot-pct 100 --rate 0 --duration 30 >"$RESULTS/memhog-oom2.log" 2>&1
oom2_pid=$!
n=0
until [ "$(awk '$1 == "oom_kill" { print $2 }' "$cg/oom/memory.events")" -ge 1 ]; do
	n=$((n + 1)); [ $n -gt 300 ] && break; sleep 0.1
done
kills=$(awk '$1 == "oom_kill" { print $2 }' "$cg/oom/memory.events")
# The tick of the cgroup's last decision (reclaimctl explain): it must go on moving.
dtick() { reclaimctl explain faults/oom 2>/dev/null | sed -n 's/^decision: .*(tick \([0-9]*\)).*/\1/p'; }
sleep 2
_d0=$(dtick)
sleep 4
_d1=$(dtick)
if alive && [ "$kills" -ge 1 ] && [ -n "$_d0" ] && [ -n "$_d1" ] && [ "$_d1" -gt "$_d0" ]; then
	pass oom-mid-reclaim "oom_kill $kills in faults/oom; the agent goes on deciding for it (decision at tick $_d0, then $_d1): $(reclaimctl explain faults/oom 2>/dev/null | grep '^decision:')"
else
	fail oom-mid-reclaim "alive=$(alive && echo y || echo n), oom_kill=$kills, decision ticks '$_d0' -> '$_d1'"
fi
kill "$oom_pid" "$oom2_pid" 2>/dev/null
wait "$oom_pid" "$oom2_pid" 2>/dev/null
rm -f /data/oom.dat

# ---- agent-at-high --------------------------------------------------------------------------------
acg=$CGROOT/reclaimd
AT_HIGH='own cgroup /reclaimd was held at its memory.high'
RECOVERED='own cgroup /reclaimd: no memory.high event for [0-9]+ s, no longer throttled'
managed() { lines "$RESULTS/agent.log" 'faults/churn/high[0-9]+: managed by rule'; }
high_events() { awk '$1 == "high" { print $2 }' "$acg/memory.events"; }
mkdir -p "$cg/churn"
h0=$(high_events)
echo "$(cat "$acg/memory.current")" >"$acg/memory.high"
limit=$(cat "$acg/memory.high")
t0=$(cut -d' ' -f1 /proc/uptime)
i=1
while [ $i -le 300 ]; do mkdir "$cg/churn/high$i"; i=$((i + 1)); done
sleep 20
h1=$(high_events)
m_throttled=$(managed)
cur1=$(cat "$acg/memory.current")
echo max >"$acg/memory.high"
rec=$(log_wait "$RESULTS/agent.log" "$RECOVERED" 90)
# The WARNING comes from the first tick that ends after the count rose; a tick that manages
# hundreds of new cgroups while throttled can itself outlast the 20 s above (6.1), so the lines
# are counted once the episode is over: exactly one for the whole episode.
warned=$(lines "$RESULTS/agent.log" "$AT_HIGH")
n=0
until [ "$(managed)" -ge 300 ] || [ $n -ge 600 ]; do n=$((n + 1)); sleep 0.1; done
m_after=$(managed)
reclaimctl --json status >"$RESULTS/status-at-high.json" 2>&1
ev=$(sed -n '/"self"/,/}/s/.*"high_events": \([0-9]*\).*/\1/p' "$RESULTS/status-at-high.json")
thr=$(sed -n '/"self"/,/}/s/.*"throttled": \([a-z]*\).*/\1/p' "$RESULTS/status-at-high.json")
grep -E "own cgroup /reclaimd" "$RESULTS/agent.log"
echo "agent at memory.high $((limit / 1024)) KiB: memory.current $((cur1 / 1024)) KiB after 20 s, high events $h0 -> $h1; managed $m_throttled of 300 while throttled, $m_after after; $warned warning lines; status high_events ${ev:-?} throttled ${thr:-?}"
if ! [ "$h1" -gt "$h0" ]; then
	fail agent-at-high "precondition: no memory.high event ($h0 -> $h1) with memory.high $((limit / 1024)) KiB and 300 new cgroups (memory.current $((cur1 / 1024)) KiB)"
elif alive && [ "$warned" = 1 ] && [ "$m_throttled" -ge 1 ] && [ -n "$rec" ] &&
	[ "$m_after" -ge 300 ] && [ "${ev:-0}" -ge 1 ] && [ "$thr" = false ]; then
	pass agent-at-high "$((h1 - h0)) high events at memory.high $((limit / 1024)) KiB, one warning; $m_throttled of 300 new cgroups managed while throttled, all 300 after; $(echo "$rec" | sed 's/^.*own cgroup/own cgroup/')"
else
	fail agent-at-high "alive=$(alive && echo y || echo n), warnings $warned (want 1), managed while throttled $m_throttled, after $m_after, recovery line '${rec:-none}', status high_events ${ev:-none} throttled ${thr:-none}"
fi
i=1
while [ $i -le 300 ]; do rmdir "$cg/churn/high$i"; i=$((i + 1)); done
echo "agent-at-high took $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }') s"

# ---- swap-full ------------------------------------------------------------------------------------
# zswap is off (above): the disk swap is the only swap. Fill it with faults/full's anonymous memory
# through memory.reclaim until SwapFree is below 1 MiB, then watch the agent for a minute.
# The fill starts within a second of the memhog writing its 160 MiB, before aging can tell its hot
# pages from its cold ones, so the fill's writes take most of the hot set too. Once swap is more
# than half used, a swapped-in page gives its slot up (mem_cgroup_swap_full() and vm_swap_full(),
# include/linux/swap.h, from should_try_to_free_swap() in mm/memory.c), so for the next ~30 s the
# hot set's refaults free slots that the agent may then fill: the workload recovering from the
# test's own writes, not the steady state with swap full. The minute is therefore watched only once
# the hot set is back (the cgroup's workingset_refault_anon moves by at most 10 pages in 5 s, after
# at least 10 s, at most 90 s; what the agent did meanwhile is printed, not judged) and swap has
# been topped up in 1 MiB writes, which now meet the cold pages in the oldest generations.
kill "$work_pid" 2>/dev/null
wait "$work_pid" 2>/dev/null
cg_run "$cg/full" memhog --anon 160M --hot-pct 1 --rate 100 --duration 0 --report-interval 30 \
	--ready-file /tmp/full.ready >"$RESULTS/memhog-full.log" 2>&1
full_pid=$!
wait_for_file /tmp/full.ready 120 || true
# fill_swap BYTES WHAT: memory.reclaim writes of BYTES on faults/full until SwapFree is below
# 1 MiB (at most 40); sets free (KiB) and prints it with the count of WHAT.
fill_swap() {
	n=0
	while [ $n -lt 40 ]; do
		free=$(awk '$1 == "SwapFree:" { print $2 }' /proc/meminfo)
		[ "$free" -lt 1024 ] && break
		cg_reclaim "$cg/full" "$1" || true
		n=$((n + 1))
	done
	free=$(awk '$1 == "SwapFree:" { print $2 }' /proc/meminfo)
	echo "swap: SwapFree $free KiB after $n $2"
}
fill_swap 16M writes
_settle_mark=$(wc -l <"$RESULTS/agent.log")
rf0=$(memstat "$cg/full" workingset_refault_anon)
if [ -z "$rf0" ]; then
	echo "swap: no workingset_refault_anon in $cg/full/memory.stat; waiting 30 s for the hot set instead"
	sleep 30
else
	rf_hist="$rf0 $rf0 $rf0 $rf0 $rf0"
	t=0
	settled=n
	while [ $t -lt 90 ]; do
		sleep 1
		t=$((t + 1))
		rf=$(memstat "$cg/full" workingset_refault_anon)
		rf_5s_ago=${rf_hist%% *}
		rf_hist="${rf_hist#* } $rf"
		if [ $t -ge 10 ] && [ $((rf - rf_5s_ago)) -le 10 ]; then
			settled=y
			break
		fi
	done
	if [ $settled = y ]; then
		echo "swap: hot set back after $t s: $((rf - rf0)) anon refaults since the fill, $((rf - rf_5s_ago)) in the last 5 s"
	else
		echo "swap: anon refaults did not settle in 90 s ($((rf - rf0)) since the fill, $((rf - rf_5s_ago)) in the last 5 s); watching the minute anyway"
	fi
fi
settle_log=$(tail -n +$((_settle_mark + 1)) "$RESULTS/agent.log" | grep 'faults/full' || true)
echo "swap: while the hot set came back: $(printf '%s\n' "$settle_log" | grep -c 'CGROUP=faults/full .*REASON=reclaim' || true) requests for faults/full, $(printf '%s' "$settle_log" | grep -c . || true) lines naming it (not judged)"
fill_swap 1M "top-up writes"
_mark=$(wc -l <"$RESULTS/agent.log")
sleep 60
reqs=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep -c 'CGROUP=faults/full .*REASON=reclaim' || true)
futile=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep -c 'faults/full: reclaim [a-z]* on node .*reclaimed 0 KiB' || true)
loglines=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep -c 'faults/full' || true)
infolines=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | grep 'faults/full' | grep -vc 'reclaimd\[debug\]' || true)
all=$(tail -n +$((_mark + 1)) "$RESULTS/agent.log" | wc -l)
echo "swap full: in 60 s, $reqs reclaim requests for faults/full ($futile reclaimed nothing), $loglines log lines naming it ($infolines above debug, what the default level writes), $all lines in all" |
	tee -a "$RESULTS/results.txt"
# A request every tick, as before the backoff, would be 60 requests a minute here. Requests that
# reclaim nothing back the cgroup off 1, 2, 4, 8, then 16 intervals: at most 6 such in 60 ticks.
# What the floor still allows (pages whose swap slots were freed) may be asked for at each tick.
# The agent runs at debug level here (every decision and job is a line: $loglines); at the
# default level the cgroup's lines are its changes of state (3 at once, then one a minute), a
# memory.events line a minute and its cold age moving: 10 in a minute is far above what that
# gives and far below a line a tick.
if alive && [ "$free" -lt 1024 ] && [ "$futile" -le 6 ] && [ "$infolines" -le 10 ]; then
	pass swap-full "SwapFree $free KiB: $reqs requests ($futile reclaimed nothing) and $infolines lines above debug level for the cgroup in 60 s ($loglines with debug, $all lines in all)"
elif [ "$free" -ge 1024 ]; then
	fail swap-full "could not fill swap: SwapFree $free KiB"
else
	fail swap-full "alive=$(alive && echo y || echo n), $reqs requests ($futile reclaimed nothing) and $infolines lines above debug level in 60 s ($loglines with debug)"
fi
kill "$full_pid" 2>/dev/null
wait "$full_pid" 2>/dev/null

stop_s=$(agent_stop)
echo "agent stopped in $stop_s s"
