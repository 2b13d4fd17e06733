#!/usr/bin/env bash
# Prints the table of a savings run (demo.tsv from tests/vm/scenarios/demo.sh): per cgroup, without
# and with reclaimd: memory.current at start and end, reclaimed, swap and zswap use, average memory
# PSI some, refaults, and the workload's ops/s and p99 access latency.
set -eu
tsv=$1
awk -F'\t' '
function mib(b) { return sprintf("%.1f", b / 1048576) }
NR == 1 { next }
{
	key = $2; ph = $1
	cur0[ph, key] = $3; cur1[ph, key] = $4; recl[ph, key] = $5; swap[ph, key] = $6; zsw[ph, key] = $7
	psi[ph, key] = $8; rf[ph, key] = $9; ops[ph, key] = $10; p99[ph, key] = $11
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
}
END {
	for (i = 1; i <= n; i++)
		if (!(("without", order[i]) in cur1) || !(("with", order[i]) in cur1)) {
			printf "%s: no \"without\" and \"with\" rows for %s: the run did not finish\n", FILENAME, order[i] > "/dev/stderr"
			bad = 1
		}
	if (bad || n == 0) exit 1
	printf "%-6s %-8s %11s %11s %10s %9s %9s %8s %9s %11s %9s\n", "cgroup", "agent", "start MiB", "end MiB",
		"reclaimed", "swap MiB", "zswap MiB", "PSI %", "refaults", "ops/s", "p99 us"
	for (i = 1; i <= n; i++) {
		k = order[i]
		split("without with", phases, " ")
		for (j = 1; j <= 2; j++) {
			p = phases[j]
			printf "%-6s %-8s %11s %11s %10s %9s %9s %8s %9d %11.0f %9.1f\n", k, p, mib(cur0[p, k]), mib(cur1[p, k]),
				mib(recl[p, k]), mib(swap[p, k]), mib(zsw[p, k]), psi[p, k], rf[p, k], ops[p, k], p99[p, k]
		}
	}
	print ""
	for (i = 1; i <= n; i++) {
		k = order[i]
		saved = cur1["without", k] - cur1["with", k]
		dops = (ops["without", k] > 0) ? 100 * (ops["with", k] - ops["without", k]) / ops["without", k] : 0
		printf "%-6s memory saved by reclaimd: %s MiB (%.1f %% of its footprint); ops/s %+.1f %%; p99 %s -> %s us\n", k,
			mib(saved), (cur1["without", k] > 0 ? 100 * saved / cur1["without", k] : 0), dops, p99["without", k], p99["with", k]
	}
}' "$tsv"
