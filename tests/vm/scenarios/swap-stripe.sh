#!/bin/sh
# vm-options: --zram-size 128M --data-size 256M
# How the kernel spreads one writer's swap-outs over two zram devices of equal priority, without
# the agent (not part of make check; run: tests/vm/run-tests.sh --kernel 7.3 swap-stripe).
# Two 128 MiB zram devices at priority 100; a memhog's 160 MiB in one cgroup are pushed out with
# memory.reclaim in 16 MiB steps to 96 MiB, and each device's use is printed after each step:
#   A  zram0 swapped on first, then zram1
#   B  zram1 first, then zram0
#   C  as A, the memhog pinned to CPU 0
#   D  as A, transparent huge pages off
# Each case prints "stripe CASE: zram0 KiB zram1 KiB" at the end and passes when the pushes
# reached swap (it measures; it does not judge the split). Results (tests/vm/README.md,
# "Kernels"; the table in docs/kernels.md "Kernel features"): 6.1 and 6.12 split each case about
# evenly; 7.3 gives the device swapped on last nearly all of it and the other 1 to 5 MiB.
set -u
. "$VMTEST_LIB"

echo "kernel $(uname -r), $(nproc) CPUs, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
for d in $(awk 'NR > 1 { print $1 }' /proc/swaps); do swapoff "$d"; done
[ "$(cat /sys/class/zram-control/hot_add)" = 1 ] || { fail swap-stripe-setup "no zram1"; exit 0; }
echo lz4 >/sys/block/zram1/comp_algorithm
echo 128M >/sys/block/zram1/disksize
mkswap /dev/zram0 >/dev/null
mkswap /dev/zram1 >/dev/null

# both_on FIRST SECOND: both devices off, then on at 100 in that order.
both_on() {
	swapoff /dev/zram0 2>/dev/null
	swapoff /dev/zram1 2>/dev/null
	swapon-prio "$1" 100 && swapon-prio "$2" 100
}

# run_case NAME [PREFIX...]: the memhog (started through PREFIX, e.g. taskset) pushed out.
run_case() {
	_name=$1
	shift
	_cg=$CGROOT/stripe-$_name
	mkdir -p "$_cg"
	rm -f /tmp/stripe.ready
	cg_run "$_cg" "$@" memhog --anon 160M --hot-pct 1 --rate 100 --report-interval 30 \
		--ready-file /tmp/stripe.ready >"$RESULTS/memhog-$_name.log" 2>&1
	_pid=$!
	wait_for_file /tmp/stripe.ready 120 || { fail "swap-stripe-$_name" "memhog not ready"; return; }
	_asked=0
	while [ "$_asked" -lt 96 ]; do
		cg_reclaim "$_cg" 16M
		_asked=$((_asked + 16))
		echo "  $_name asked $_asked MiB: zram0 $(swap_used_kib /dev/zram0) KiB, zram1 $(swap_used_kib /dev/zram1) KiB"
	done
	_z0=$(swap_used_kib /dev/zram0)
	_z1=$(swap_used_kib /dev/zram1)
	echo "stripe $_name: zram0 $_z0 zram1 $_z1"
	# The measurement holds when the pushes reached swap (at least 64 of the 96 MiB).
	if [ $((_z0 + _z1)) -ge $((64 * 1024)) ]; then
		pass "swap-stripe-$_name" "zram0 $((_z0 / 1024)) MiB, zram1 $((_z1 / 1024)) MiB"
	else
		fail "swap-stripe-$_name" "only $(((_z0 + _z1) / 1024)) MiB reached swap"
	fi
	kill "$_pid"
	wait "$_pid" 2>/dev/null
	rmdir "$_cg"
}

both_on /dev/zram0 /dev/zram1 && run_case A
both_on /dev/zram1 /dev/zram0 && run_case B
both_on /dev/zram0 /dev/zram1 && run_case C taskset -c 0
echo never >/sys/kernel/mm/transparent_hugepage/enabled
both_on /dev/zram0 /dev/zram1 && run_case D
