#!/usr/bin/env bash
# check-doc-keys.sh - every key of the configuration tables (the key_desc tables of
# agent/config/*.c, which drive parsing and --check-config) is documented: in README.md's
# "Configuration reference" and in the man page made from it (build/man/reclaimd.json.5, built
# here with make man), and the man pages build. Every metric family agent/obs/metrics.c renders
# is in README's "Metrics" section, and every one that section names is rendered. Run from the
# repository root (make check-unit).
# Ends with "check-doc-keys: N passed, N failed, N skipped" (tests/run-unit.sh counts it).
set -u
cd "$(dirname "$0")/../.."
passed=0 failed=0 skipped=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
skip() { echo "SKIP $*"; skipped=$((skipped + 1)); }
summary() { echo "check-doc-keys: $passed passed, $failed failed, $skipped skipped"; exit $((failed > 0)); }

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

# README: the section from "## Configuration reference" to the next "## ", key in backquotes.
ref=$(sed -n '/^## Configuration reference$/,/^## /p' README.md)
missing=
for k in $keys; do
	printf '%s' "$ref" | grep -qF "\`$k\`" || missing="$missing $k"
done
if [ -z "$missing" ]; then
	pass "readme-has-every-key: all $n keys of agent/config/*.c in README's Configuration reference"
else
	fail "readme-has-every-key: not in README's Configuration reference:$missing"
fi

# Metrics: the names metrics.c renders (string literals; a summary's _sum and _count are its
# family's), against the README's "## Metrics" section, names in backquotes.
metrics=$(grep -o '"reclaimd_[a-z_]*"' agent/obs/metrics.c | tr -d '"' | sed 's/_seconds_\(sum\|count\)$/_seconds/' | sort -u)
n_metrics=$(echo "$metrics" | grep -c .)
msec=$(sed -n '/^## Metrics$/,/^## /p' README.md)
documented=$(printf '%s' "$msec" | grep -o '`reclaimd_[a-z_]*`' | tr -d '`' | sort -u)
if [ "$n_metrics" -lt 20 ]; then
	fail "readme-has-every-metric: only $n_metrics metric names read from agent/obs/metrics.c"
else
	missing=
	for m in $metrics; do
		printf '%s\n' "$documented" | grep -qx "$m" || missing="$missing $m"
	done
	if [ -z "$missing" ]; then
		pass "readme-has-every-metric: all $n_metrics metric families of agent/obs/metrics.c in README's Metrics"
	else
		fail "readme-has-every-metric: not in README's Metrics section:$missing"
	fi
	extra=
	for m in $documented; do
		printf '%s\n' "$metrics" | grep -qx "$m" || extra="$extra $m"
	done
	if [ -z "$extra" ]; then
		pass "readme-metrics-exist: every metric README's Metrics section names is rendered"
	else
		fail "readme-metrics-exist: README names metrics agent/obs/metrics.c does not render:$extra"
	fi
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
