#!/usr/bin/env bash
# bench/savings: the demo scenario (tests/vm/scenarios/demo.sh) without and with the agent, on
# Debian's Linux 6.12 in qemu: memory saved (% of footprint), PSI some %, refaults, ops/s and p99
# access latency, per cgroup. SAVINGS_SECONDS sets the length of each phase (default 90).
# Plots the savings over time (bench/plot-demo.sh): bench/out/savings/demo*.png.
set -eu
cd "$(dirname "$0")/.."
out=bench/out/savings
seconds=${SAVINGS_SECONDS:-90}
mkdir -p bench/out
tests/vm/run.sh --file config/reclaimd.json:/etc/reclaimd/reclaimd.json --env DEMO_SECONDS="$seconds" \
	--timeout $((4 * seconds + 300)) tests/vm/scenarios/demo.sh "$out" >"$out.run.log" 2>&1 ||
	{ echo "savings: the VM run failed; see $out.run.log" >&2; exit 1; }
echo "## bench/savings: shipped config, ${seconds} s per phase, Linux $(sed -n 's/^kernel=//p' "$out/vm-info.txt")"
bench/print-savings.sh "$out/demo.tsv"
# memory.current, PSI some and reclaimed over time; a missing gnuplot never fails the bench.
bench/plot-demo.sh "$out" || echo "savings: no plots (see the line above)" >&2
