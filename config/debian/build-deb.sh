#!/bin/bash
# build-deb.sh VERSION STAGE OUTDIR - turns the tree "make install DESTDIR=STAGE PREFIX=/usr"
# staged into OUTDIR/reclaimd_VERSION_ARCH.deb with dpkg-deb (no debian/ source dir needed).
#
# Adds what a Debian binary package carries besides the files: DEBIAN/control (Depends from the
# packages that own the libraries ldd names for each binary, at the version installed here, via
# dpkg-shlibdeps in a throw-away debian/ dir), conffiles (/etc/reclaimd/reclaimd.json), the
# maintainer scripts, md5sums, the DEP-5 copyright and changelog.Debian.gz. Binaries are
# stripped, man pages and docs compressed (Debian policy 12.3, 12.1).
set -eu -o pipefail
[ $# -eq 3 ] || { echo "usage: $0 VERSION STAGE OUTDIR" >&2; exit 2; }
version=$1 stage=$2 outdir=$3
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
pkg=reclaimd
doc=$stage/usr/share/doc/$pkg

[ -x "$stage/usr/sbin/reclaimd" ] || { echo "build-deb.sh: $stage/usr/sbin/reclaimd missing" >&2; exit 1; }

# Files: stripped binaries, compressed man pages and docs, DEP-5 copyright, changelog.
bins=()
for b in "$stage"/usr/sbin/* "$stage"/usr/bin/*; do
	strip --remove-section=.comment --remove-section=.note --strip-unneeded "$b"
	bins+=("$b")
done
find "$stage/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9n {} +
gzip -9n "$doc/README.md" "$doc"/docs/*.md
sed -i 's|file:///usr/share/doc/reclaimd/README.md$|file:///usr/share/doc/reclaimd/README.md.gz|' \
	"$stage/lib/systemd/system/reclaimd.service"
install -m 0644 "$here/copyright" "$doc/copyright"
install -d -m 0755 "$stage/etc/reclaimd/reclaimd.d" # drop-ins (docs/configuration.md), shipped empty
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}")/" \
	"$here/changelog" | gzip -9n >"$doc/changelog.Debian.gz"

# Depends: dpkg-shlibdeps wants to run in a source tree with debian/control.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" >"$tmp/debian/control"
abs_bins=()
for b in "${bins[@]}"; do abs_bins+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"); done
(cd "$tmp" && dpkg-shlibdeps -O "${abs_bins[@]}" 2>"$tmp/shlibdeps.err") >"$tmp/substvars" || {
	cat "$tmp/shlibdeps.err" >&2
	exit 1
}
depends=$(sed -n 's/^shlibs:Depends=//p' "$tmp/substvars")
[ -n "$depends" ] || { echo "build-deb.sh: no dependencies computed" >&2; exit 1; }

# DEBIAN/
mkdir -p "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
	"$here/control.in" >"$stage/DEBIAN/control"
(cd "$stage" && find etc -type f | sed 's|^|/|' | sort) >"$stage/DEBIAN/conffiles"
for s in postinst prerm postrm; do install -m 0755 "$here/$s" "$stage/DEBIAN/$s"; done
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z |
	xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"

mkdir -p "$outdir"
out=$outdir/${pkg}_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "build-deb.sh: $out (Depends: $depends)"
