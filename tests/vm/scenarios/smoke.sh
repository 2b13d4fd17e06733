#!/bin/sh
# smoke: the VM works: cgroup v2 with the memory controller, swap, memhog in
# a cgroup, and proactive reclaim through memory.reclaim.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VMTEST_LIB"

echo "uname: $(uname -a)"
echo "--- kernel features (kernel-features.txt)"
kfeature_report "$RESULTS/kernel-features.txt"

# cgroup2 mounted, memory controller enabled for children.
if grep -q '^none /sys/fs/cgroup cgroup2 ' /proc/mounts; then
	pass cgroup2-mounted
else
	fail cgroup2-mounted "no cgroup2 at /sys/fs/cgroup"
fi
if grep -qw memory "$CGROOT/cgroup.subtree_control"; then
	pass memory-controller "subtree_control: $(cat "$CGROOT/cgroup.subtree_control")"
else
	fail memory-controller "not in cgroup.subtree_control"
fi

echo "--- /proc/swaps"
cat /proc/swaps
if [ "$(grep -c '^/dev/' /proc/swaps)" -ge 2 ] &&
	awk '$1 == "/dev/zram0" && $5 == 100 { found = 1 } END { exit !found }' /proc/swaps; then
	pass swap "zram0 at priority 100 + disk"
else
	fail swap "expected zram0 (prio 100) and a disk swap"
fi

# memhog accesses its hot 10 % for 5 s once set up. The measurements below
# must happen while it is alive, so it is started with a longer --duration and
# stopped (SIGTERM: it prints its summary and exits 0) after at least 5 s;
# on a slow or busy host one reclaim write can take several seconds.
cg=$(cg_create test)
cg_run "$cg" memhog --anon 64M --hot-pct 10 --duration 120 \
	--report-interval 1 --ready-file /tmp/memhog.ready
hog=$!
if ! wait_for_file /tmp/memhog.ready 30; then
	fail smoke "memhog did not get ready"
	exit 1
fi
if grep -qx "$hog" "$cg/cgroup.procs"; then
	pass memhog-in-cgroup
else
	fail memhog-in-cgroup "pid $hog not in $cg/cgroup.procs"
fi

before=$(cat "$cg/memory.current")
t0=$(cut -d' ' -f1 /proc/uptime)
if echo 16M >"$cg/memory.reclaim"; then reclaim_ok=1; else reclaim_ok=0; fi
t1=$(cut -d' ' -f1 /proc/uptime)
after=$(cat "$cg/memory.current")
swap_cur=$(cat "$cg/memory.swap.current")
echo "memory.current before=$before after=$after ($(mib "$before") -> $(mib "$after") MiB)," \
	"swap.current=$swap_cur, reclaim took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
echo "--- /proc/swaps after reclaim"
cat /proc/swaps
# mm_stat: orig_data_size compr_data_size mem_used_total ... (bytes)
zram_ratio=$(awk '$2 > 0 { printf "%.2f", $1 / $2 }' /sys/block/zram0/mm_stat)
echo "zram0 mm_stat: $(cat /sys/block/zram0/mm_stat) (compression ratio ${zram_ratio:-n/a})"
{
	echo "memory.current.before=$before"
	echo "memory.current.after=$after"
	echo "memory.swap.current=$swap_cur"
	echo "reclaim_write_ok=$reclaim_ok"
	echo "zram_compression_ratio=${zram_ratio:-n/a}"
	echo "--- /proc/swaps"
	cat /proc/swaps
	echo "--- memory.stat"
	cat "$cg/memory.stat"
} >"$RESULTS/smoke-details.txt"

# A 64M workload must be charged (>= 60 MiB), and reclaiming 16M must take
# at least 12 MiB off memory.current (the cold 90 % is easy to reclaim).
if [ "$before" -lt $((60 * 1024 * 1024)) ]; then
	fail smoke "memory.current before reclaim only $before bytes"
elif [ "$reclaim_ok" -ne 1 ]; then
	fail smoke "write to memory.reclaim failed"
elif [ $((before - after)) -lt $((12 * 1024 * 1024)) ]; then
	fail smoke "memory.reclaim freed only $((before - after)) bytes"
elif [ "$swap_cur" -le 0 ]; then
	fail smoke "nothing went to swap"
else
	pass smoke "reclaimed $(mib $((before - after))) MiB, swap.current $(mib "$swap_cur") MiB"
fi

sleep 5
kill -TERM "$hog"
if wait "$hog"; then
	pass memhog-exit
else
	fail memhog-exit "memhog exited non-zero"
fi
