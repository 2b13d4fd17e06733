#!/bin/sh
# record-fixtures: copies real kernel interface files into $RESULTS/fixtures/
# for the parsers' unit tests. Paths are mirrored: /proc/vmstat is saved as
# fixtures/proc/vmstat, the test cgroup's files under
# fixtures/sys/fs/cgroup/fixture/, and so on.
#
# To make the counters interesting, zswap is enabled and a memhog runs in the
# cgroup "fixture": part of it is reclaimed (into zswap, in front of zram),
# its file cache is dropped and read back from the data disk (I/O pressure),
# and it is squeezed below its hot set with memory.max (memory pressure,
# refaults, max events). The snapshot is taken while it is still squeezed.
set -eu
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VMTEST_LIB"

FIX=$RESULTS/fixtures
mkdir -p "$FIX"

# snap PATH...: copies each readable file to $FIX/PATH (write-only files such
# as memory.reclaim are skipped).
snap() {
	for f in "$@"; do
		[ -f "$f" ] || continue
		mkdir -p "$FIX$(dirname "$f")"
		cat "$f" >"$FIX$f" 2>/dev/null || rm -f "$FIX$f"
	done
}

# --- zswap on ----------------------------------------------------------------
echo Y >/sys/module/zswap/parameters/enabled
echo "zswap: $(cd /sys/module/zswap/parameters && grep . ./*)"

# --- Workload ----------------------------------------------------------------
# memory.zswap.max keeps the compressed pool small: zswap pages are charged to
# the cgroup, so without it the pool alone outgrows the memory.max squeeze
# below and the memcg OOM killer takes memhog (seen on 6.12). Pages beyond it
# go to zram, which is not charged to the cgroup.
cg=$(cg_create fixture)
echo 33554432 >"$cg/memory.low"
echo 8388608 >"$cg/memory.zswap.max"
[ -d /data ] || { fail record-fixtures "no /data disk (run.sh --data-size 0?)"; exit 1; }
cg_run "$cg" memhog --anon 192M --hot-pct 25 --file 32M --file-path /data/memhog.dat \
	--rate 20000 --duration 300 --report-interval 2 --ready-file /tmp/memhog.ready
hog=$!
wait_for_file /tmp/memhog.ready 120 || { fail record-fixtures "memhog not ready"; exit 1; }
echo "after setup: memory.current=$(cat "$cg/memory.current")"

# Drop the file cache only (swappiness=0) and read the file back inside the
# cgroup: real reads from the virtio disk (I/O pressure, file refaults).
echo "32M swappiness=0" >"$cg/memory.reclaim" || echo "file-only reclaim: EAGAIN (partial)"
cg_run "$cg" sh -c 'cat /data/memhog.dat >/dev/null'
wait $!
echo "after re-read: io.pressure: $(head -n1 "$cg/io.pressure")"

# Cold anonymous memory into zswap and zram.
echo 96M >"$cg/memory.reclaim" || echo "memory.reclaim 96M: EAGAIN (partial)"
echo "after reclaim: memory.current=$(cat "$cg/memory.current") zswap=$(cat "$cg/memory.zswap.current")"

# Squeeze below the hot set (48M) plus the zswap pool: memory pressure and
# max events.
echo 54525952 >"$cg/memory.max"
sleep 8
kill -0 "$hog" 2>/dev/null || { fail record-fixtures "memhog died while squeezed"; exit 1; }

# --- Snapshot ----------------------------------------------------------------
snap /proc/pressure/memory /proc/pressure/io /proc/pressure/cpu \
	/proc/vmstat /proc/meminfo /proc/swaps /proc/zoneinfo /proc/stat \
	/proc/sys/vm/swappiness /proc/sys/vm/overcommit_memory /proc/sys/vm/zone_reclaim_mode
snap /sys/kernel/debug/zswap/* /sys/module/zswap/parameters/*
snap "$cg"/*
snap "$CGROOT"/cgroup.controllers "$CGROOT"/cgroup.subtree_control \
	"$CGROOT"/memory.stat "$CGROOT"/memory.numa_stat "$CGROOT"/memory.pressure \
	"$CGROOT"/io.pressure "$CGROOT"/cgroup.stat
snap /sys/devices/system/node/node*/meminfo /sys/devices/system/node/node*/vmstat \
	/sys/devices/system/node/online /sys/devices/system/node/possible
snap /sys/block/zram0/mm_stat /sys/block/zram0/io_stat /sys/block/zram0/bd_stat \
	/sys/block/zram0/comp_algorithm /sys/block/zram0/disksize
snap /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/lru_gen/enabled

{
	echo "Recorded by tests/vm/scenarios/record-fixtures.sh"
	echo "uname: $(uname -a)"
	echo "cgroup: $cg (paths mirrored under this directory)"
	echo "workload: memhog --anon 192M --hot-pct 25 --file 32M (on ext2 /data) --rate 20000"
	echo "state: zswap enabled in front of zram0 (prio 100) and /dev/vda (prio 10);"
	echo "  memory.low=32M, memory.zswap.max=8M; file cache dropped (\"32M swappiness=0\")"
	echo "  and re-read, then 96M reclaimed via memory.reclaim; memory.max=52M"
	echo "  (below the 48M hot set plus the zswap pool) for 8 s at snapshot time"
} >"$FIX/README.txt"

kill -TERM "$hog"
wait "$hog" || true
echo 0 >"$cg/memory.low"

# --- Check the snapshot is interesting ---------------------------------------
# nonzero NAME VALUE: pass when VALUE is a number > 0.
nonzero() {
	case $2 in
	'' | *[!0-9]*) fail "fixture-$1" "not a number: '$2'" ;;
	0) fail "fixture-$1" "is zero" ;;
	*) pass "fixture-$1" "$2" ;;
	esac
}
C=$FIX$cg
psi_total() { awk -v k="$2" '$1 == k { sub("total=", "", $5); print $5 }' "$1"; }
nonzero memory.current "$(cat "$C/memory.current")"
nonzero memory.swap.current "$(cat "$C/memory.swap.current")"
nonzero memory.zswap.current "$(cat "$C/memory.zswap.current")"
nonzero memory.stat-zswpout "$(awk '$1 == "zswpout" { print $2 }' "$C/memory.stat")"
nonzero memory.stat-file "$(awk '$1 == "file" { print $2 }' "$C/memory.stat")"
nonzero memory.events-max "$(awk '$1 == "max" { print $2 }' "$C/memory.events")"
nonzero memory.pressure-some "$(psi_total "$C/memory.pressure" some)"
nonzero memory.pressure-full "$(psi_total "$C/memory.pressure" full)"
nonzero io.pressure-some "$(psi_total "$C/io.pressure" some)"
nonzero numa_stat-anon "$(awk '$1 == "anon" { for (i = 2; i <= NF; i++) { sub("N[0-9]+=", "", $i); t += $i } print t }' "$C/memory.numa_stat")"
nonzero zswap-stored_pages "$(cat "$FIX/sys/kernel/debug/zswap/stored_pages")"
nonzero proc-pressure-memory "$(psi_total "$FIX/proc/pressure/memory" some)"
echo "fixtures: $(find "$FIX" -type f | wc -l) files"
