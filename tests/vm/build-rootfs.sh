#!/bin/bash
# build-rootfs.sh - the Debian bookworm root file system the systemd VM scenarios boot
# (run.sh --systemd): debootstrap --variant=minbase with systemd as /sbin/init, packed as a
# gzip'd cpio archive that the kernel unpacks as its initramfs (rdinit=/sbin/init).
#
# Usage: tests/vm/build-rootfs.sh [--variant containers] [--print-path] [--rebuild]
#
# The archive is cached as tests/vm/.cache/rootfs/bookworm-<hash>.cpio.gz, where <hash> covers
# the suite, the package list and LAYOUT (bump it when the trimming below changes), so changing
# them builds a new one; a clean clone builds it once
# (about a minute and 130 MB; needs root and the Debian mirror). --print-path builds it if
# needed and prints its path on stdout.
#
# --variant containers adds the container runtimes of Debian 12 (podman with crun and conmon,
# docker.io, containerd, runc) and busybox-static, for test-containers.sh; it is cached apart, as
# bookworm-containers-<hash>.cpio.gz, so the default rootfs stays small. Their services are left
# disabled: the scenario configures and starts them.
#
# Besides systemd it holds what installing reclaimd's .deb needs without a network (its shared
# libraries), and the tools the scenarios call (util-linux's mkswap/swapon/zramctl/setpriv,
# passwd's useradd, procps, e2fsprogs, kmod's insmod).
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
MIRROR=${RECLAIMD_VM_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
# Bump when what is done to the tree after debootstrap changes.
LAYOUT=1
INCLUDE=systemd,systemd-sysv,udev,kmod,dbus,libjansson4,libnuma1,libcgroup2,libsystemd0,util-linux,passwd,procps,e2fsprogs
# The shared libraries the package depends on, from the .deb `make deb` built (its Depends,
# versions dropped), so a library the agent gains reaches the rootfs without editing this list.
DEB=${RECLAIMD_DEB:-$HERE/../../build/reclaimd.deb}
if [ -s "$DEB" ]; then
	deps=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/([^)]*)//; s/|.*//; s/[[:space:]]//g' |
		awk 'NF' | sort -u | paste -sd, -)
	[ -n "$deps" ] && INCLUDE=$INCLUDE,$deps
fi

print=0 rebuild=0 variant=
while [ $# -gt 0 ]; do
	case $1 in
	--print-path) print=1 ;;
	--rebuild) rebuild=1 ;;
	--variant) [ $# -ge 2 ] || { echo "build-rootfs.sh: --variant needs a value" >&2; exit 2; }
		variant=$2; shift ;;
	--variant=*) variant=${1#*=} ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
# VLAYOUT: as LAYOUT, for what is done to a variant's tree only (the default's hash stays).
VLAYOUT=
case $variant in
'') name=$SUITE ;;
containers)
	name=$SUITE-containers
	VLAYOUT=c1
	INCLUDE=$INCLUDE,podman,crun,conmon,docker.io,containerd,runc,netavark,busybox-static,iptables
	;;
*) echo "build-rootfs.sh: unknown variant '$variant' (known: containers)" >&2; exit 2 ;;
esac

hash=$(printf '%s %s %s' "$SUITE" "$INCLUDE" "$LAYOUT$VLAYOUT" | sha256sum | cut -c1-12)
cache=$HERE/.cache/rootfs
out=$cache/$name-$hash.cpio.gz
if [ -s "$out" ] && [ "$rebuild" -eq 0 ]; then
	[ "$print" -eq 1 ] && echo "$out"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "build-rootfs.sh: needs root (debootstrap)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "build-rootfs.sh: needs debootstrap (make deps)" >&2; exit 1; }

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
echo "build-rootfs.sh: debootstrap $SUITE${variant:+ ($variant)} into $root (about a minute)" >&2
debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
	tail -n 30 "$work/debootstrap.log" >&2
	[ -f "$root/debootstrap/debootstrap.log" ] && tail -n 30 "$root/debootstrap/debootstrap.log" >&2
	exit 1
}

# Trim what a test VM never reads (docs, man pages, locales, apt lists and caches).
rm -rf "$root"/usr/share/{doc,man,info,locale}/* "$root"/var/cache/apt/*.bin \
	"$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb
# dpkg must keep installing documentation files (reclaimd's .deb carries some).
echo "vmtest" >"$root/etc/hostname"
printf '127.0.0.1 localhost vmtest\n' >"$root/etc/hosts"
: >"$root/etc/machine-id"
# No getty on the serial console (the scenario unit owns it); no units that wait for hardware.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$root/etc/systemd/system/getty@tty1.service"
ln -sf /dev/null "$root/etc/systemd/system/systemd-timesyncd.service"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily.timer"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
ln -sf /dev/null "$root/etc/systemd/system/e2scrub_all.timer"
ln -sf /dev/null "$root/etc/systemd/system/fstrim.timer"
# The root password is empty in a VM that has no network.
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"
# Container runtimes start when the scenario has configured them, not at boot.
if [ "$variant" = containers ]; then
	for u in docker.service docker.socket containerd.service podman.socket podman-restart.service \
		podman-auto-update.timer podman-clean-transient.service; do
		rm -f "$root"/etc/systemd/system/*.wants/"$u"
	done
	# What no scenario runs (docker.io's libnetwork test tools, containerd's v1 shims) and udev's
	# hardware database: about 60 MB of the guest's RAM.
	rm -f "$root"/usr/bin/dnet "$root"/usr/sbin/ovrouter "$root"/usr/bin/containerd-shim \
		"$root"/usr/bin/containerd-shim-runc-v1 "$root"/usr/lib/udev/hwdb.bin
	rm -rf "$root"/usr/lib/udev/hwdb.d
fi

echo "build-rootfs.sh: packing $out" >&2
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$work/rootfs.cpio.gz"
# Older archives of this variant only (a 12-digit hash right after the name).
rm -f "$cache/$name"-????????????.cpio.gz
mv "$work/rootfs.cpio.gz" "$out"
echo "build-rootfs.sh: $(du -h "$out" | cut -f1) in $out" >&2
[ "$print" -eq 1 ] && echo "$out"
exit 0
