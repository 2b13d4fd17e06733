#!/usr/bin/env bash
# check-deb.sh - make deb builds build/reclaimd_<version>_<arch>.deb with what docs/operating.md
# ("Installing") says it holds, the configuration and its directories have modes reclaimd accepts,
# and lintian finds no error in it (its warnings are printed; docs/operating.md "Installing" lists
# those not fixed and why). Run from the repository root (make check-unit).
# Ends with "check-deb: N passed, N failed, N skipped" (tests/run-unit.sh counts it).
set -u
cd "$(dirname "$0")/../.."
TEST_NAME=check-deb
. tests/lib.sh

for tool in dpkg-deb dpkg-shlibdeps help2man python3; do
	if ! command -v $tool >/dev/null; then
		skip "deb-builds: no $tool (make deps installs it)"
		skip "deb-contents: no package"
		skip "deb-config-safe: no package"
		skip "deb-lintian: no package"
		summary
	fi
done
start=$(date +%s)
if ! out=$(make -s deb 2>&1); then
	fail "deb-builds: make deb failed: $(echo "$out" | tail -n 5 | tr '\n' ' ')"
	summary
fi
version=$(sed -n 's/^#define RECLAIMD_VERSION "\(.*\)"/\1/p' include/reclaimd/version.h)
deb=build/reclaimd_${version}-1_$(dpkg --print-architecture).deb
if [ -s "$deb" ]; then
	pass "deb-builds: $deb ($(($(stat -c %s "$deb") / 1024)) KiB, $(($(date +%s) - start)) s; $(dpkg-deb -f "$deb" Depends))"
else
	fail "deb-builds: no $deb"
	summary
fi

list=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|')
want="/usr/sbin/reclaimd /lib/systemd/system/reclaimd.service /etc/reclaimd/reclaimd.json
/usr/share/man/man8/reclaimd.8.gz /usr/share/man/man5/reclaimd.json.5.gz
/usr/share/doc/reclaimd/README.md.gz /usr/share/doc/reclaimd/copyright
/usr/share/doc/reclaimd/docs/configuration.md.gz /usr/share/doc/reclaimd/docs/operating.md.gz
/usr/share/doc/reclaimd/changelog.Debian.gz /usr/bin/reclaimctl
/usr/share/man/man8/reclaimctl.8.gz"
missing=
for f in $want; do
	printf '%s\n' "$list" | grep -qxF "$f" || missing="$missing $f"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -e "$deb" "$tmp"
grep -qxF /etc/reclaimd/reclaimd.json "$tmp/conffiles" || missing="$missing conffile:/etc/reclaimd/reclaimd.json"
grep -q 'ExecStart=/usr/sbin/reclaimd ' <(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./lib/systemd/system/reclaimd.service) ||
	missing="$missing ExecStart=/usr/sbin/reclaimd"
if [ -z "$missing" ]; then
	pass "deb-contents: binaries, unit, conffile, man pages, README, docs/, copyright, changelog"
else
	fail "deb-contents: missing$missing"
fi

# The configuration as installed passes reclaimd's own check (docs/operating.md "Safety"): the file
# and the directories the package makes for it are root's and writable by root only.
bad=$(dpkg-deb -c "$deb" | awk '$NF == "./" || $NF == "./etc/" || $NF == "./etc/reclaimd/" ||
	$NF == "./etc/reclaimd/reclaimd.json" {
		if ($2 != "root/root" || substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w") print $1, $2, $NF
		n++
	} END { if (n != 4) print "only", n + 0, "of ./ ./etc/ ./etc/reclaimd/ ./etc/reclaimd/reclaimd.json listed" }')
if [ -z "$bad" ]; then
	pass "deb-config-safe: /etc/reclaimd/reclaimd.json and its directories are root/root, not group- or other-writable"
else
	fail "deb-config-safe: $(printf '%s; ' "$bad")"
fi

if ! command -v lintian >/dev/null; then
	skip "deb-lintian: lintian is not installed (make deps installs it)"
	summary
fi
lint=$(lintian --allow-root "$deb" 2>&1)
printf '%s\n' "$lint" | grep -E '^[EW]: ' | sed 's/^/    /'
errors=$(printf '%s\n' "$lint" | grep -c '^E: ')
warnings=$(printf '%s\n' "$lint" | grep -c '^W: ')
if [ "$errors" -eq 0 ]; then
	pass "deb-lintian: no errors, $warnings warnings"
else
	fail "deb-lintian: $errors errors"
fi
summary
