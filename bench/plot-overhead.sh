#!/usr/bin/env bash
# bench/plot-overhead.sh RAW OUT.png - the curves of bench/overhead.sh: CPU per tick and the
# agent's peak RSS against the number of managed cgroups, from its raw records (RAW, lines
# "rec where=W n=N kind=K key=value ..."; repeated records reduced to their median, as
# bench/table.awk does). Panels, each a line per part that has records (host: the fake tree on
# tmpfs; VM: real cgroups, dashed; the VM's tmpfs calibration is left out):
#   CPU per tick, ms (log-log): the warm tick, the first tick of --once, and the floors any agent
#   pays to read the same files (hot1: the agent's way; open: open/read/close every file)
#   peak RSS, MiB: the warm runs' (the --once runs' where a size had no warm run)
# Also writes OUT.png's series as OUT-{cpu,rss}.tsv. Prints "plot: OUT.png". Exit status: that of
# bench/plot.sh (0 written, 1 no records or gnuplot failed, 3 no gnuplot).
set -eu -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
raw=${1:?usage: bench/plot-overhead.sh RAW OUT.png}
out=${2:?usage: bench/plot-overhead.sh RAW OUT.png}
base=${out%.png}
mkdir -p "$(dirname "$out")"

awk -v cpu="$base-cpu.tsv" -v rss="$base-rss.tsv" '
	function median(list,    n, a, i, j, t) {
		n = split(list, a, ",")
		for (i = 2; i <= n; i++) {
			t = a[i] + 0
			for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 != "rec" { next }
	{
		delete f
		for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
		w = f["where"]; n = f["n"]; k = f["kind"]
		if (w == "vm-tmpfs" || n !~ /^[0-9]+$/) next
		if (!((w, n) in seen)) { seen[w, n] = 1; ns[w] = ns[w] " " n; if (!(w in wseen)) { wseen[w] = 1; ws[++nw] = w } }
		for (key in f) if (f[key] ~ /^[0-9.]+$/) v[w, n, k, key] = v[w, n, k, key] (v[w, n, k, key] == "" ? "" : ",") f[key]
	}
	END {
		split("agent-warm agent-cold floor-hot1 floor-open", kinds, " ")
		label["agent-warm"] = "reclaimd warm tick"; label["agent-cold"] = "reclaimd first tick (--once)"
		label["floor-hot1"] = "hot1 floor (the same files, read the agent\47s way)"
		label["floor-open"] = "open floor (open, read, close every file)"
		place["host-tmpfs"] = "host (fake tree on tmpfs)"; place["vm-kernfs"] = "VM (real cgroups)"
		print "series\tx\ty" > cpu; print "series\tx\ty" > rss
		for (i = 1; i <= nw; i++) {
			w = ws[i]; pl = (w in place) ? place[w] : w
			m = split(substr(ns[w], 2), sizes, " ")
			for (j = 1; j <= m; j++) {
				n = sizes[j]
				for (q = 1; q <= 4; q++) {
					k = kinds[q]
					if (v[w, n, k, "cpu_us"] != "") {
						# "kind, place": bench/plot.sh -g gives a kind one colour in both places.
						printf "%s, %s\t%s\t%.3f\n", label[k], pl, n, median(v[w, n, k, "cpu_us"]) / 1000 > cpu
					}
				}
				r = v[w, n, "agent-warm", "rss_kib"]; if (r == "") r = v[w, n, "agent-cold", "rss_kib"]
				if (r != "") printf "reclaimd peak RSS, %s\t%s\t%.2f\n", pl, n, median(r) / 1024 > rss
			}
		}
	}' "$raw"
"$HERE/plot.sh" -o "$out" -t "bench/overhead.sh: reclaimd's cost against the number of managed cgroups (medians)" \
	-s 1100x1000 -x 'managed cgroups' -g -d 'VM' -k 'inside left top' \
	-p 'CPU per tick (dashed: in the VM, whose emulated CPU is 5-30x slower)' -y 'CPU per tick, ms' -l -L -P "$base-cpu.tsv" \
	-p "the agent's peak resident set" -y 'peak RSS, MiB' -l -z -P "$base-rss.tsv"
