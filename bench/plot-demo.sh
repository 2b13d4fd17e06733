#!/usr/bin/env bash
# bench/plot-demo.sh DIR - plots a run of tests/vm/scenarios/demo.sh (make demo, bench/savings.sh)
# from its time series DIR/samples-without.tsv and DIR/samples-with.tsv (a row per cgroup and
# second: t, cgroup, memory.current, memory.pressure some total in us, memory.stat pgsteal in
# pages, memory.swap.current). Writes, with bench/plot.sh:
#   DIR/demo.png            the three panels below, stacked
#   DIR/demo-memory.png     memory.current per cgroup, MiB, without (dashed) and with reclaimd
#   DIR/demo-psi.png        memory PSI some, % of the last 10 s (the avg10 window, computed
#                           exactly from the total= counter)
#   DIR/demo-reclaimed.png  reclaimed since the phase began, MiB: the cgroup's pgsteal growth (by
#                           reclaimd or by the kernel itself; 4 KiB pages)
# and DIR/plot-{memory,psi,reclaimed}.tsv, the series drawn. x: seconds since the workloads were
# ready, which in the "with" phase is when reclaimd started.
# Prints "plot: PATH" per PNG. Exit status: 0 all written; 1 no or bad samples, or gnuplot failed;
# 3 gnuplot is not installed (said on stderr). make demo goes on whatever it is.
set -eu -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: bench/plot-demo.sh DIR}
for p in without with; do
	[ -s "$dir/samples-$p.tsv" ] || { echo "plot-demo: no $dir/samples-$p.tsv (a demo run from before the samples?)" >&2; exit 1; }
done

# One pass over both phases: the three long-format files bench/plot.sh reads.
awk -F'\t' -v dir="$dir" '
	FNR == 1 { phase = FILENAME; sub(/.*samples-/, "", phase); sub(/\.tsv$/, "", phase); next }
	NF < 5 { next }
	{
		t = $1 + 0; cg = $2; s = cg ", " phase " reclaimd"
		if (!(s in seen)) {
			seen[s] = 1; n[s] = 0; steal0[s] = $5
			for (f = 1; f <= 3; f++) if (!hdr[f]++) print "series\tx\ty" > (dir "/plot-" (f == 1 ? "memory" : f == 2 ? "psi" : "reclaimed") ".tsv")
		}
		printf "%s\t%.1f\t%.2f\n", s, t, $3 / 1048576 > (dir "/plot-memory.tsv")
		printf "%s\t%.1f\t%.2f\n", s, t, ($5 - steal0[s]) * 4096 / 1048576 > (dir "/plot-reclaimed.tsv")
		# PSI over the last 10 s: the oldest kept sample at least 10 s back (or the first).
		k = n[s]++; ts[s, k] = t; ps[s, k] = $4
		j = (s in lo) ? lo[s] : 0
		while (j + 1 < k && t - ts[s, j + 1] >= 10) j++
		lo[s] = j
		if (k > 0 && t > ts[s, j])
			printf "%s\t%.1f\t%.3f\n", s, t, 100 * ($4 - ps[s, j]) / ((t - ts[s, j]) * 1e6) > (dir "/plot-psi.tsv")
	}' "$dir/samples-without.tsv" "$dir/samples-with.tsv"

kernel=$(sed -n 's/^kernel=//p' "$dir/vm-info.txt" 2>/dev/null | head -1)
kernel=${kernel#linux-image-}
kernel=${kernel%-unsigned}
# The highest PSI of each phase, for the panel's title: a flat line at 0 is then read as a result.
peak=$(awk -F'\t' 'NR > 1 { split($1, s, ", "); if (!(s[2] in m) || $3 > m[s[2]]) m[s[2]] = $3 }
	END { printf "highest: %.3f %% without, %.3f %% with reclaimd", m["without reclaimd"], m["with reclaimd"] }' "$dir/plot-psi.tsv")
secs=$(awk -F'\t' 'FNR > 1 && $1 + 0 > m { m = $1 + 0 } END { printf "%.0f", m }' "$dir/samples-with.tsv")
title="demo scenario: web (300 MiB, 20 % hot), batch (400 MiB, 5 % hot); ${secs} s per phase; Linux ${kernel:-6.12} in qemu"
xl='seconds since the workloads were ready (with: since reclaimd started)'
common=(-x "$xl" -g -d ', without ')
mem=(-p 'memory.current per cgroup (dashed: without reclaimd)' -y 'memory.current, MiB' -z "$dir/plot-memory.tsv")
psi=(-p "memory PSI some: share of the last 10 s with a task stalled on memory ($peak)"
	-y 'PSI some, %' -z "$dir/plot-psi.tsv")
rec=(-p 'reclaimed since the phase began (pgsteal growth: by reclaimd or by the kernel)' -y 'reclaimed, MiB' -z
	"$dir/plot-reclaimed.tsv")

rc=0
"$HERE/plot.sh" -o "$dir/demo.png" -t "$title" -s 1200x1150 "${common[@]}" "${mem[@]}" "${psi[@]}" "${rec[@]}" || rc=$?
[ "$rc" -eq 3 ] && exit 3 # no gnuplot: said once is enough
"$HERE/plot.sh" -o "$dir/demo-memory.png" -t "$title" -s 1200x500 "${common[@]}" "${mem[@]}" || rc=$?
"$HERE/plot.sh" -o "$dir/demo-psi.png" -t "$title" -s 1200x500 "${common[@]}" "${psi[@]}" || rc=$?
"$HERE/plot.sh" -o "$dir/demo-reclaimed.png" -t "$title" -s 1200x500 "${common[@]}" "${rec[@]}" || rc=$?
exit "$rc"
