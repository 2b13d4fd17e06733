#!/bin/sh
# zswap.sh - the zswap LRU-inversion scenario with and without reclaimd, as a table.
#
# Usage: bench/zswap.sh [run.sh options...]
#   Boots tests/vm/run.sh (no zram: zswap in front of the swap disk) with
#   tests/vm/scenarios/test-zswap.sh and ZSWAP_ONLY=inversion, so only issue test 3 runs: a cgroup
#   gets a new 64 MiB memhog (10 % hot) every 10 s for 60 s, zswap max_pool_percent 3, and the
#   agent's psi policy reclaims it in both phases; they differ only in the agent managing zswap
#   (configs/zswap-unmanaged.json: manage off; configs/zswap.json: pacing to the pool's room,
#   shrinker "auto", fair share). Results: bench/out/zswap/ (zswap-table.txt, the agents' logs,
#   the memhogs' logs). Prints the table.
#   Environment: ZSWAP_RUN (60 s), ZSWAP_HOG_MIB (64), ZSWAP_HOG_EVERY (10 s).
#
# Columns (deltas over a phase): pool_limit_hit, rejects (sum of reject_*), written_back
# (written_back_pages) from /sys/kernel/debug/zswap; pswpout, pswpin, zswpout, zswpwb from
# /proc/vmstat (pages); direct: pswpout - zswpwb (stores zswap refused, counted or not);
# disk_MiB: sectors written to the swap disk (/sys/block/vda/stat) x 512;
# ops_per_s: the memhogs' summed accesses per second; p99_us: the worst memhog's p99 access latency;
# cur_MiB: the cgroup's mean memory.current.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
out=$REPO/bench/out/zswap
mkdir -p "$out"
args="--env ZSWAP_ONLY=inversion"
for v in ZSWAP_RUN ZSWAP_HOG_MIB ZSWAP_HOG_EVERY; do
	eval "val=\${$v:-}"
	# shellcheck disable=SC2154
	[ -n "$val" ] && args="$args --env $v=$val"
done
for f in "$REPO"/tests/vm/configs/zswap*.json; do
	args="$args --file $f:/etc/reclaimd/$(basename "$f")"
done
# shellcheck disable=SC2086 # one word per option
if ! "$REPO/tests/vm/run.sh" --zram-size 0 --timeout 600 $args "$@" \
	"$REPO/tests/vm/scenarios/test-zswap.sh" "$out" >&2; then
	echo "zswap.sh: the VM run failed; see $out/console.log" >&2
	exit 1
fi
if [ ! -s "$out/zswap-table.txt" ]; then
	echo "zswap.sh: no table; see $out/scenario.log" >&2
	exit 1
fi
cat "$out/zswap-table.txt"
grep -E '^(PASS|FAIL) ' "$out/results.txt" 2>/dev/null
exit 0
