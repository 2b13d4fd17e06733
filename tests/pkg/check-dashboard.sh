#!/usr/bin/env bash
# check-dashboard.sh - every query of the Grafana dashboard (config/kubernetes/monitoring/
# reclaimd-dashboard.json) returns data from a real Prometheus scraping a real reclaimd:
#   - the agent ($RECLAIMD, default build/gcc/reclaimd) runs --dry-run on a fake cgroup tree
#     (tests/fixtures/real-6.12's files: two cgroups in work.slice and a Guaranteed, a Burstable
#     and a BestEffort pod as kubelet's systemd driver lays them out), metrics.listen on
#     loopback, a 0.5 s interval;
#   - Prometheus (Debian: prometheus; a temporary config and storage, on loopback) scrapes it
#     every second as job "reclaimd" with the labels cluster="test" and node="node-a" (what the
#     PodMonitor and a fleet's external labels give);
#   - after at least 3 scrapes, check-dashboard.py evaluates every panel's every target through
#     the HTTP API ($cluster and $node set to All, ".*") and each must return at least one
#     series; the template variables' label_values() must return cluster "test" and node
#     "node-a"; and a few values must be what the agent did (1 agent up, the pods' memory > 0,
#     decisions counted). It prints each query's series and first value.
# With --dry-run nothing is reclaimed, so the reclaimed-bytes panels return their series at 0.
# The tree is not a cgroup2 mount and the files are the test's: --allow-unsafe-paths.
# Run from the repository root (make check-unit). Ends with "check-dashboard: N passed, N
# failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
TEST_NAME=check-dashboard
. tests/lib.sh
RECLAIMD=${RECLAIMD:-build/gcc/reclaimd}
FIX=tests/fixtures/real-6.12
DASH=config/kubernetes/monitoring/reclaimd-dashboard.json

[ -x "$RECLAIMD" ] || { fail "agent: $RECLAIMD is not built"; summary; }
command -v prometheus >/dev/null || { fail "prometheus: not installed (make deps)"; summary; }
base=/dev/shm
[ "$(stat -f -c %T "$base" 2>/dev/null)" = tmpfs ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
T=$(mktemp -d "$base/check-dashboard.XXXXXX") || { fail "mktemp"; summary; }
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

mkdir -p "$T/cg"
cp "$FIX"/sys/fs/cgroup/* "$T/cg/" 2>/dev/null
KP=kubepods.slice
UID_G=11111111-0000-4000-8000-000000000001
UID_B=22222222-0000-4000-8000-000000000002
UID_E=33333333-0000-4000-8000-000000000003
for c in work.slice work.slice/a work.slice/b "$KP" "$KP/kubepods-burstable.slice" \
	"$KP/kubepods-besteffort.slice" "$KP/kubepods-pod${UID_G//-/_}.slice" \
	"$KP/kubepods-burstable.slice/kubepods-burstable-pod${UID_B//-/_}.slice" \
	"$KP/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_E//-/_}.slice"; do
	mkdir -p "$T/cg/$c"
	cp "$FIX"/sys/fs/cgroup/fixture/* "$T/cg/$c/"
done

aport=$(free_port) pport=$(free_port)
cat >"$T/c.json" <<JSON
{
  "interval": 0.5,
  "metrics": { "listen": "127.0.0.1:$aport", "per_pod": true },
  "rules": [ { "match": "work.slice/*", "min_bytes": "1M" },
             { "match": "kubepods.slice/**", "qos": ["guaranteed", "burstable", "besteffort"],
               "level": "pod", "min_bytes": "1M" } ]
}
JSON
"$RECLAIMD" --allow-unsafe-paths -c "$T/c.json" --cgroup-root "$T/cg" --proc-root "$FIX/proc" \
	--sys-root "$FIX/sys" --dry-run --log-stderr >"$T/agent.log" 2>&1 &
pids+=($!)
cat >"$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: reclaimd
    static_configs:
      - targets: ["127.0.0.1:$aport"]
        labels:
          cluster: test
          node: node-a
YML
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$T/prometheus.log" 2>&1 &
pids+=($!)

out=$(python3 tests/pkg/check-dashboard.py "$DASH" "http://127.0.0.1:$pport" 2>&1)
while IFS= read -r line; do
	case $line in
	"PASS "*) pass "${line#PASS }" ;;
	"FAIL "*) fail "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done <<<"$out"
if [ "$failed" -gt 0 ]; then
	echo "--- agent log (last lines)"; tail -n 5 "$T/agent.log"
	echo "--- prometheus log (last lines)"; tail -n 5 "$T/prometheus.log"
fi
summary
