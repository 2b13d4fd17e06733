#!/bin/sh
# vm-options: --zram-size 0 --data-size 256M
# VM test of zram idle writeback (issue "Swap tiers", zram devices with a backing device).
# zram0 is set up here, not by the VM's init: 128 MiB with the data disk as its backing device
# (backing_dev must be set before disksize), left swapped off. The disk swap is at 10.
#
# 1. reclaimd with configs/zram-writeback.json (zram0 at 100, zram_writeback_at_pct 50,
#    zram_idle_age 4 s) swaps zram0 on. Cold anonymous memory of a memhog is pushed into it with
#    memory.reclaim until zram holds about 90 MiB (70 % of 128). The agent must write pages back
#    (its "wrote back" line, at least 32 MiB in bd_stat's bd_count), zram's in-memory data must
#    fall below the 50 % threshold, and the disk swap must have got no page: the point of the
#    writeback is that zram does not fill and push new pages to the slower tier. The scenario
#    waits (at most 240 s) for the end of the round that leaves zram below the threshold, then
#    measures: zram crosses the threshold in the middle of a round, when the round has written
#    only the 28 MiB above it, so measuring at the crossing measured a round half done.
#    Pages younger than zram_idle_age are not written: the first round, right after the push,
#    must write less than what the push stored.
# 2. The daily budget: restarted with zram_writeback_limit 8M and the threshold at 20 %
#    (zram-writeback-budget.json) and the first workload ended (its pages, written back or not,
#    hold swap slots of zram0: 128 MiB less what part 1 wrote back is all a push could store,
#    and part 1 writes back more on a slower run), a second workload's push of 60 MiB must be
#    written back by more than nothing and at most 8 MiB (bd_stat's bd_writes: bd_count also
#    falls when pages on the disk are read back or freed). The scenario waits (at most 120 s)
#    until 8 MiB are written, then watches 10 s more (two retry periods: a round past the
#    budget would start in them).
# 3. A stop during the rounds returns within 2 s (writes are cut into 1 MiB chunks).
set -u
. "$VMTEST_LIB"

MiB=1048576
ZRAM=/dev/zram0
SYS=/sys/block/zram0
DISK=${SWAP_DEV:-/dev/vda}

cfg() {
	sed "s#/dev/vda#$DISK#g" "/etc/reclaimd/$1" >"/tmp/$1"
	echo "/tmp/$1"
}
bd_count_kib() { awk '{ printf "%d", $1 * 4 }' "$SYS/bd_stat"; }
bd_writes_kib() { awk '{ printf "%d", $3 * 4 }' "$SYS/bd_stat"; }
# What zram holds in memory: mm_stat orig_data_size minus the written-back pages (bd_count),
# which 6.12 keeps counting in orig_data_size.
orig_kib() { echo $(($(awk '{ printf "%d", $1 / 1024 }' "$SYS/mm_stat") - $(bd_count_kib))); }

# push CGROUP MIB: memory.reclaim in 16 MiB steps until zram holds MIB MiB (at most 20 steps).
push() {
	_i=0
	while [ "$(orig_kib)" -lt $(($2 * 1024)) ] && [ "$_i" -lt 20 ]; do
		cg_reclaim "$1" 16M
		_i=$((_i + 1))
	done
	echo "pushed: zram holds $(($(orig_kib) / 1024)) MiB after $_i steps"
}

# round_below LOG KIB SECONDS: waits until LOG has the line of a finished round that wrote
# something and left zram holding less than KIB KiB ("zram0: wrote back X MiB ...; ..., Y MiB
# now"); prints it. Fails when none comes within SECONDS.
round_below() {
	_n=$(($3 * 10))
	while :; do
		_l=$(awk -v lim="$2" '/zram0: wrote back [0-9.]+ MiB/ && match($0, /[0-9.]+ MiB now/) {
			w = $0; sub(/.*zram0: wrote back /, "", w); sub(/ MiB.*/, "", w)
			v = substr($0, RSTART, RLENGTH); sub(/ MiB now/, "", v)
			if (w + 0 > 0 && v * 1024 < lim + 0) { print; exit }
		}' "$1" 2>/dev/null)
		[ -n "$_l" ] && { echo "$_l"; return 0; }
		_n=$((_n - 1))
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
	done
}

# start_hog NAME SIZE: a memhog (2 % hot) in a new cgroup NAME; sets top (the cgroup) and hog_pid.
start_hog() {
	top=$(cg_create "$1")
	cg_run "$top" memhog --anon "$2" --hot-pct 2 --rate 1000 --tlb-flush-ms 50 --report-interval 30 \
		--ready-file "/tmp/$1.ready" >"$RESULTS/memhog-$1.log" 2>&1
	hog_pid=$!
	wait_for_file "/tmp/$1.ready" 120 || fail zram-wb-memhog "memhog $1 did not get ready"
}

[ -x "$AGENT" ] || { fail zram-wb-setup "no agent in the VM"; exit 0; }
[ -n "${DATA_DEV:-}" ] || { fail zram-wb-setup "no data disk for the backing device"; exit 0; }
umount /data 2>/dev/null || true
if ! { echo "$DATA_DEV" >"$SYS/backing_dev" && echo lz4 >"$SYS/comp_algorithm" &&
	echo 128M >"$SYS/disksize" && mkswap "$ZRAM" >/dev/null; }; then
	fail zram-wb-setup "zram0 with backing device $DATA_DEV could not be set up"
	exit 0
fi
echo "zram0: backing device $(cat "$SYS/backing_dev"), disksize $(cat "$SYS/disksize")"
disk_used0=$(swap_used_kib "$DISK")

# ---- 1. writeback past the threshold ------------------------------------------------------
LOG=$RESULTS/agent-writeback.log
agent_start "$(cfg zram-writeback.json)" "$LOG"
n=50
while [ "$(swap_prio $ZRAM)" != 100 ] && [ "$n" -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
check zram-wb-swapon [ "$(swap_prio $ZRAM)" = 100 ]

start_hog zramwb 240M
hog=$hog_pid
push "$top" 90
pushed_kib=$(orig_kib)
t0=$(uptime_s)
# Rounds repeat every zram_idle_age (4 s) while zram is over the threshold, and a round writes
# every idle page, also past the threshold: wait for the end of the round that leaves zram below
# it. The deadline only bounds a run that goes wrong (10 s for this round on an idle host).
line=$(round_below "$LOG" $((128 * 1024 / 2)) 240) || line=
t1=$(echo "$line" | log_time)
first=$(grep -m1 "zram0: wrote back" "$LOG")
bd=$(bd_count_kib)
now_kib=$(orig_kib)
disk_used=$(swap_used_kib "$DISK")
echo "after: bd_count $bd KiB, zram holds $now_kib KiB (pushed $pushed_kib), disk swap used ${disk_used:-?} KiB (at start ${disk_used0:-?})"
grep 'zram' "$LOG" | log_message | sed 's/^/  /'
if [ -n "$line" ] && [ "$bd" -ge $((32 * 1024)) ]; then
	pass zram-wb-written "$((bd / 1024)) MiB on the backing device, below the threshold $(fsub "$t1" "$t0") s after the push; log: $(echo "$line" | log_message)"
else
	fail zram-wb-written "bd_count $bd KiB (the push left $((pushed_kib / 1024)) MiB in zram), log line: '${line:-no round that wrote and ended below the threshold within 240 s}'"
fi
check zram-wb-below-threshold [ "$now_kib" -lt $((128 * 1024 / 2)) ]
check zram-wb-no-disk-spill [ "${disk_used:-0}" -le "${disk_used0:-0}" ]
# The first round came within a tick of the push, when the pages were younger than 4 s.
first_mib=$(echo "$first" | sed -n 's/.*wrote back \([0-9]*\)\..*/\1/p')
if [ -n "$first_mib" ] && [ "$first_mib" -lt $((pushed_kib / 1024)) ]; then
	pass zram-wb-idle-age "first round wrote $first_mib MiB of the $((pushed_kib / 1024)) MiB just pushed"
else
	fail zram-wb-idle-age "first round: '${first:-none}' (pushed $((pushed_kib / 1024)) MiB)"
fi
t=$(agent_stop)
check zram-wb-stop-time awk -v t="$t" 'BEGIN { exit !(t < 2) }'
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null

# ---- 2. the daily budget --------------------------------------------------------------------
LOG=$RESULTS/agent-budget.log
wr0=$(bd_writes_kib)
agent_start "$(cfg zram-writeback-budget.json)" "$LOG"
# A fresh workload: the first one has little cold memory left in RAM.
start_hog zramwb2 160M
hog2=$hog_pid
push "$top" 60
pushed_kib=$(orig_kib)
# Until the budget is used up (or 120 s, for a run that goes wrong), then two retry periods of
# zram_idle_age (4 s) and a tick: an agent that ignored its budget would start a round in them.
n=1200
while [ $(($(bd_writes_kib) - wr0)) -lt $((8 * 1024)) ] && [ "$n" -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
done
echo "budget: $(($(bd_writes_kib) - wr0)) KiB written after $(((1200 - n) / 10)) s"
sleep 10
wr1=$(bd_writes_kib)
grep 'zram' "$LOG" | log_message | sed 's/^/  /'
if [ "$pushed_kib" -le $((128 * 1024 / 5)) ]; then
	fail zram-wb-budget "setup: zram holds only $((pushed_kib / 1024)) MiB after the push, not above the 20 % threshold"
elif [ $((wr1 - wr0)) -gt 0 ] && [ $((wr1 - wr0)) -le $((8 * 1024)) ]; then
	pass zram-wb-budget "$((wr1 - wr0)) KiB written back against a budget of 8 MiB"
else
	fail zram-wb-budget "$((wr1 - wr0)) KiB written back (budget 8 MiB, want > 0 and <= 8192)"
fi
agent_stop >/dev/null
kill "$hog2" 2>/dev/null
wait "$hog2" 2>/dev/null
exit 0
