#!/usr/bin/env bash
# probe-tiers.sh - does qemu + the cached guest kernel make a lower memory tier?
#
# Boots the kernel of tests/vm/.cache/kernel/current (no scenario, no agent) with three NUMA
# nodes: 0 and 1 with one vCPU each (DRAM), 2 with no CPU, described through ACPI HMAT
# (-machine hmat=on, -numa hmat-lb) as ten times the latency and a tenth of the bandwidth of the
# others, then prints what the guest sees: /sys/devices/virtual/memory_tiering/*/nodelist,
# /sys/kernel/mm/numa/demotion_enabled, each node's cpulist, and the kernel's memory-tier and
# HMAT lines. A guest that puts node 2 in a tier of its own (memory_tier<N>, N > 4) can run the
# tier VM test; one that lists all three nodes in memory_tier4 cannot.
#   tests/vm/tools/probe-tiers.sh [KERNEL_DIR]     (prints the guest's console; ~1-3 min under TCG)
set -eu
HERE=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:-$HERE/.cache/kernel/current}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/root/bin" "$work/root/proc" "$work/root/sys" "$work/root/dev"
install -m 0755 /bin/busybox "$work/root/bin/busybox"
cat >"$work/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "=== probe-tiers: kernel $(uname -r)"
for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -e "$d/nodelist" ] && echo "=== tier $(basename "$d"): nodes $(cat "$d/nodelist")"
done
[ -d /sys/devices/virtual/memory_tiering ] || echo "=== no /sys/devices/virtual/memory_tiering"
echo "=== demotion_enabled: $(cat /sys/kernel/mm/numa/demotion_enabled 2>&1)"
for n in /sys/devices/system/node/node*; do
	echo "=== $(basename "$n"): cpus '$(cat "$n/cpulist")' $(grep MemTotal "$n/meminfo")"
done
dmesg | grep -iE 'hmat|memory.tier|memtier|demotion|adistance' | sed 's/^/=== dmesg: /'
poweroff -f
INIT
chmod 0755 "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"

lb() { # initiator target latency_ns bandwidth
	echo "-numa hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=access-latency,latency=$3"
	echo "-numa hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=access-bandwidth,bandwidth=$4"
}
# shellcheck disable=SC2046 # lb's words are qemu options
timeout 600 qemu-system-x86_64 -nodefaults -no-user-config -no-reboot \
	-machine pc,hmat=on -accel tcg,thread=multi -cpu max \
	-smp 2,sockets=2,cores=1,threads=1 -m 1536M \
	-object memory-backend-ram,id=m0,size=512M \
	-object memory-backend-ram,id=m1,size=512M \
	-object memory-backend-ram,id=m2,size=512M \
	-numa node,nodeid=0,cpus=0,memdev=m0,initiator=0 \
	-numa node,nodeid=1,cpus=1,memdev=m1,initiator=1 \
	-numa node,nodeid=2,memdev=m2,initiator=0 \
	-numa dist,src=0,dst=1,val=21 -numa dist,src=0,dst=2,val=30 -numa dist,src=1,dst=2,val=30 \
	$(lb 0 0 10 20G) $(lb 0 1 20 10G) $(lb 0 2 100 2G) \
	$(lb 1 0 20 10G) $(lb 1 1 10 20G) $(lb 1 2 100 2G) \
	-kernel "$kdir/vmlinux" -initrd "$work/initramfs.cpio" \
	-append "console=ttyS0 loglevel=4 panic=-1" \
	-display none -monitor none -serial stdio
