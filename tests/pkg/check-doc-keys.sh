#!/usr/bin/env bash
# check-doc-keys.sh - every key of the configuration tables (the key_desc tables of
# agent/config/*.c, which drive parsing and --check-config) is documented: in the
# configuration reference, docs/configuration.md, and in the man page made from it
# (build/man/reclaimd.json.5, built here with make man), and the man pages build. Every metric
# family agent/obs/metrics.c renders is in docs/operating.md's "Metrics" section, and every one
# that section names is rendered. Every relative link and #anchor of README.md and docs/*.md
# resolves (tests/pkg/check-doc-links.py); that checker and md2man.py are shown to fail on a
# bad link first. Run from the repository root (make check-unit).
# Ends with "check-doc-keys: N passed, N failed, N skipped" (tests/run-unit.sh counts it).
set -u
cd "$(dirname "$0")/../.."
TEST_NAME=check-doc-keys
. tests/lib.sh

# The keys: the first string of each entry of a "static const struct key_desc x[] = {" table.
keys=$(awk '/static const struct key_desc [a-z_]+\[\] = \{/ { t = 1; next }
	t && /^\};/ { t = 0 }
	t && match($0, /^[ \t]*\{ "[a-z_]+",/) { s = substr($0, RSTART, RLENGTH); gsub(/[ \t{",]/, "", s); print s }' \
	agent/config/*.c | sort -u)
n=$(echo "$keys" | grep -c .)
if [ "$n" -lt 20 ]; then
	fail "config-keys-found: only $n keys read from agent/config/*.c (has its table format changed?)"
	summary
fi

# The reference: all of docs/configuration.md (the man page's source), key in backquotes.
ref_file=docs/configuration.md
if ! ref=$(cat "$ref_file"); then
	fail "reference-found: cannot read $ref_file"
	summary
fi
missing=
for k in $keys; do
	printf '%s' "$ref" | grep -qF "\`$k\`" || missing="$missing $k"
done
if [ -z "$missing" ]; then
	pass "reference-has-every-key: all $n keys of agent/config/*.c in $ref_file"
else
	fail "reference-has-every-key: not in $ref_file:$missing"
fi

# Metrics: the names metrics.c renders (string literals; a summary's _sum and _count are its
# family's), against docs/operating.md's "## Metrics" section (to the next "## "), names in
# backquotes.
metrics=$(grep -o '"reclaimd_[a-z_]*"' agent/obs/metrics.c | tr -d '"' | sed 's/_seconds_\(sum\|count\)$/_seconds/' | sort -u)
n_metrics=$(echo "$metrics" | grep -c .)
msec=$(sed -n '/^## Metrics$/,/^## /p' docs/operating.md)
documented=$(printf '%s' "$msec" | grep -o '`reclaimd_[a-z_]*`' | tr -d '`' | sort -u)
if [ "$n_metrics" -lt 20 ]; then
	fail "docs-has-every-metric: only $n_metrics metric names read from agent/obs/metrics.c"
else
	missing=
	for m in $metrics; do
		printf '%s\n' "$documented" | grep -qx "$m" || missing="$missing $m"
	done
	if [ -z "$missing" ]; then
		pass "docs-has-every-metric: all $n_metrics metric families of agent/obs/metrics.c in docs/operating.md's Metrics"
	else
		fail "docs-has-every-metric: not in docs/operating.md's Metrics section:$missing"
	fi
	extra=
	for m in $documented; do
		printf '%s\n' "$metrics" | grep -qx "$m" || extra="$extra $m"
	done
	if [ -z "$extra" ]; then
		pass "docs-metrics-exist: every metric docs/operating.md's Metrics section names is rendered"
	else
		fail "docs-metrics-exist: docs/operating.md names metrics agent/obs/metrics.c does not render:$extra"
	fi
fi

# Links between README.md and docs/*.md, files and #anchors, as a forge renders them.
# docs/security.md (the threat model) is written on another branch: a link to it may dangle here.
if out=$(tests/pkg/check-doc-links.py --allow-missing docs/security.md 2>&1); then
	pass "doc-links: $(echo "$out" | tail -n 1)"
else
	fail "doc-links: $(echo "$out" | grep '^BROKEN' | head -n 5 | tr '\n' ';') $(echo "$out" | tail -n 1)"
fi

# The two tools can fail: md2man.py refuses a link out of the reference and renders one to its
# own section as "text"; check-doc-links.py reports a missing heading and a missing file.
tmp=$(mktemp -d) || { fail "mktemp: cannot make a temporary directory"; summary; }
trap 'rm -rf "$tmp"' EXIT
printf '# Ref\n\n## Keys\n\nSee [Keys](#keys) and [run](operating.md#running-it).\n' >"$tmp/out.md"
printf '# Ref\n\n## Keys\n\nSee [Keys](#keys).\n' >"$tmp/in.md"
if config/man/md2man.py "$tmp/out.md" >"$tmp/out.5" 2>"$tmp/out.err"; then
	fail "md2man-refuses-link-out: exit 0 on a link to operating.md"
elif grep -qF "$tmp/out.md:5: link to operating.md#running-it" "$tmp/out.err"; then
	pass "md2man-refuses-link-out: $(cat "$tmp/out.err")"
else
	fail "md2man-refuses-link-out: failed without naming file, line and link: $(cat "$tmp/out.err")"
fi
if config/man/md2man.py "$tmp/in.md" >"$tmp/in.5" && grep -qF 'See "Keys".' "$tmp/in.5"; then
	pass "md2man-own-section: [Keys](#keys) rendered as \"Keys\""
else
	fail "md2man-own-section: [Keys](#keys) not rendered as \"Keys\": $(grep -F 'See' "$tmp/in.5")"
fi
printf '# T\n\n## A b\n\n[x](#a-b) [y](#a-c) [z](none.md)\n' >"$tmp/links.md"
if out=$(tests/pkg/check-doc-links.py "$tmp/links.md" 2>&1); then
	fail "doc-links-can-fail: exit 0 on a missing heading and a missing file: $out"
elif [ "$(echo "$out" | grep -c '^BROKEN')" = 2 ] && echo "$out" | grep -qF '#a-c: no heading' &&
	echo "$out" | grep -qF 'none.md: no such file'; then
	pass "doc-links-can-fail: $(echo "$out" | tail -n 1)"
else
	fail "doc-links-can-fail: not the two broken links expected: $out"
fi

if ! out=$(make -s man 2>&1); then
	fail "man-builds: make man failed: $(echo "$out" | tail -n 3)"
	summary
fi
pass "man-builds: $(ls build/man | tr '\n' ' ')"
missing=
for k in $keys; do
	grep -qF "\\fB$(printf '%s' "$k" | sed 's/-/\\-/g')\\fR" build/man/reclaimd.json.5 || missing="$missing $k"
done
if [ -z "$missing" ]; then
	pass "man-has-every-key: all $n keys in reclaimd.json(5)"
else
	fail "man-has-every-key: not in build/man/reclaimd.json.5:$missing"
fi
# reclaimd(8) is help2man's reading of --help: every long option must be in it.
missing=
for o in $(build/*/reclaimd --help 2>/dev/null | grep -o -- '--[a-z-]*' | sort -u); do
	grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" build/man/reclaimd.8 || missing="$missing $o"
done
if [ -z "$missing" ]; then
	pass "man-has-every-option: reclaimd(8) lists every option of reclaimd --help"
else
	fail "man-has-every-option: not in reclaimd(8):$missing"
fi
if [ -x reclaimctl ] || ls build/*/reclaimctl >/dev/null 2>&1; then
	if [ -s build/man/reclaimctl.8 ]; then
		pass "man-reclaimctl: reclaimctl(8) built"
	else
		fail "man-reclaimctl: reclaimctl is built but build/man/reclaimctl.8 is not"
	fi
else
	skip "man-reclaimctl: no reclaimctl binary in this tree"
fi
summary
