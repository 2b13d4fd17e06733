#!/bin/sh
# vm-options: --timeout 900
# VM test of the pages-back signal (include/reclaimd/pages_back.h, docs/pages-back.md) on the two
# NUMA nodes of the test VM (CPU 0 on node 0, CPU 1 on node 1), MGLRU on (lru_gen/enabled y):
# a workload (workloads/readback.c) brings 48 MiB into memory on node 0's CPU, its cgroup is
# reclaimed with memory.reclaim, and it reads every page back on node 1's CPU, where
# lru_gen_refault() (mm/workingset.c) does not count refaults whose shadow entry names another
# node. Three cases, each in its own cgroup under back.slice (memory and io controllers on):
#   swap   anonymous memory through the swap disk (zram swapped off, zswap off);
#   zswap  anonymous memory through zswap in front of the swap disk;
#   file   page cache of a file on /data, read back with read();
#   zram   anonymous memory through zram (the swap disk off, zswap off): zram is a block device in
#          memory, so its reads are the pages read back.
# The agent runs --dry-run with configs/pages-back.json (interval 1 s, per-cgroup metrics in a
# textfile). For each case, over the read-back phase (from two ticks after the eviction to two
# ticks after the workload is done):
#   pages-back-<case>:    reclaimd_cgroup_pages_back_total grew within 10 % of the pages actually
#                         read back: sectors read from the swap and data disks (/sys/block/*/stat)
#                         in pages plus zswap loads (/proc/vmstat zswpin), and by at least 75 %
#                         of the pages the workload touched;
#   refaults-short-<case>: the workingset_refault_* terms of the same metrics
#                         (reclaimd_cgroup_pages_back_source_total) stayed under half of them:
#                         the counters the agent used alone are far off.
# The cold age's reaction to such pages, with the agent acting, is test-reclaim's
# cold-age-cross-node.
# A kernel without MGLRU, zswap or the io controller skips the checks that need it.
set -u
. "$VMTEST_LIB"

PROM=/tmp/metrics/reclaimd.prom
log=$RESULTS/agent.log
: >"$log"
SIZE_MIB=48

if [ ! -x "$AGENT" ]; then
	fail pages-back-agent "no agent in the VM"
	exit 1
fi
cpu0=$(cpulist_expand "$(node_cpulist 0)" | awk '{ print $1 }')
cpu1=$(cpulist_expand "$(node_cpulist 1 2>/dev/null)" | awk '{ print $1 }')
if [ -z "$cpu0" ] || [ -z "$cpu1" ]; then
	fail pages-back-numa "the VM has no CPU on node 0 or node 1 (run.sh gives two nodes)"
	exit 1
fi
[ -w /sys/kernel/mm/lru_gen/enabled ] && echo y >/sys/kernel/mm/lru_gen/enabled 2>/dev/null
echo "kernel $(uname -r), lru_gen $(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null), CPUs $cpu0 (node 0) and $cpu1 (node 1)"
# Swap on the disk only: zram reads would be block reads of a device in memory.
swapoff /dev/zram0 2>/dev/null || true
cat /proc/swaps
echo 0 >/proc/sys/vm/page-cluster # one page per swap read: no readahead of other slots

mkdir -p "$CGROOT/back.slice"
echo "+memory +io" >"$CGROOT/back.slice/cgroup.subtree_control"
mkdir -p /tmp/metrics
agent_start /etc/reclaimd/pages-back.json "$log" --dry-run
echo "agent pid $AGENT_PID"

# prom NAME LABELS_RE: the value of the first series of NAME whose labels match LABELS_RE.
prom() {
	awk -v n="$1" -v re="$2" 'index($0, n "{") == 1 && $0 ~ re { print $NF; exit }' "$PROM" 2>/dev/null
}

# ticks N: waits until the textfile's tick count grew by N (at most 60 s).
ticks() {
	_t0=$(prom_ticks)
	_i=0
	while [ "$(prom_ticks)" -lt $((_t0 + $1)) ] && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}
prom_ticks() {
	_v=$(awk '$1 == "reclaimd_tick_duration_seconds_count" { print $2 }' "$PROM" 2>/dev/null)
	echo "${_v:-0}"
}

# read_pages: sectors read from every virtio disk (swap, data) and from zram in pages, plus zswpin.
read_pages() {
	_s=0
	for d in /sys/block/vd* /sys/block/zram*; do
		[ -r "$d/stat" ] || continue
		_s=$((_s + $(awk '{ print $3 }' "$d/stat")))
	done
	echo $((_s * 512 / 4096 + $(vmstat_sum zswpin)))
}

# case_run NAME KIND(anon|file): one case; records its checks.
case_run() {
	name=$1
	kind=$2
	cg=$CGROOT/back.slice/$name
	mkdir -p "$cg"
	rm -f "/tmp/$name.ready" "/tmp/$name.done"
	if [ "$kind" = file ]; then
		dd if=/dev/urandom of=/data/back.dat bs=1M count=$SIZE_MIB 2>/dev/null
		sync
		echo 3 >/proc/sys/vm/drop_caches
		what="--file /data/back.dat"
	else
		what="--anon ${SIZE_MIB}M"
	fi
	cg_run "$cg" readback $what --first-cpus "$cpu0" --then-cpus "$cpu1" \
		--ready "/tmp/$name.ready" --done "/tmp/$name.done" 2>>"$RESULTS/readback.log"
	pid=$!
	if ! wait_for_file "/tmp/$name.ready" 120; then
		fail "pages-back-$name" "the workload did not get ready in 120 s"
		kill "$pid" 2>/dev/null
		return
	fi
	echo "$name: $(cat "/tmp/$name.ready") in memory, numa_stat: $(grep -E '^(anon|file) ' "$cg/memory.numa_stat" | tr '\n' ' ')"
	# Evict: several writes, each may end short (EAGAIN).
	for _ in 1 2 3 4; do
		echo "${SIZE_MIB}M" >"$cg/memory.reclaim" 2>/dev/null || true
	done
	echo "$name: after memory.reclaim memory.current $(mib "$(cat "$cg/memory.current")") MiB, zswap $(memstat "$cg" zswap)"
	ticks 2
	sig0=$(prom reclaimd_cgroup_pages_back_total "cgroup=\"back.slice/$name\"")
	ra0=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"refault_anon\"")
	rf0=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"refault_file\"")
	io0=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"io_read\"")
	zs0=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"zswpin\"")
	mf0=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"pgmajfault\"")
	truth0=$(read_pages)
	kill -USR1 "$pid"
	if ! wait_for_file "/tmp/$name.done" 300; then
		fail "pages-back-$name" "the workload did not read back in 300 s"
		kill "$pid" 2>/dev/null
		return
	fi
	ticks 2
	sig1=$(prom reclaimd_cgroup_pages_back_total "cgroup=\"back.slice/$name\"")
	ra1=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"refault_anon\"")
	rf1=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"refault_file\"")
	io1=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"io_read\"")
	zs1=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"zswpin\"")
	mf1=$(prom reclaimd_cgroup_pages_back_source_total "cgroup=\"back.slice/$name\".*source=\"pgmajfault\"")
	truth1=$(read_pages)
	touched=$(awk '{ print $2 }' "/tmp/$name.done")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -z "$sig0" ] || [ -z "$sig1" ]; then
		fail "pages-back-$name" "no reclaimd_cgroup_pages_back_total for back.slice/$name in $PROM"
		return
	fi
	sig=$((sig1 - sig0))
	truth=$((truth1 - truth0))
	refaults=$((ra1 - ra0 + rf1 - rf0))
	detail="signal $sig pages, read back $truth pages (disk + zram + zswpin), touched $touched; terms: refault_anon $((ra1 - ra0)) refault_file $((rf1 - rf0)) io_read $((io1 - io0)) zswpin $((zs1 - zs0)) pgmajfault $((mf1 - mf0))"
	echo "$name: $detail"
	if [ "$truth" -gt 0 ] &&
		[ $((sig * 100)) -ge $((truth * 90)) ] && [ $((sig * 100)) -le $((truth * 110)) ] &&
		[ $((sig * 100)) -ge $((touched * 75)) ]; then
		pass "pages-back-$name" "$detail"
	else
		fail "pages-back-$name" "not within 10 % of the pages read back (or under 75 % of those touched): $detail"
	fi
	if [ $((refaults * 2)) -lt "$truth" ]; then
		pass "refaults-short-$name" "workingset_refault_* $refaults of $truth pages read back"
	else
		fail "refaults-short-$name" "workingset_refault_* $refaults of $truth pages read back: not far off (MGLRU not in use, or the pages came back on node 0?)"
	fi
	rmdir "$cg" 2>/dev/null || true
}

if ! kfeature lru-gen; then
	skip pages-back "kernel $(uname -r) has no MGLRU to turn on (lru_gen)"
	agent_stop >/dev/null
	exit 0
fi
if [ ! -e "$CGROOT/back.slice/io.stat" ] && ! grep -qw io "$CGROOT/back.slice/cgroup.controllers"; then
	skip pages-back "no io controller for back.slice"
	agent_stop >/dev/null
	exit 0
fi

case_run swap anon
if [ -w /sys/module/zswap/parameters/enabled ]; then
	zswap_param enabled Y
	zswap_param max_pool_percent 50
	case_run zswap anon
	zswap_param enabled N
else
	skip pages-back-zswap "kernel $(uname -r) has no zswap"
	skip refaults-short-zswap "kernel $(uname -r) has no zswap"
fi
case_run file file
# zram alone: the swap disk off, zram on. On kernels whose zram has rw_page (6.1), a swap-in
# reads zram without a bio, so io.stat does not see it; the major fault it takes does.
disk_swap=$(awk 'NR > 1 && $1 !~ /zram/ { print $1; exit }' /proc/swaps)
if [ -b /dev/zram0 ] && [ -n "$disk_swap" ] && swapon /dev/zram0 2>/dev/null; then
	if swapoff "$disk_swap"; then
		case_run zram anon
		swapon "$disk_swap" || echo "could not swap on $disk_swap again"
	else
		fail pages-back-zram "swapoff $disk_swap failed"
	fi
	swapoff /dev/zram0 2>/dev/null
else
	skip pages-back-zram "no zram swap device to turn on (or no disk swap to turn off)"
	skip refaults-short-zram "no zram swap device to turn on"
fi
cp "$PROM" "$RESULTS/metrics.prom" 2>/dev/null
agent_stop >/dev/null

exit 0
