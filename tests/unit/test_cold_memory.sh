#!/usr/bin/env bash
# test_cold_memory.sh - the cold-memory report end to end on a fake tree: the real daemon (not a
# dry run: a dry run does no MGLRU aging, so it reads no generations) on a copy of the recorded
# 6.12 files (tests/fixtures/real-6.12; all of them copied, since the agent writes its PSI
# triggers into memory.pressure files) with an lru_gen file written here, two cgroups under
# policy "observe" (never reclaimed, so nothing is written to lru_gen or memory.reclaim; the
# youngest generations are 1 s old, so no aging is due either). Checks:
#   - status Cgroups: idle_bytes of work.slice/a are the lower bounds the generations give
#     (its own memcg on two nodes and an unmanaged descendant's), null beyond its oldest
#     generation (600 s), idle_horizon_s 399; work.slice/b, whose two generations are the two
#     youngest (idle bound 0), has every age null, never 0; the decision is "observing" with no request;
#   - reclaimctl explain prints the idle bytes, the generations and a suggestion;
#   - the metrics textfile has reclaimd_rule_idle_bytes and reclaimd_cgroup_idle_bytes for the
#     known ages only, and passes `promtool check metrics` (skipped, and said, without promtool).
# Waits are bounded polls. BUILD names the build directory (default build/gcc). Ends
# "test_cold_memory.sh: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=${RECLAIMD:-$BUILD/reclaimd}
CTL=$(dirname "$AGENT")/reclaimctl
FIX=tests/fixtures/real-6.12
TEST_NAME=test_cold_memory.sh
. tests/lib.sh
for f in "$AGENT" "$CTL"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; summary; }
done
command -v python3 >/dev/null || { skip "no python3 (make deps installs it)"; summary; }

T=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-cold.XXXXXX")
fixture_sums() { find "$FIX" -type f -print0 | sort -z | xargs -0 md5sum; }
fixture_sums >"$T/fixture.before"
AGENT_PID=
# KEEP=1 keeps the directory (the agent's log, the replies) and says where; the agent stops.
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	if [ -n "${KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT

# The tree: work.slice/a (with an unmanaged child, inner) and work.slice/b.
mkdir -p "$T/cg/work.slice"
cp "$FIX"/sys/fs/cgroup/* "$T/cg/" 2>/dev/null
for c in work.slice work.slice/a work.slice/a/inner work.slice/b; do
	mkdir -p "$T/cg/$c"
	cp "$FIX"/sys/fs/cgroup/fixture/* "$T/cg/$c/"
done
cp -r "$FIX/sys" "$T/sys"
# The host's files too: the agent arms its host PSI trigger by writing to proc/pressure/memory.
cp -r "$FIX/proc" "$T/proc"
rm -rf "$T/sys/fs/cgroup"
# Generation lines: seq, age in ms, anon pages, file pages (oldest first). The idle bound of a
# generation is the age of the next younger one less the youngest's (1 s here): a's node 0 holds
# 1024 pages idle >= 399 s, 500 >= 129 s; its node 1 50 >= 89 s; inner 300 >= 79 s. So >= 60 s:
# 1874 pages, >= 120 s: 1524, >= 300 s: 1024, >= 600 s: beyond the 399 s horizon.
cat >"$T/sys/kernel/debug/lru_gen" <<'EOF'
memcg    10 /work.slice/a
 node     0
         20     700000       1000          24
         21     400000        500           0
         22     130000        200           0
         23       1000        100           0
 node     1
         20     200000         50           0
         21      90000         10           0
         22       1000          5           0
memcg    11 /work.slice/a/inner
 node     0
          5     200000        300           0
          6      80000         10           0
          7       1000          5           0
memcg    12 /work.slice/b
 node     0
          7      50000        100           0
          8       1000         10           0
EOF
PAGE=$(getconf PAGESIZE)
SOCK=$T/run/reclaimd.sock
mkdir -p "$T/run" "$T/prom"
cat >"$T/reclaimd.json" <<EOF
{
  "interval": 0.5,
  "state_file": "$T/run/state.json",
  "status": { "socket": "$SOCK" },
  "metrics": { "textfile": "$T/prom/reclaimd.prom", "per_cgroup": true },
  "rules": [ { "match": "work.slice/*", "policy": "observe", "min_bytes": "1M" } ]
}
EOF
"$AGENT" --allow-unsafe-paths -c "$T/reclaimd.json" --cgroup-root "$T/cg" --proc-root "$T/proc" \
	--sys-root "$T/sys" --log-stderr >"$T/agent.log" 2>&1 &
AGENT_PID=$!
# The agent arms a PSI trigger by writing to its first cgroup's memory.pressure: on this tree a
# plain file, which the write overwrites (epoll then refuses it and no other trigger is tried).
# Once it has said so, the recorded files are put back.
for _ in $(seq 100); do
	grep -q 'PSI triggers unavailable' "$T/agent.log" && break
	sleep 0.1
done
for c in work.slice/a work.slice/b; do
	cp "$FIX/sys/fs/cgroup/fixture/memory.pressure" "$T/cg/$c/memory.pressure"
done
# pyj FILE EXPR: EXPR on the JSON of FILE (d), printed as JSON; row CGROUP EXPR: EXPR on the
# Cgroups row of CGROUP (r) in $T/cg.json.
pyj() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))' "$1" "$2"
}
row() { pyj "$T/cg.json" "(lambda r: $2)([r for r in d['cgroups'] if r['cgroup'] == '$1'][0])"; }
for _ in $(seq 100); do
	[ -S "$SOCK" ] && "$CTL" --socket "$SOCK" --json cgroups 2>/dev/null >"$T/cg.json" &&
		[ "$(row work.slice/a 'r["idle_horizon_s"]' 2>/dev/null)" != null ] &&
		"$CTL" --socket "$SOCK" --json explain work.slice/a >"$T/ex.json" 2>/dev/null &&
		[ "$(pyj "$T/ex.json" 'd["cold_memory"] is not None' 2>/dev/null)" = true ] &&
		grep -q '^reclaimd_cgroup_idle_bytes' "$T/prom/reclaimd.prom" 2>/dev/null && break
	sleep 0.1
done
check "cgroups: work.slice/a has idle_bytes (agent log: $(tail -n 3 "$T/agent.log" | tr '\n' ' '))" \
	[ "$(row work.slice/a 'r["idle_horizon_s"]')" = 399.0 ]
check "cgroups: a idle >= 60 s = 1874 pages" [ "$(row work.slice/a 'r["idle_bytes"]["60"]')" = $((1874 * PAGE)) ]
check "cgroups: a idle >= 120 s = 1524 pages" [ "$(row work.slice/a 'r["idle_bytes"]["120"]')" = $((1524 * PAGE)) ]
check "cgroups: a idle >= 300 s = 1024 pages" [ "$(row work.slice/a 'r["idle_bytes"]["300"]')" = $((1024 * PAGE)) ]
check "cgroups: a idle >= 600 s is null (beyond the horizon)" [ "$(row work.slice/a 'r["idle_bytes"]["600"]')" = null ]
check "cgroups: b every age null, not 0" \
	[ "$(row work.slice/b 'list(r["idle_bytes"].values())')" = '[null, null, null, null]' ]
check "cgroups: b horizon 0 s" [ "$(row work.slice/b 'r["idle_horizon_s"]')" = 0.0 ]
check "cgroups: a observing, no request" \
	[ "$(row work.slice/a '[r["decision"], r["request_bytes"]]')" = '["observing", 0]' ]
check "cgroups: a would_reclaim_bytes is a number" \
	[ "$(row work.slice/a 'type(r["would_reclaim_bytes"]).__name__')" = '"int"' ]

"$CTL" --socket "$SOCK" --json explain work.slice/a >"$T/ex.json" 2>&1
check "explain: cold_memory has the generations of 3 lruvecs" \
	[ "$(pyj "$T/ex.json" '[d["cold_memory"]["lruvecs"], len(d["cold_memory"]["generations"])]')" = '[3, 10]' ]
check "explain: no evidence yet, so no floor under the cold age" \
	[ "$(pyj "$T/ex.json" 'isinstance(d["cold_memory"]["suggestion"]["reason"], str) and d["cold_memory"]["suggestion"]["used"] is False and d["cold_memory"]["suggestion"]["floor_s"] is None')" = true ]
check "explain: 7 promotion ages" [ "$(pyj "$T/ex.json" 'len(d["cold_memory"]["promotions"])')" = 7 ]
"$CTL" --socket "$SOCK" explain work.slice/a >"$T/ex.txt" 2>&1
check "reclaimctl explain: idle line" grep -q '^idle: *at least .* for 60 s,.* ? for 600 s' "$T/ex.txt"
check "reclaimctl explain: generations line" grep -q '^gens: .*idle>=399s' "$T/ex.txt"
check "reclaimctl explain: suggestion line" grep -q '^suggests: .*no floor under the cold age yet' "$T/ex.txt"
check "reclaimctl explain: would reclaim" grep -q '^observing: would reclaim' "$T/ex.txt"
"$CTL" --socket "$SOCK" --full cgroups >"$T/cg.txt" 2>&1
check "reclaimctl cgroups: IDLE>=2M column" grep -q 'IDLE>=2M' "$T/cg.txt"

P=$T/prom/reclaimd.prom
check "metrics: rule idle >= 120 s" \
	grep -qx "reclaimd_rule_idle_bytes{rule=\"0\",match=\"work.slice/\*\",idle_seconds=\"120\"} $((1524 * PAGE))" "$P"
check "metrics: no rule series for 600 s" bash -c "! grep -q 'reclaimd_rule_idle_bytes{.*idle_seconds=\"600\"' '$P'"
check "metrics: cgroup a idle >= 300 s" \
	grep -qx "reclaimd_cgroup_idle_bytes{cgroup=\"work.slice/a\",idle_seconds=\"300\"} $((1024 * PAGE))" "$P"
check "metrics: no cgroup series for b" bash -c "! grep -q 'reclaimd_cgroup_idle_bytes{cgroup=\"work.slice/b\"' '$P'"
if command -v promtool >/dev/null; then
	check "metrics: promtool check metrics" bash -c "promtool check metrics <'$P'"
else
	skip "no promtool (make deps installs prometheus)"
fi
check "nothing written to lru_gen (no aging due, nothing evicted)" \
	grep -q '^memcg    10 /work.slice/a$' "$T/sys/kernel/debug/lru_gen"
fixture_sums >"$T/fixture.after"
check "the recorded fixture is untouched" cmp -s "$T/fixture.before" "$T/fixture.after"
summary
