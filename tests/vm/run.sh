#!/bin/bash
# run.sh - run one scenario script in a qemu VM with a Debian kernel (6.12 unless --kernel).
#
# Usage: tests/vm/run.sh [options] SCENARIO_SCRIPT OUTDIR
#
# Builds an initramfs (busybox, kernel modules, the agent, the workloads, the
# scenario and guest/init), boots it with two NUMA nodes (one vCPU each unless
# --cpus-per-node says otherwise), zram + disk swap,
# and collects what the scenario leaves in $RESULTS (/results in the guest)
# into OUTDIR, together with console.log (serial console), qemu.log (qemu's
# own messages) and run-info.txt.
#
# Options:
#   --kernel SERIES     Debian kernel to boot: 6.1, 6.12 or 7.3 (default: $RECLAIMD_VM_KERNEL,
#                       else 6.12); fetch-kernel.sh downloads it the first time
#   --agent PATH        agent binary (default: <repo>/reclaimd if it exists);
#                       installed as /usr/local/bin/reclaimd with its shared libs
#   --no-agent          do not include the agent
#   --with-stress-ng    include stress-ng and its shared libraries
#   --file SRC:DST      copy SRC (file or directory) to DST in the guest (repeatable)
#   --exe SRC:DST       install the executable SRC as DST in the guest with the
#                       shared libraries ldd names for it (repeatable)
#   --env KEY=VALUE     export KEY=VALUE to the scenario (repeatable)
#   --timeout SEC       kill the VM after SEC seconds (default 600); the scenario
#                       itself is stopped earlier so that its results survive
#   --append ARGS       extra kernel command line arguments
#   --node-mem SIZE     memory per NUMA node, or SIZE0,SIZE1 (default 768M)
#   --cpus-per-node N   vCPUs per NUMA node (default 1): -smp 2*N, node 0 has
#                       CPUs 0..N-1, node 1 CPUs N..2N-1 (one socket per node)
#   --slow-node SIZE    add a CPU-less NUMA node 2 of SIZE that ACPI HMAT (-machine hmat=on)
#                       describes as slower (100 ns, 2 GB/s against 10-20 ns, 10-20 GB/s):
#                       Linux 6.12 puts it in a lower memory tier (tools/probe-tiers.sh)
#   --zram-size SIZE    zram swap size, 0 for none (default 512M)
#   --zram-algo NAME    zram compressor (default lz4)
#   --swap-size SIZE    swap disk size (default 1G)
#   --no-disk-swap      do not swapon the swap disk (it is still attached)
#   --data-size SIZE    ext2 data disk mounted at /data, 0 for none (default 256M)
#   --results-size SIZE size of the disk that carries results back (default 64M)
#   --hostfwd HPORT:GPORT  a virtio NIC on qemu's user network, closed to everything outside
#                       (restrict=on) but for TCP from 127.0.0.1:HPORT on the host to GPORT in
#                       the guest; the guest's eth0 is 10.0.2.15/24 (guest/init)
#   --systemd           boot the Debian bookworm rootfs of build-rootfs.sh (cached) with
#                       systemd as PID 1 instead of busybox; guest/systemd-runner runs the
#                       scenario as the unit vmtest.service. No agent is copied in unless
#                       --agent is given (the scenario installs the .deb, --file'd in)
#   --rootfs-variant NAME  with --systemd (implied): boot build-rootfs.sh's variant NAME
#                       (containers: the container runtimes too) instead of the default rootfs
#   --strict            also fail (exit 3) when the scenario exits non-zero or
#                       OUTDIR/results.txt has a FAIL line
#   -v, --verbose       also show the serial console on stdout
#   --keep              keep the work directory (initramfs, disk images)
#
# SIZE is a number with an optional K, M or G suffix (powers of 1024).
#
# Exit status: 0 when the scenario ran to its end in the guest and the results
# were extracted (the scenario's own exit code is in OUTDIR/scenario.rc);
# 1 when the VM or the result transfer failed; 2 on usage errors; 3 see
# --strict; 124 when the host-side timeout killed the VM.
#
# OUTDIR is created if needed. A non-empty OUTDIR is only emptied if an earlier
# run.sh left its marker file (.vm-run) there; otherwise run.sh refuses.
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

die() {
	echo "run.sh: $*" >&2
	exit 1
}
usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# Bytes in SIZE ("512M", "1G", "65536"), or fail.
size_bytes() {
	local s=$1 n mult=1
	case $s in
	*[kK]) n=${s%?} mult=1024 ;;
	*[mM]) n=${s%?} mult=$((1024 * 1024)) ;;
	*[gG]) n=${s%?} mult=$((1024 * 1024 * 1024)) ;;
	*) n=$s ;;
	esac
	case $n in '' | *[!0-9]*) die "bad size '$s'" ;; esac
	echo $((n * mult))
}

# Quotes $1 for a POSIX shell (single quotes).
sq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

agent=$REPO/reclaimd
agent_explicit=0
with_stress=0
files=()
exes=()
envs=()
timeout_s=600
append=
node_mem=768M
cpus_per_node=1
zram_size=512M
zram_algo=lz4
swap_size=1G
disk_swap=1
data_size=256M
results_size=64M
strict=0
verbose=0
keep=0
systemd=0
slow_node=
rootfs_variant=
hostfwd=
kernel=${RECLAIMD_VM_KERNEL:-}

while [ $# -gt 0 ]; do
	opt=$1
	val=
	case $opt in
	--*=*)
		val=${opt#*=}
		opt=${opt%%=*}
		;;
	--kernel | --agent | --file | --exe | --env | --timeout | --append | --node-mem | --zram-size | \
		--zram-algo | --swap-size | --data-size | --results-size | --cpus-per-node | --slow-node | \
		--rootfs-variant | --hostfwd)
		[ $# -ge 2 ] || die "$opt needs a value"
		val=$2
		shift
		;;
	esac
	shift
	case $opt in
	--kernel) kernel=$val ;;
	--agent) agent=$val agent_explicit=1 ;;
	--no-agent) agent= ;;
	--with-stress-ng) with_stress=1 ;;
	--file) files+=("$val") ;;
	--exe) exes+=("$val") ;;
	--env) envs+=("$val") ;;
	--timeout) timeout_s=$val ;;
	--append) append=$val ;;
	--node-mem) node_mem=$val ;;
	--cpus-per-node) cpus_per_node=$val ;;
	--slow-node) slow_node=$val ;;
	--zram-size) zram_size=$val ;;
	--zram-algo) zram_algo=$val ;;
	--swap-size) swap_size=$val ;;
	--no-disk-swap) disk_swap=0 ;;
	--data-size) data_size=$val ;;
	--results-size) results_size=$val ;;
	--strict) strict=1 ;;
	--systemd) systemd=1 ;;
	--rootfs-variant) systemd=1 rootfs_variant=$val ;;
	--hostfwd) hostfwd=$val hostfwd_given=1 ;;
	-v | --verbose) verbose=1 ;;
	--keep) keep=1 ;;
	-h | --help) usage ;;
	--) break ;;
	-*) echo "run.sh: unknown option $opt" >&2 && usage ;;
	*)
		set -- "$opt" "$@"
		break
		;;
	esac
done
[ $# -eq 2 ] || usage
scenario=$1
outdir=$2
[ -f "$scenario" ] || die "no scenario script $scenario"
case $timeout_s in '' | *[!0-9]*) die "bad --timeout '$timeout_s'" ;; esac
case $cpus_per_node in '' | *[!0-9]* | 0*) die "bad --cpus-per-node '$cpus_per_node' (1..8)" ;; esac
[ "$cpus_per_node" -le 8 ] || die "bad --cpus-per-node '$cpus_per_node' (1..8)"
if [ -n "$hostfwd" ] || [ "${hostfwd_given:-0}" = 1 ]; then
	[ "$systemd" -eq 0 ] || die "--hostfwd is for the busybox VM, not --systemd"
	case $hostfwd in
	[1-9]*:[1-9]*) ;;
	*) die "bad --hostfwd '$hostfwd' (HPORT:GPORT, 1..65535 each)" ;;
	esac
	for port in "${hostfwd%%:*}" "${hostfwd#*:}"; do
		case $port in *[!0-9]*) die "bad --hostfwd '$hostfwd' (HPORT:GPORT, 1..65535 each)" ;; esac
		[ "${#port}" -le 5 ] && [ "$port" -le 65535 ] || die "bad --hostfwd '$hostfwd' (HPORT:GPORT, 1..65535 each)"
	done
fi

# CPU list of NUMA node $1 in qemu's -numa syntax ("0", "2-3").
node_cpus() {
	local first=$(($1 * cpus_per_node)) last=$((($1 + 1) * cpus_per_node - 1))
	if [ "$first" -eq "$last" ]; then echo "$first"; else echo "$first-$last"; fi
}

# Memory per node, in MiB.
mem0=${node_mem%%,*}
mem1=${node_mem#*,}
mem0_mib=$(($(size_bytes "$mem0") / 1048576))
mem1_mib=$(($(size_bytes "$mem1") / 1048576))
if [ "$mem0_mib" -lt 128 ] || [ "$mem1_mib" -lt 128 ]; then
	die "--node-mem: at least 128M per node"
fi
size_bytes "$zram_size" >/dev/null
size_bytes "$swap_size" >/dev/null
size_bytes "$data_size" >/dev/null
size_bytes "$results_size" >/dev/null

# The scenario gets most of the time; the rest is for booting and the export. The scenario's clock
# starts after the boot (about a minute for a systemd rootfs under TCG, more on a loaded host), the
# host's when qemu starts: a systemd run keeps 150 s of the host's time for both.
if [ "$systemd" -eq 1 ] && [ "$timeout_s" -gt 300 ]; then
	scenario_timeout=$((timeout_s - 150))
elif [ "$timeout_s" -gt 60 ]; then
	scenario_timeout=$((timeout_s - 30))
else
	scenario_timeout=$((timeout_s / 2))
fi

# Under systemd the agent comes from its package, not from the build tree.
[ "$systemd" -eq 1 ] && [ "$agent_explicit" -eq 0 ] && agent=
if [ -n "$agent" ] && [ ! -x "$agent" ]; then
	[ "$agent_explicit" -eq 1 ] && die "agent $agent is not an executable file"
	echo "run.sh: note: no agent at $agent, running without it" >&2
	agent=
fi

# --- Output directory ---------------------------------------------------------
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
if [ -n "$(ls -A "$outdir")" ]; then
	[ -f "$outdir/.vm-run" ] || die "$outdir is not empty and was not written by run.sh; refusing to clear it"
	find "$outdir" -mindepth 1 -delete
fi
touch "$outdir/.vm-run"

# --- Kernel, workloads, tools -------------------------------------------------
kdir=$("$HERE/fetch-kernel.sh" ${kernel:+--kernel "$kernel"} --print-dir) ||
	die "no kernel${kernel:+ $kernel} (fetch-kernel.sh failed)"
make -s -C "$HERE/workloads" >&2
make -s -C "$HERE/tools" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-vm.XXXXXX")
if [ "$keep" -eq 1 ]; then
	echo "run.sh: work directory $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi

# --- Initramfs ----------------------------------------------------------------
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,usr/local/lib,lib/modules,etc,root}
mkdir -p "$root"/{proc,sys,dev,tmp,run,results}

if [ "$systemd" -eq 1 ]; then
	# The initramfs is this tree and the Debian rootfs, two archives one after the other (the
	# kernel unpacks both). The rootfs's /bin, /sbin, /lib are usrmerge symlinks.
	rmdir "$root"/bin "$root"/sbin "$root"/lib/modules "$root"/lib
	rootfs_cpio=$("$HERE/build-rootfs.sh" ${rootfs_variant:+--variant "$rootfs_variant"} --print-path)
	mkdir -p "$root"/usr/lib/modules "$root"/etc/systemd/system/multi-user.target.wants
else
	install -m 0755 /bin/busybox "$root/bin/busybox"
	for applet in $("$root/bin/busybox" --list-full); do
		[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
	done
fi

# copy_elf SRC DST: installs an executable and, for a dynamic one, every shared
# library ldd names (and the dynamic loader) at the same path in the guest.
copy_elf() {
	local src=$1 dst=$2 line lib
	install -D -m 0755 "$src" "$root$dst"
	while read -r line; do
		case $line in
		*"=> not found"*) die "$src: missing library: $line" ;;
		*"=> /"*) lib=${line#*=> } ;;
		/*) lib=$line ;;
		*) continue ;; # linux-vdso.so.1, "statically linked", ...
		esac
		lib=${lib%% (*}
		[ -e "$root$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
	done < <(ldd "$src" 2>/dev/null || true)
}

[ -n "$agent" ] && copy_elf "$agent" /usr/local/bin/reclaimd
# reclaimctl, built beside the agent, for scenarios that ask the agent through its status socket.
[ -n "$agent" ] && [ -x "$(dirname "$agent")/reclaimctl" ] &&
	copy_elf "$(dirname "$agent")/reclaimctl" /usr/local/bin/reclaimctl
[ "$with_stress" -eq 1 ] && copy_elf "$(command -v stress-ng)" /usr/bin/stress-ng
for exe in "$HERE"/workloads/build/* "$HERE"/tools/build/*; do
	[ -f "$exe" ] && [ -x "$exe" ] && copy_elf "$exe" "/usr/local/bin/${exe##*/}"
done

for spec in "${exes[@]}"; do
	src=${spec%%:*}
	dst=${spec#*:}
	if [ "$src" = "$spec" ] || [ -z "$src" ]; then
		die "--exe wants SRC:DST, got '$spec'"
	fi
	case $dst in /*) ;; *) die "--exe: DST must be absolute: '$spec'" ;; esac
	if [ ! -f "$src" ] || [ ! -x "$src" ]; then
		die "--exe: $src is not an executable file"
	fi
	copy_elf "$src" "$dst"
done

if [ "$systemd" -eq 1 ]; then
	mkdir -p "$root/usr/lib/modules/vmtest"
	cp "$kdir"/modules/*.ko "$kdir/modules.order" "$root/usr/lib/modules/vmtest/"
	install -D -m 0755 "$HERE/guest/systemd-runner" "$root/usr/local/sbin/vmtest-runner"
	install -m 0644 "$HERE/guest/vmtest.service" "$root/etc/systemd/system/vmtest.service"
	ln -s ../vmtest.service "$root/etc/systemd/system/multi-user.target.wants/vmtest.service"
else
	cp "$kdir"/modules/*.ko "$kdir/modules.order" "$root/lib/modules/"
	install -m 0755 "$HERE/guest/init" "$root/init"
fi
install -m 0644 "$HERE/guest/lib.sh" "$root/usr/local/lib/vmtest.sh"
install -m 0755 "$scenario" "$root/scenario.sh"

for spec in "${files[@]}"; do
	src=${spec%%:*}
	dst=${spec#*:}
	if [ "$src" = "$spec" ] || [ -z "$src" ]; then
		die "--file wants SRC:DST, got '$spec'"
	fi
	case $dst in /*) ;; *) die "--file: DST must be absolute: '$spec'" ;; esac
	[ -e "$src" ] || die "--file: no such file $src"
	mkdir -p "$root$(dirname "$dst")"
	cp -a "$src" "$root$dst"
done

if [ "$systemd" -eq 0 ]; then
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
	printf 'root:x:0:\n' >"$root/etc/group"
fi
{
	echo "ZRAM_SIZE=$(sq "$zram_size")"
	echo "ZRAM_ALGO=$(sq "$zram_algo")"
	echo "DISK_SWAP=$disk_swap"
	[ "$(size_bytes "$data_size")" -gt 0 ] && echo "DATA_DISK=1"
	echo "SCENARIO_TIMEOUT=$scenario_timeout"
	[ -z "$hostfwd" ] || echo "NET=1"
	echo "KERNEL_SERIES=$(sq "$(sed -n 's/^series=//p' "$kdir/STAMP")")"
} >"$root/etc/vm.conf"
: >"$root/etc/scenario.env"
for kv in "${envs[@]}"; do
	key=${kv%%=*}
	case $key in '' | *[!A-Za-z0-9_]* | [0-9]*) die "--env wants KEY=VALUE, got '$kv'" ;; esac
	[ "$key" != "$kv" ] || die "--env wants KEY=VALUE, got '$kv'"
	echo "export $key=$(sq "${kv#*=}")" >>"$root/etc/scenario.env"
done

# Everything in the guest is root's (cpio -R 0:0) and, whatever the umask here or the modes of
# the --file sources, writable by root only: reclaimd refuses a configuration file that anyone
# else could change, or that sits in a directory they could (docs/operating.md "Safety"). /tmp is a
# tmpfs of mode 1777 in the guest (guest/init; the rootfs's own /tmp under --systemd).
chmod -R go-w "$root"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$work/initramfs.cpio"
if [ "$systemd" -eq 1 ]; then
	# This tree first: the kernel finds the end of an uncompressed archive reliably, not
	# always that of a compressed one ("invalid magic at start of compressed archive"). No
	# file here is in the rootfs, so the order does not decide what wins.
	cat "$work/initramfs.cpio" "$rootfs_cpio" >"$work/initramfs.full"
	mv "$work/initramfs.full" "$work/initramfs.cpio"
fi

# --- Disks --------------------------------------------------------------------
# vda: swap, vdb: results, vdc: data (the guest finds them by serial number).
truncate -s "$swap_size" "$work/swap.img"
truncate -s "$results_size" "$work/results.img"
drives=()
add_disk() { # NAME: $work/NAME.img as a virtio disk with serial number NAME
	drives+=(-drive "file=$work/$1.img,if=none,id=$1,format=raw"
		-device "virtio-blk-pci,drive=$1,serial=$1")
}
add_disk swap
add_disk results
if [ "$(size_bytes "$data_size")" -gt 0 ]; then
	truncate -s "$data_size" "$work/data.img"
	add_disk data
fi

# --- Boot ---------------------------------------------------------------------
cmdline="console=ttyS0 quiet panic=-1${append:+ $append}"
slow_mib=0
[ -z "$slow_node" ] || slow_mib=$(($(size_bytes "$slow_node") / 1024 / 1024))
[ "$systemd" -eq 1 ] && cmdline="$cmdline rdinit=/sbin/init systemd.show_status=0"
# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
qemu=(
	qemu-system-x86_64
	-nodefaults -no-user-config -no-reboot
	-accel tcg,thread=multi -cpu max
	-smp "$((2 * cpus_per_node)),sockets=2,cores=$cpus_per_node,threads=1" -m "$((mem0_mib + mem1_mib + slow_mib))M"
	-object "memory-backend-ram,id=m0,size=${mem0_mib}M"
	-object "memory-backend-ram,id=m1,size=${mem1_mib}M"
	-numa "node,nodeid=0,cpus=$(node_cpus 0),memdev=m0${slow_node:+,initiator=0}"
	-numa "node,nodeid=1,cpus=$(node_cpus 1),memdev=m1${slow_node:+,initiator=1}"
	-kernel "$kdir/vmlinux" -initrd "$work/initramfs.cpio" -append "$cmdline"
	"${drives[@]}"
	-display none -monitor none -serial stdio
)
if [ -n "$hostfwd" ]; then
	# romfile=: no PXE option ROM (the kernel is booted directly).
	qemu+=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${hostfwd%%:*}-:${hostfwd#*:}"
		-device "virtio-net-pci,netdev=n0,romfile=")
fi
if [ -n "$slow_node" ]; then
	# Node 2 without CPUs; every (initiator, target) pair needs latency and bandwidth in HMAT.
	qemu+=(-machine pc,hmat=on -object "memory-backend-ram,id=m2,size=${slow_mib}M"
		-numa "node,nodeid=2,memdev=m2,initiator=0")
	for i in 0 1; do
		for t in 0 1 2; do
			if [ "$t" = 2 ]; then lat=100 bw=2G; elif [ "$t" = "$i" ]; then lat=10 bw=20G; else lat=20 bw=10G; fi
			qemu+=(-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat"
				-numa "hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
		done
	done
fi
{
	echo "scenario=$scenario"
	echo "kernel=$(sed -n 's/^package=//p' "$kdir/STAMP")"
	echo "kernel_series=$(sed -n 's/^series=//p' "$kdir/STAMP")"
	echo "agent=${agent:-none}"
	echo "timeout_s=$timeout_s scenario_timeout_s=$scenario_timeout"
	echo "initramfs_bytes=$(stat -c %s "$work/initramfs.cpio")"
	echo "qemu=${qemu[*]}"
} >"$outdir/run-info.txt"

echo "run.sh: booting $(basename "$scenario") (console: $outdir/console.log)" >&2
start=$(date +%s.%N)
# Two failures at boot that are the emulator's, not the scenario's, get one more boot:
#  - qemu itself killed by a signal other than timeout's (exit 128+N, not 137) before the guest
#    printed anything (seen once: SIGSEGV under TCG at boot);
#  - a kernel panic before the guest's init started the scenario (seen once: an int3 Oops in
#    key_set_index_key() 1.5 s into boot, where the kernel patches its static branches, under
#    multi-threaded TCG).
# Anything else is reported as it is.
for attempt in 1 2; do
	set +e
	if [ "$verbose" -eq 1 ]; then
		timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>"$outdir/qemu.log" |
			tr -d '\r' | tee "$outdir/console.log"
	else
		timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>"$outdir/qemu.log" |
			tr -d '\r' >"$outdir/console.log"
	fi
	qrc=${PIPESTATUS[0]}
	set -e
	if [ "$attempt" -eq 1 ] && [ "$qrc" -gt 128 ] && [ "$qrc" -ne 137 ] && [ ! -s "$outdir/console.log" ]; then
		echo "run.sh: qemu died at boot (exit $qrc, nothing on the console): booting again" >&2
		echo "qemu_crash_retry=exit $qrc" >>"$outdir/run-info.txt"
		continue
	fi
	if [ "$attempt" -eq 1 ] && grep -q 'Kernel panic' "$outdir/console.log" &&
		! grep -q 'vm-init: running scenario' "$outdir/console.log"; then
		echo "run.sh: the kernel panicked at boot, before the scenario: booting again" >&2
		cp "$outdir/console.log" "$outdir/console-boot-panic.log"
		echo "boot_panic_retry=$(grep -m1 -E 'RIP:|Kernel panic' "$outdir/console.log")" >>"$outdir/run-info.txt"
		continue
	fi
	break
done
elapsed=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
echo "vm_wall_s=$elapsed qemu_rc=$qrc" >>"$outdir/run-info.txt"

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "run.sh: TIMEOUT: VM killed after ${timeout_s}s; see $outdir/console.log" >&2
	# The guest writes its results only at the end; whatever archive is on the disk (none, or a
	# complete one when the kill came during the power-off) is extracted for the post-mortem.
	tar -xf "$work/results.img" -C "$outdir" --no-same-owner 2>/dev/null &&
		echo "run.sh: results found after the timeout, in $outdir" >&2
	exit 124
fi
[ "$qrc" -eq 0 ] || die "qemu failed (exit $qrc); see $outdir/qemu.log"

# The guest wrote a tar archive to the start of the results disk; the zeroes
# after it read as the end of the archive.
if ! tar -xf "$work/results.img" -C "$outdir" --no-same-owner 2>"$work/tar.err"; then
	cat "$work/tar.err" >&2
	die "could not extract results; see $outdir/console.log"
fi
[ -f "$outdir/scenario.rc" ] || die "the scenario did not finish (no scenario.rc); see $outdir/console.log"
src=$(cat "$outdir/scenario.rc")
msg="run.sh: done in ${elapsed}s, scenario exit code $src"
[ -f "$outdir/scenario.timeout" ] && msg="$msg (scenario timed out)"
echo "$msg; results in $outdir" >&2
if [ "$strict" -eq 1 ]; then
	if [ "$src" != 0 ]; then
		exit 3
	fi
	if grep -q '^FAIL' "$outdir/results.txt" 2>/dev/null; then
		grep '^FAIL' "$outdir/results.txt" >&2
		exit 3
	fi
fi
exit 0
