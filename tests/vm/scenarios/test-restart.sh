#!/bin/sh
# vm-options: --zram-size 0 --data-size 256M
# VM test of safe restarts: the state file (/run/reclaimd/state.json, docs/operating.md "Safety:
# what is put back at stop, and after a crash"). The agent is killed with SIGKILL while it has
# changed values outside its cgroups, started again, stopped cleanly, and every administrator's
# value must be back. zram0 is set up here (128 MiB, the data disk as its backing device, off); the
# disk swap is swapped on again by "the administrator" at priority 5.
#
# Administrator's values: zswap enabled N (so pages reach zram), max_pool_percent 17,
# accept_threshold_percent 88; zram0 writeback_limit_enable 1 with a writeback_limit budget of
# 8000 units (4 KiB each); the disk at priority 5. The configuration (written below) changes
# them: max_pool_percent 9, accept_threshold_percent 80, zram0 on at 100 with idle writeback of
# every page (zram_idle_age 0, zram_writeback_at_pct 10), the disk at 10 ("empty-only": it is
# empty, so it is swapped off and on at 10).
#
# 1. Admin's budget. 48 MiB of a memhog pushed into zram; the agent starts, writes the zswap
#    parameters and begins writing back; as soon as bd_writes grows it is SIGKILLed (most likely
#    in the middle of a 1 MiB chunk, whose writeback_limit is then the chunk's, counted down).
#    Checks: the state file is there and names max_pool_percent; the parameters are still the
#    agent's. Started again with the same configuration (it adopts the zswap records, and puts
#    back the zram budget less what the cut chunk used), run 5 s, stopped with SIGTERM. Checks:
#    max_pool_percent 17 and accept_threshold_percent 88 again, the state file gone,
#    writeback_limit_enable still 1, and writeback_limit exactly 8000 less the pages written
#    back over the whole phase (bd_stat bd_writes: the kernel takes one unit per page written,
#    and the agent's chunks give back what they did not use), the disk still on (at the
#    configured 10: swap priorities are configuration, not put back at stop; a device must never
#    be left off).
# 2. No budget. writeback_limit_enable 0 (the administrator's), another 48 MiB pushed, the agent
#    started and SIGKILLed as soon as bd_writes grows (writeback_limit_enable is then 1 when the
#    kill cut a chunk). Started again with a configuration without the zram device and without
#    zswap settings: writeback_limit_enable must be 0 right after the start (put back, not
#    waited for a stop), and max_pool_percent 17 (put back at start). Stopped: the state file is
#    gone.
set -u
. "$VMTEST_LIB"

SYS=/sys/block/zram0
ZRAM=/dev/zram0
DISK=${SWAP_DEV:-/dev/vda}
STATE=/run/reclaimd/state.json

[ -x "$AGENT" ] || { fail restart-setup "no agent in the VM"; exit 0; }
[ -n "${DATA_DEV:-}" ] || { fail restart-setup "no data disk for the backing device"; exit 0; }
[ -d /sys/module/zswap/parameters ] || { fail restart-setup "no zswap in this kernel"; exit 0; }
umount /data 2>/dev/null || true
if ! { echo "$DATA_DEV" >"$SYS/backing_dev" && echo lz4 >"$SYS/comp_algorithm" &&
	echo 128M >"$SYS/disksize" && mkswap "$ZRAM" >/dev/null; }; then
	fail restart-setup "zram0 with backing device $DATA_DEV could not be set up"
	exit 0
fi
if [ ! -e "$SYS/writeback_limit_enable" ]; then
	skip restart-zram "this kernel's zram has no writeback_limit (CONFIG_ZRAM_WRITEBACK)"
	exit 0
fi

# The administrator's values.
zswap_param enabled N
zswap_param max_pool_percent 17
zswap_param accept_threshold_percent 88
swapoff "$DISK" 2>/dev/null
swapon-prio "$DISK" 5 || fail restart-setup "cannot swap $DISK on at 5"
echo 1 >"$SYS/writeback_limit_enable"
echo 8000 >"$SYS/writeback_limit"
rm -f "$STATE"

config() { # FILE WITH_ZRAM(0|1) WITH_ZSWAP(0|1)
	_dev=""
	[ "$2" = 1 ] && _dev="{\"path\": \"$ZRAM\", \"priority\": 100, \"kind\": \"zram\"},"
	_zs='{"manage": false}'
	[ "$3" = 1 ] && _zs='{"max_pool_percent": 9, "accept_threshold_percent": 80, "manage": false}'
	cat >"$1" <<EOF
{"interval": 1, "log_level": "debug", "headroom": false,
 "swap": {"devices": [$_dev {"path": "$DISK", "priority": 10, "kind": "ssd"}],
          "zram_writeback_at_pct": 10, "zram_idle_age": 0},
 "zswap": $_zs}
EOF
}
config /tmp/restart-full.json 1 1
config /tmp/restart-none.json 0 0

bd_writes() { awk '{ print $3 }' "$SYS/bd_stat"; }
val() { tr -d '\n' <"$1"; }
# push CGROUP MIB: memory.reclaim in 16 MiB steps until zram's orig_data_size grew by MIB MiB.
push() {
	_start=$(awk '{ printf "%d", $1 / 1048576 }' "$SYS/mm_stat")
	_i=0
	while [ $(($(awk '{ printf "%d", $1 / 1048576 }' "$SYS/mm_stat") - _start)) -lt "$2" ] &&
		[ "$_i" -lt 20 ]; do
		cg_reclaim "$1" 16M
		_i=$((_i + 1))
	done
}
# kill9_when_writing WR0: SIGKILL the agent as soon as bd_writes passes WR0 (60 s at most).
kill9_when_writing() {
	_n=600
	while [ "$(bd_writes)" -le "$1" ] && [ "$_n" -gt 0 ]; do
		sleep 0.05
		_n=$((_n - 1))
	done
	kill -9 "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID" 2>/dev/null
	[ "$_n" -gt 0 ]
}

# ---- 1. an administrator's budget -----------------------------------------------------------
LOG=$RESULTS/agent-1a.log
wr0=$(bd_writes)
agent_start /tmp/restart-full.json "$LOG"
log_wait "$LOG" "swap $ZRAM: activated at priority 100" 20 >/dev/null ||
	fail restart-zram-on "zram0 was not swapped on: $(grep -m3 'swap ' "$LOG" | log_message)"
top=$(cg_create restart1)
cg_run "$top" memhog --anon 96M --hot-pct 2 --rate 1000 --report-interval 30 \
	--ready-file /tmp/restart1.ready >"$RESULTS/memhog-1.log" 2>&1
hog=$!
wait_for_file /tmp/restart1.ready 120 || fail restart-memhog "memhog did not get ready"
push "$top" 48
if kill9_when_writing "$wr0"; then
	pass restart-killed-writing "SIGKILL after $(($(bd_writes) - wr0)) pages written back"
else
	fail restart-killed-writing "no writeback within 60 s: $(grep 'zram0' "$LOG" | tail -n 3 | log_message)"
fi
echo "after SIGKILL: writeback_limit_enable $(val $SYS/writeback_limit_enable) writeback_limit $(val $SYS/writeback_limit), bd_writes +$(($(bd_writes) - wr0))"
cp "$STATE" "$RESULTS/state-after-kill-1.json" 2>/dev/null
check restart-state-file-kept grep -q '"zswap/max_pool_percent"' "$STATE"
check restart-kill-leaves-agent-value [ "$(zswap_param max_pool_percent)" = 9 ]

LOG=$RESULTS/agent-1b.log
agent_start /tmp/restart-full.json "$LOG"
log_wait "$LOG" 'started: cgroup root' 20 >/dev/null || fail restart-start "the agent did not start again"
sleep 5
agent_stop >/dev/null
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
grep -E 'state file|as the last run|put back|given back|restored' "$RESULTS/agent-1b.log" | log_message | sed 's/^/  /'
used=$(($(bd_writes) - wr0))
check restart-zswap-max-pool-back [ "$(zswap_param max_pool_percent)" = 17 ]
check restart-zswap-accept-back [ "$(zswap_param accept_threshold_percent)" = 88 ]
check restart-zswap-enabled-untouched [ "$(zswap_param enabled)" = N ]
check restart-state-file-removed [ ! -e "$STATE" ]
check restart-wb-limit-enable-back [ "$(val $SYS/writeback_limit_enable)" = 1 ]
if [ "$(val $SYS/writeback_limit)" = $((8000 - used)) ]; then
	pass restart-wb-budget-back "writeback_limit $((8000 - used)) = 8000 - $used pages written back"
else
	fail restart-wb-budget-back "writeback_limit $(val $SYS/writeback_limit), want 8000 - $used = $((8000 - used))"
fi
check restart-disk-swap-on [ "$(swap_prio "$DISK")" = 10 ]

# ---- 2. no budget: writeback_limit_enable put back to 0 at the next start ------------------
echo 0 >"$SYS/writeback_limit_enable"
LOG=$RESULTS/agent-2a.log
wr0=$(bd_writes)
agent_start /tmp/restart-full.json "$LOG"
log_wait "$LOG" 'started: cgroup root' 20 >/dev/null
top=$(cg_create restart2)
cg_run "$top" memhog --anon 96M --hot-pct 2 --rate 1000 --report-interval 30 \
	--ready-file /tmp/restart2.ready >"$RESULTS/memhog-2.log" 2>&1
hog=$!
wait_for_file /tmp/restart2.ready 120 || fail restart-memhog "memhog 2 did not get ready"
push "$top" 48
kill9_when_writing "$wr0" || fail restart-killed-writing-2 "no writeback within 60 s"
cut=$(val $SYS/writeback_limit_enable)
echo "after SIGKILL: writeback_limit_enable $cut (1: the kill cut a chunk)"
cp "$STATE" "$RESULTS/state-after-kill-2.json" 2>/dev/null
LOG=$RESULTS/agent-2b.log
agent_start /tmp/restart-none.json "$LOG"
log_wait "$LOG" 'started: cgroup root' 20 >/dev/null || fail restart-start-2 "the agent did not start again"
check restart-wb-enable-off-at-start [ "$(val $SYS/writeback_limit_enable)" = 0 ]
check restart-zswap-put-back-at-start [ "$(zswap_param max_pool_percent)" = 17 ]
# Whether the SIGKILL cut a chunk depends on where in the writeback loop it landed; between two
# chunks there is nothing to put back, and the check says so instead of vanishing from the count.
if [ "$cut" = 1 ]; then
	check restart-wb-enable-logged grep -q 'writeback_limit_enable put back to 0' "$LOG"
else
	skip restart-wb-enable-logged "the SIGKILL fell between two writeback chunks (writeback_limit_enable $cut after it): nothing to put back"
fi
agent_stop >/dev/null
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
check restart-state-file-removed-2 [ ! -e "$STATE" ]
check restart-disk-swap-on-2 [ "$(swap_prio "$DISK")" = 10 ]
exit 0
