#!/bin/bash
# run.sh - `make bench`: every benchmark, printed as tables. Nothing here asserts timing.
#
#   bench/overhead.sh   reclaimd's CPU per tick next to the floor of reading the same files, on a
#                       fake cgroupfs on the host and on real cgroups in the test VM
#   bench/logvolume.sh  log lines a minute at 10, 100 and 1,000 managed cgroups (fake cgroupfs,
#                       --dry-run; 3 minutes)
#   bench/savings.sh    (when present) what the reclaim saves
#   bench/numa.sh       reclaim throughput and CPU per GiB with 1 and 2 workers per NUMA node
#   bench/zswap.sh      (when present) the zswap inversion scenario with and without the agent
#   bench/peers.sh      reclaimd next to Senpai (oomd), DAMON_RECLAIM and no reclaimer, one VM boot
#                       per arm and run; BENCH_PEERS_ARGS (e.g. "--runs 1 --seconds 120") is passed
#                       to it (default: 3 runs x 300 s x 5 arms, about 95 minutes)
#   bench/soak.sh       30 minutes of load around an ASan+UBSan agent in the VM: crashes, fd and
#                       RSS growth, log lines a minute, tick lateness, bytes reclaimed
#                       (BENCH_SOAK_MINUTES, else SOAK_MINUTES: how long, default 30; not
#                       run with --no-vm)
#
# Arguments are passed to overhead.sh (e.g. --no-vm, --sizes "1000"); see its header.
# Runs every benchmark even when one fails; exits non-zero if any failed.
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
rc=0

echo "== bench/overhead.sh"
"$HERE/overhead.sh" "$@" || rc=1

echo
echo "== bench/logvolume.sh"
"$HERE/logvolume.sh" || rc=1

if [ -f "$HERE/savings.sh" ]; then
	echo
	echo "== bench/savings.sh"
	bash "$HERE/savings.sh" || rc=1
fi
for b in numa zswap; do
	if [ -f "$HERE/$b.sh" ]; then
		echo
		echo "== bench/$b.sh"
		sh "$HERE/$b.sh" || rc=1
	fi
done
if [ -f "$HERE/peers.sh" ]; then
	echo
	echo "== bench/peers.sh"
	# shellcheck disable=SC2086 # BENCH_PEERS_ARGS is a list of options
	bash "$HERE/peers.sh" ${BENCH_PEERS_ARGS:-} || rc=1
fi
echo
echo "== bench/soak.sh"
case " $* " in
*" --no-vm "*) echo "soak.sh: not run (--no-vm: it runs in the VM only)" ;;
*) "$HERE/soak.sh" --minutes "${BENCH_SOAK_MINUTES:-${SOAK_MINUTES:-30}}" || rc=1 ;;
esac
exit "$rc"
