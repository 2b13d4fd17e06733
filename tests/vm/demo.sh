#!/usr/bin/env bash
# make demo: boots Debian's Linux 6.12 in qemu, runs two workloads first without and then with
# reclaimd (shipped config/reclaimd.json), prints a table per cgroup and plots the run's time series
# (bench/plot-demo.sh: PNGs in tests/vm/out/demo/; without gnuplot it says so and goes on).
# With Debian's prometheus installed (make deps), a Prometheus on this host (loopback only, its
# data in tests/vm/out/demo-prometheus/) scrapes the agent in the VM every 2 s through qemu's port
# forwarding (run.sh --hostfwd) as job "reclaimd", cluster "demo", node "demo-vm"; at the end
# every panel of the Grafana dashboard (config/kubernetes/monitoring/reclaimd-dashboard.json) is
# evaluated on what it scraped and printed (tests/pkg/check-dashboard.py --demo). DEMO_PROMETHEUS=0
# leaves it out.
set -eu
cd "$(dirname "$0")/../.."
out=tests/vm/out/demo
mkdir -p tests/vm/out
seconds=${DEMO_SECONDS:-150}
echo "demo: booting the VM; two phases of ${seconds} s (without, then with reclaimd) - about $((2 * seconds + 60)) s" >&2
extra=()
for v in DEMO_RATE DEMO_TLB_FLUSH_MS DEMO_TRACE; do
	[ -z "${!v:-}" ] || extra+=(--env "$v=${!v}")
done
# Two distinct free loopback ports, for the agent's forwarding and for Prometheus.
free_ports() {
	python3 -c 'import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])'
}
prom_pid= prom_url=
prom_dir=tests/vm/out/demo-prometheus
stop_prometheus() {
	[ -z "$prom_pid" ] || { kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null || true; }
	prom_pid=
}
trap stop_prometheus EXIT
if [ "${DEMO_PROMETHEUS:-1}" != 0 ] && command -v prometheus >/dev/null; then
	read -r aport pport < <(free_ports)
	rm -rf "$prom_dir"
	mkdir -p "$prom_dir"
	cat >"$prom_dir/prometheus.yml" <<YML
global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: reclaimd
    static_configs:
      - targets: ["127.0.0.1:$aport"]
        labels:
          cluster: demo
          node: demo-vm
YML
	prometheus --config.file="$prom_dir/prometheus.yml" --storage.tsdb.path="$prom_dir/data" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$prom_dir/prometheus.log" 2>&1 &
	prom_pid=$!
	# Ours, and ready: another process on the port would answer the queries instead.
	for _ in $(seq 100); do
		kill -0 "$prom_pid" 2>/dev/null || break
		python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
			"http://127.0.0.1:$pport/-/ready" 2>/dev/null && { prom_url=http://127.0.0.1:$pport; break; }
		sleep 0.1
	done
	if [ -n "$prom_url" ] && kill -0 "$prom_pid" 2>/dev/null; then
		extra+=(--hostfwd "$aport:9101" --env DEMO_METRICS_LISTEN=10.0.2.15:9101)
		echo "demo: Prometheus at $prom_url scrapes the agent in the VM (127.0.0.1:$aport)" >&2
	else
		prom_url=
		stop_prometheus
		echo "demo: Prometheus did not start (see $prom_dir/prometheus.log): no dashboard at the end" >&2
	fi
elif [ "${DEMO_PROMETHEUS:-1}" != 0 ]; then
	echo "demo: no prometheus (make deps installs it): no dashboard at the end" >&2
fi
tests/vm/run.sh --file config/reclaimd.json:/etc/reclaimd/reclaimd.json --env DEMO_SECONDS="$seconds" "${extra[@]}" \
	--timeout $((4 * seconds + 300)) tests/vm/scenarios/demo.sh "$out" >"$out.run.log" 2>&1 ||
	{ echo "demo: the VM run failed; see $out.run.log and $out/console.log" >&2; exit 1; }
[ "$(cat "$out/scenario.rc" 2>/dev/null)" = 0 ] || { echo "demo: the scenario failed; see $out/scenario.log" >&2; exit 1; }
[ -s "$out/demo.tsv" ] || { echo "demo: no results; see $out/scenario.log" >&2; exit 1; }
bench/print-savings.sh "$out/demo.tsv"
echo
echo "agent log: $out/agent.log   workload logs: $out/memhog-*.log   samples: $out/samples-*.tsv"
# The plots never fail the demo: bench/plot-demo.sh prints each PNG's path, or why it drew none.
bench/plot-demo.sh "$out" || echo "demo: no plots (see the line above); the table stands" >&2
# Nor does the dashboard: its panels as Prometheus answers them for the "with" phase.
if [ -n "$prom_url" ]; then
	echo
	echo "dashboard (config/kubernetes/monitoring/reclaimd-dashboard.json) on what $prom_url scraped:"
	python3 tests/pkg/check-dashboard.py --demo config/kubernetes/monitoring/reclaimd-dashboard.json \
		"$prom_url" | sed 's/^PASS panel-query /  /; s/^PASS /  ok: /; s/^FAIL /  MISSING: /; s/^SKIP panel-query /  (no data) /' |
		tee "$out/dashboard.txt"
	printf 'scrape_configs: []\n' >"$prom_dir/replay.yml"
	echo "Prometheus data: $prom_dir/data; to look again (no scraping, loopback only), run"
	echo "  prometheus --config.file=$prom_dir/replay.yml --storage.tsdb.path=$prom_dir/data --web.listen-address=127.0.0.1:9099"
	last=$(sed -n 's/^  ok: scrapes: .* at the last, \([0-9TZ:-]*\)$/\1/p' "$out/dashboard.txt")
	echo "  and query at the last scrape, e.g. curl 'http://127.0.0.1:9099/api/v1/query?query=up&time=${last:-TIME}'"
fi
