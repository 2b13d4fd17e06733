#!/usr/bin/env bash
# make demo: boots Debian's Linux 6.12 in qemu, runs two workloads first without and then with
# reclaimd (shipped config/reclaimd.json), prints a table per cgroup and plots the run's time series
# (bench/plot-demo.sh: PNGs in tests/vm/out/demo/; without gnuplot it says so and goes on).
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
