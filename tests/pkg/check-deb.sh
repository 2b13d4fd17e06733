#!/usr/bin/env bash
# check-deb.sh - make deb (dpkg-buildpackage on debian/, debhelper) builds
# build/reclaimd_<version>_<arch>.deb with what docs/operating.md ("Installing") says it holds: the
# binaries, the unit (installed, not enabled), /etc/reclaimd/reclaimd.json as the only conffile, the
# empty drop-in directory /etc/reclaimd/reclaimd.d/, the man pages, README.md and every docs/*.md;
# the configuration and its directories have modes reclaimd accepts; lintian finds no error (its
# warnings are printed; docs/operating.md "Installing" lists them and why); and the build is
# reproducible: a second build in another directory gives the same bytes, no file holds the build
# directory's path, no file is dated after debian/changelog's entry (SOURCE_DATE_EPOCH).
# Run from the repository root (make check-unit; two package builds, about two minutes).
# Ends with "check-deb: N passed, N failed, N skipped" (tests/run-unit.sh counts it).
set -u
cd "$(dirname "$0")/../.."
TEST_NAME=check-deb
. tests/lib.sh

checks="deb-builds deb-contents deb-conffiles deb-config-safe deb-unit-not-enabled deb-lintian
deb-reproducible deb-no-build-path deb-timestamps"
for tool in dpkg-buildpackage dh help2man python3 git; do
	if ! command -v $tool >/dev/null; then
		for c in $checks; do skip "$c: no $tool (make deps installs it)"; done
		summary
	fi
done
start=$(date +%s)
if ! out=$(make -s deb 2>&1); then
	fail "deb-builds: make deb failed: $(echo "$out" | tail -n 5 | tr '\n' ' ')"
	summary
fi
version=$(sed -n 's/^#define RECLAIMD_VERSION "\(.*\)"/\1/p' include/reclaimd/version.h)
arch=$(dpkg --print-architecture)
deb=build/reclaimd_${version}-1_${arch}.deb
if [ -s "$deb" ] && cmp -s "$deb" build/reclaimd.deb; then
	pass "deb-builds: $deb ($(($(stat -c %s "$deb") / 1024)) KiB, $(($(date +%s) - start)) s; $(dpkg-deb -f "$deb" Depends))"
else
	fail "deb-builds: no $deb, or build/reclaimd.deb is not the same file"
	summary
fi

list=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|')
want="/usr/sbin/reclaimd /lib/systemd/system/reclaimd.service /etc/reclaimd/reclaimd.json
/etc/reclaimd/reclaimd.d/
/usr/share/man/man8/reclaimd.8.gz /usr/share/man/man5/reclaimd.json.5.gz
/usr/share/doc/reclaimd/README.md.gz /usr/share/doc/reclaimd/copyright
/usr/share/doc/reclaimd/changelog.Debian.gz /usr/bin/reclaimctl
/usr/share/man/man8/reclaimctl.8.gz"
missing=
for f in $want; do
	printf '%s\n' "$list" | grep -qxF "$f" || missing="$missing $f"
done
# Every page of docs/ (dh_compress compresses those over 4 kB).
ndocs=0
for d in docs/*.md; do
	ndocs=$((ndocs + 1))
	f=/usr/share/doc/reclaimd/$d
	printf '%s\n' "$list" | grep -qxE "$f(\.gz)?" || missing="$missing $f"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -e "$deb" "$tmp/DEBIAN"
dpkg-deb -x "$deb" "$tmp/root"
unit=$tmp/root/lib/systemd/system/reclaimd.service
grep -q '^ExecStart=/usr/sbin/reclaimd ' "$unit" || missing="$missing ExecStart=/usr/sbin/reclaimd"
# Documentation= names files the package holds.
for u in $(sed -n 's/^Documentation=//p' "$unit"); do
	case $u in file://*) [ -e "$tmp/root${u#file://}" ] || missing="$missing Documentation=$u" ;; esac
done
if [ -z "$missing" ]; then
	pass "deb-contents: binaries, unit, drop-in directory, man pages, README, $ndocs docs/ pages, copyright, changelog"
else
	fail "deb-contents: missing$missing"
fi

conffiles=$(cat "$tmp/DEBIAN/conffiles" 2>/dev/null)
if [ "$conffiles" = /etc/reclaimd/reclaimd.json ]; then
	pass "deb-conffiles: /etc/reclaimd/reclaimd.json, and nothing else"
else
	fail "deb-conffiles: want only /etc/reclaimd/reclaimd.json, got: $(echo "$conffiles" | tr '\n' ' ')"
fi

# The configuration as installed passes reclaimd's own check (docs/operating.md "Safety"): the
# file and the directories the package makes for it are root's and writable by root only.
bad=$(dpkg-deb -c "$deb" | awk '$NF == "./" || $NF == "./etc/" || $NF == "./etc/reclaimd/" ||
	$NF == "./etc/reclaimd/reclaimd.json" || $NF == "./etc/reclaimd/reclaimd.d/" {
		if ($2 != "root/root" || substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w") print $1, $2, $NF
		n++
	} END { if (n != 5) print "only", n + 0, "of ./ ./etc/ ./etc/reclaimd/ ./etc/reclaimd/reclaimd.json ./etc/reclaimd/reclaimd.d/ listed" }')
if [ -z "$bad" ]; then
	pass "deb-config-safe: /etc/reclaimd/reclaimd.json, reclaimd.d/ and their directories are root/root, not group- or other-writable"
else
	fail "deb-config-safe: $(printf '%s; ' "$bad")"
fi

# Not enabled: dh_installsystemd --no-enable writes the snippet that enables the unit only when
# it was installed and enabled before ("debian-installed"), never on a first install (its
# default snippet enables it then: "was-enabled defaults to true"). Not started: the only start
# is deb-systemd-invoke's, which starts no disabled unit. The VM test (test-systemd) checks both
# on a real dpkg -i.
pi=$tmp/DEBIAN/postinst
why=
[ -f "$pi" ] || why="no postinst"
if [ -z "$why" ]; then
	guard=$(grep -n "deb-systemd-helper debian-installed 'reclaimd.service'" "$pi" | head -n 1 | cut -d: -f1)
	enables=$(grep -n 'deb-systemd-helper enable' "$pi" | cut -d: -f1)
	if [ -z "$guard" ]; then
		why="no debian-installed guard before enabling"
	else
		for l in $enables; do [ "$l" -gt "$guard" ] || why="enable on line $l before the guard"; done
	fi
	# (A line that echoes the command for the administrator runs nothing.)
	grep -vE '^[[:space:]]*echo ' "$pi" | grep -qE 'systemctl[^|;]* (enable|start|restart)' &&
		why="$why; calls systemctl enable/start itself"
	grep -q 'was-enabled defaults to true' "$pi" && why="$why; the enabling snippet of dh_installsystemd"
fi
why=${why#; }
if [ -z "$why" ]; then
	pass "deb-unit-not-enabled: postinst enables only a unit enabled before, starts only through deb-systemd-invoke"
else
	fail "deb-unit-not-enabled: $why"
fi

if command -v lintian >/dev/null; then
	lint=$(lintian --allow-root "$deb" 2>&1)
	printf '%s\n' "$lint" | grep -E '^[EW]: ' | sed 's/^/    /'
	errors=$(printf '%s\n' "$lint" | grep -c '^E: ')
	warnings=$(printf '%s\n' "$lint" | grep -c '^W: ')
	if [ "$errors" -eq 0 ]; then
		pass "deb-lintian: no errors, $warnings warnings"
	else
		fail "deb-lintian: $errors errors"
	fi
else
	skip "deb-lintian: lintian is not installed (make deps installs it)"
fi

# Reproducible: the same tree built again elsewhere (another path, another depth, later) gives
# the same .deb, and the debug symbols package too.
again=build/deb-repro/elsewhere/deeper
if ! out=$(make -s deb-build DEB_DIR=$again 2>&1); then
	fail "deb-reproducible: the second build failed: $(echo "$out" | tail -n 5 | tr '\n' ' ')"
else
	differ=
	for f in build/deb/*.deb; do
		cmp -s "$f" "$again/${f##*/}" || differ="$differ ${f##*/}"
	done
	if [ -z "$differ" ]; then
		pass "deb-reproducible: $(ls build/deb/*.deb | wc -l) .debs built in build/deb and $again are identical ($(sha256sum "$deb" | cut -c1-16))"
	else
		fail "deb-reproducible: differ:$differ"
		if command -v diffoscope >/dev/null; then
			for f in $differ; do diffoscope --text - "build/deb/$f" "$again/$f" | head -n 40 | sed 's/^/    /'; done
		fi
	fi
fi

# No file of either package holds the absolute directory it was built in: not as bytes, and not
# in the DWARF of the debug symbols (DW_AT_comp_dir, the line tables), whose sections are
# compressed (readelf -z reads them decompressed).
builddir=$(pwd)/build/deb/reclaimd-$version
found=
for f in build/deb/*.deb; do
	rm -rf "$tmp/x"
	dpkg-deb -x "$f" "$tmp/x"
	hits=$(
		grep -rlaF "$builddir" "$tmp/x"
		find "$tmp/x" -type f | while read -r e; do
			[ "$(head -c 4 "$e" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
			readelf --debug-dump=info,line -z "$e" 2>/dev/null | grep -qF "$builddir" && echo "$e"
		done | sort -u
	)
	hits=$(echo "$hits" | sed "s|^$tmp/x||" | sort -u | awk NF)
	[ -z "$hits" ] || found="$found ${f##*/}:$(echo "$hits" | tr '\n' ' ')"
done
if [ -z "$found" ]; then
	pass "deb-no-build-path: no file of $(ls build/deb/*.deb | wc -l) packages holds $builddir, nor its DWARF"
else
	fail "deb-no-build-path:$found"
fi

# Every file is dated no later than the changelog's entry (SOURCE_DATE_EPOCH, which
# dpkg-buildpackage takes from it; dpkg-deb clamps to it).
epoch=$(dpkg-parsechangelog -S Timestamp)
late=$(dpkg-deb --fsys-tarfile "$deb" | tar -tv --full-time -f - |
	while read -r _ _ _ day time name; do
		t=$(date -u -d "$day $time" +%s)
		[ "$t" -le "$epoch" ] || echo "$name"
	done)
if [ -n "$epoch" ] && [ -z "$late" ]; then
	pass "deb-timestamps: no file dated after the changelog's $(date -u -d "@$epoch" +%FT%TZ)"
else
	fail "deb-timestamps: no changelog date, or dated later: $(echo "$late" | head -n 5 | tr '\n' ' ')"
fi
summary
