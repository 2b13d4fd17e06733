#!/bin/bash
# build-image.sh - the container image of the DaemonSet (config/kubernetes/reclaimd-daemonset.yaml),
# built from the Debian package without any registry: `make image` runs it after `make deb`.
#
# Usage: config/kubernetes/build-image.sh [--save] [--rebuild-base]
#
# 1. A Debian bookworm root file system, debootstrap --variant=minbase with the package's
#    Depends (read from build/reclaimd.deb, as tests/vm/build-rootfs.sh does), trimmed (no apt
#    lists or caches, docs, man pages, locales) and imported with `podman import` as
#    localhost/reclaimd-base:bookworm-<hash>. <hash> covers the suite, the package list and
#    LAYOUT, so it is built once (about a minute, needs root and the Debian mirror) and kept in
#    podman's store and as tests/vm/.cache/image/bookworm-<hash>.tar (beside the VM's rootfs
#    cache, git-ignored).
# 2. `podman build` with config/kubernetes/Containerfile, FROM that local image: installs the
#    .deb with dpkg (docs excluded), tagged localhost/reclaimd:<version> and reclaimd:<version>.
# 3. --save: `podman save` it to build/reclaimd-image.tar (docker-archive, for `docker load` or
#    `ctr -n k8s.io images import`).
# Prints the image's name and size. Exit status: 0 built, 1 failed.
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
MIRROR=${RECLAIMD_VM_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
# Bump when what is done to the tree after debootstrap changes.
LAYOUT=1
DEB=$TOP/build/reclaimd.deb
VERSION=$(sed -n 's/^#define RECLAIMD_VERSION "\(.*\)"/\1/p' "$TOP/include/reclaimd/version.h")

save=0 rebuild=0
for a in "$@"; do
	case $a in
	--save) save=1 ;;
	--rebuild-base) rebuild=1 ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -s "$DEB" ] || { echo "build-image.sh: no $DEB (make deb)" >&2; exit 1; }
command -v podman >/dev/null || { echo "build-image.sh: needs podman (make deps)" >&2; exit 1; }

# The package's shared libraries (its Depends, versions and alternatives dropped).
INCLUDE=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/([^)]*)//; s/|.*//; s/[[:space:]]//g' |
	awk 'NF' | sort -u | paste -sd, -)
hash=$(printf '%s %s %s' "$SUITE" "$INCLUDE" "$LAYOUT" | sha256sum | cut -c1-12)
base=localhost/reclaimd-base:$SUITE-$hash
cache=$TOP/tests/vm/.cache/image
tar=$cache/$SUITE-$hash.tar

if [ "$rebuild" -eq 1 ] || ! podman image exists "$base"; then
	if [ "$rebuild" -eq 1 ] || [ ! -s "$tar" ]; then
		[ "$(id -u)" -eq 0 ] || { echo "build-image.sh: needs root (debootstrap)" >&2; exit 1; }
		command -v debootstrap >/dev/null || { echo "build-image.sh: needs debootstrap (make deps)" >&2; exit 1; }
		mkdir -p "$cache"
		work=$(mktemp -d "$cache/.build.XXXXXX")
		trap 'rm -rf "$work"' EXIT
		root=$work/root
		echo "build-image.sh: debootstrap --variant=minbase $SUITE with $INCLUDE (about a minute)" >&2
		debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$root" "$MIRROR" \
			>"$work/debootstrap.log" 2>&1 || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
		# Nothing in the image runs apt: no package lists, caches, docs, man pages, locales,
		# logs. dpkg skips them for later installs too (the .deb's copyright stays).
		rm -rf "$root"/usr/share/{doc,man,info,locale}/* "$root"/var/lib/apt/lists/* \
			"$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old "$root"/var/log/*
		cat >"$root/etc/dpkg/dpkg.cfg.d/reclaimd-image" <<-'EOF'
		path-exclude=/usr/share/doc/*
		path-include=/usr/share/doc/*/copyright
		path-exclude=/usr/share/man/*
		path-exclude=/usr/share/info/*
		path-exclude=/usr/share/locale/*
		EOF
		: >"$root/etc/machine-id"
		rm -f "$cache"/"$SUITE"-*.tar
		tar -C "$root" --numeric-owner -cf "$work/rootfs.tar" .
		mv "$work/rootfs.tar" "$tar"
		rm -rf "$work"
	fi
	echo "build-image.sh: podman import $tar as $base" >&2
	podman import --quiet "$tar" "$base" >/dev/null
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp "$DEB" "$ctx/reclaimd.deb"
cp "$HERE/Containerfile" "$ctx/Containerfile"
echo "build-image.sh: podman build reclaimd:$VERSION from $base" >&2
old=$(podman image inspect --format '{{.Id}}' "localhost/reclaimd:$VERSION" 2>/dev/null || true)
podman build --quiet --isolation=chroot --build-arg BASE="$base" --build-arg VERSION="$VERSION" \
	-t "localhost/reclaimd:$VERSION" -f "$ctx/Containerfile" "$ctx" >/dev/null
# The image this one replaced, now untagged, goes (unless a container still uses it).
if [ -n "$old" ] && [ "$old" != "$(podman image inspect --format '{{.Id}}' "localhost/reclaimd:$VERSION")" ]; then
	podman rmi "$old" >/dev/null 2>&1 || true
fi
if [ "$save" -eq 1 ]; then
	rm -f "$TOP/build/reclaimd-image.tar"
	podman save --quiet --format docker-archive -o "$TOP/build/reclaimd-image.tar" "localhost/reclaimd:$VERSION"
	echo "build-image.sh: build/reclaimd-image.tar ($(du -h "$TOP/build/reclaimd-image.tar" | cut -f1))" >&2
fi
echo "localhost/reclaimd:$VERSION $(podman image inspect --format '{{.Size}}' "localhost/reclaimd:$VERSION") bytes"
