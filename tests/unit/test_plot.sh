#!/usr/bin/env bash
# test_plot.sh - the plots of make demo and the benchmarks (bench/plot.sh, bench/plot-demo.sh,
# bench/plot-overhead.sh), on recorded fixtures (tests/fixtures/plot/: a slice of a make demo
# run's samples, a small bench/overhead.sh --no-vm raw.txt). Checks that a real PNG comes out
# (signature, IHDR size as asked, well more bytes than an empty frame of that size), that the series
# drawn are the fixture's numbers, that bad input fails without leaving a PNG, and that a
# missing gnuplot is said and exits 3. Ends "test_plot.sh: N passed, N failed, N skipped", like
# the C unit tests; without gnuplot the drawing checks are skipped, not passed.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$REPO/tests/fixtures/plot
TEST_NAME=test_plot.sh
. "$REPO/tests/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# png_ok FILE WIDTH HEIGHT MIN_BYTES: the PNG signature, an IHDR of WIDTH x HEIGHT, at least
# MIN_BYTES.
png_ok() {
	[ -f "$1" ] || { echo "no $1" >&2; return 1; }
	local sig dims size
	sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
	[ "$sig" = 89504e470d0a1a0a ] || { echo "$1: signature $sig" >&2; return 1; }
	[ "$(od -An -c -j12 -N4 "$1" | tr -d ' \n')" = IHDR ] || { echo "$1: no IHDR first" >&2; return 1; }
	dims=$(od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d", (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }')
	[ "$dims" = "$2 $3" ] || { echo "$1: $dims, not $2 $3" >&2; return 1; }
	size=$(wc -c <"$1")
	[ "$size" -ge "$4" ] || { echo "$1: $size bytes, fewer than $4" >&2; return 1; }
}

# field FILE SERIES X: the y of SERIES at X in a long-format TSV.
field() { awk -F'\t' -v s="$2" -v x="$3" '$1 == s && $2 == x { print $3; exit }' "$1"; }

# ---- no gnuplot: a clear message, exit 3, no file (runs with or without gnuplot installed) ----
nogp=$tmp/nogp-bin
mkdir -p "$nogp"
for t in bash awk mktemp rm cat mkdir mv dirname sed; do
	p=$(command -v "$t") && ln -s "$p" "$nogp/$t"
done
PATH=$nogp "$REPO/bench/plot.sh" -o "$tmp/nogp.png" "$FIX/demo/plot-memory-small.tsv" 2>"$tmp/nogp.err" >/dev/null
rc=$?
check "no gnuplot: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "no gnuplot: says so and names the package" grep -q 'gnuplot is not installed (Debian package gnuplot-nox' "$tmp/nogp.err"
check "no gnuplot: no PNG" [ ! -e "$tmp/nogp.png" ]

if ! command -v gnuplot >/dev/null 2>&1; then
	skip "plot: gnuplot is not installed (Debian package gnuplot-nox): the drawing checks did not run"
	summary
fi

# ---- the demo: four PNGs from the recorded samples -----------------------------------------
d=$tmp/demo
mkdir -p "$d"
cp "$FIX"/demo/samples-without.tsv "$FIX"/demo/samples-with.tsv "$FIX"/demo/vm-info.txt "$d/"
"$REPO/bench/plot-demo.sh" "$d" >"$tmp/demo.out" 2>"$tmp/demo.err"
rc=$?
check "plot-demo: exit 0 (got $rc: $(head -c 300 "$tmp/demo.err"))" [ "$rc" -eq 0 ]
check "plot-demo: demo.png is a 1200x1150 PNG with content" png_ok "$d/demo.png" 1200 1150 60000
for p in memory psi reclaimed; do
	check "plot-demo: demo-$p.png is a 1200x500 PNG with content" png_ok "$d/demo-$p.png" 1200 500 25000
	check "plot-demo: prints demo-$p.png's path" grep -qx "plot: $d/demo-$p.png" "$tmp/demo.out"
done
# The series are the fixture's numbers (see tests/fixtures/plot/README).
check "plot-demo: four series" [ "$(awk -F'\t' 'NR > 1 { s[$1] } END { print length(s) }' "$d/plot-memory.tsv")" = 4 ]
first=$(awk -F'\t' '$2 == "batch" { print $1; exit }' "$d/samples-with.tsv")
want=$(awk -F'\t' '$2 == "batch" { printf "%.2f", $3 / 1048576; exit }' "$d/samples-with.tsv")
check "plot-demo: memory.current in MiB ($want at $first s)" [ "$(field "$d/plot-memory.tsv" "batch, with reclaimd" "$first")" = "$want" ]
want=$(awk -F'\t' '$2 == "batch" { if (!n++) s0 = $5; t = $1; s = $5 } END { printf "%.2f", (s - s0) * 4096 / 1048576 }' "$d/samples-with.tsv")
last=$(awk -F'\t' '$2 == "batch" { t = $1 } END { print t }' "$d/samples-with.tsv")
check "plot-demo: reclaimed = pgsteal growth in MiB ($want at $last s)" [ "$(field "$d/plot-reclaimed.tsv" "batch, with reclaimd" "$last")" = "$want" ]
check "plot-demo: something was reclaimed in the fixture" awk -v w="$want" 'BEGIN { exit !(w > 1) }'
# PSI at the last sample: the counter's growth over the last >= 10 s, as a share of that time.
want=$(awk -F'\t' '$2 == "web" { t[n] = $1; p[n++] = $4 } END {
	j = 0; while (j + 1 < n - 1 && t[n - 1] - t[j + 1] >= 10) j++
	printf "%.3f", 100 * (p[n - 1] - p[j]) / ((t[n - 1] - t[j]) * 1e6) }' "$d/samples-with.tsv")
check "plot-demo: PSI some % over 10 s ($want at $last s)" [ "$(field "$d/plot-psi.tsv" "web, with reclaimd" "$last")" = "$want" ]
check "plot-demo: PSI is never negative" awk -F'\t' 'NR > 1 && $3 < 0 { exit 1 }' "$d/plot-psi.tsv"
# PSI stayed 0 in the recorded run; rows whose answer is known: 250 ms of stall in the first 5 s
# is 5 %, 1 s in the first 12 s (no sample 10 s before t=12 but the first) is 8.333 %.
p=$tmp/psi
mkdir -p "$p"
printf 't\tcgroup\tcurrent\tpsi_some_us\tpgsteal\tswap\n0.0\tweb\t1048576\t0\t0\t0\n5.0\tweb\t1048576\t250000\t0\t0\n12.0\tweb\t1048576\t1000000\t0\t0\n' \
	| tee "$p/samples-without.tsv" >"$p/samples-with.tsv"
"$REPO/bench/plot-demo.sh" "$p" >/dev/null 2>&1
check "plot-demo: PSI 5 % at 5 s" [ "$(field "$p/plot-psi.tsv" "web, with reclaimd" 5.0)" = 5.000 ]
check "plot-demo: PSI 8.333 % at 12 s" [ "$(field "$p/plot-psi.tsv" "web, without reclaimd" 12.0)" = 8.333 ]

# Without samples (a run from before them): exit 1 and a message, no PNG.
mkdir -p "$tmp/empty"
"$REPO/bench/plot-demo.sh" "$tmp/empty" >/dev/null 2>"$tmp/empty.err"
rc=$?
check "plot-demo without samples: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "plot-demo without samples: says which file" grep -q 'no .*samples-without.tsv' "$tmp/empty.err"
check "plot-demo without samples: no PNG" [ ! -e "$tmp/empty/demo.png" ]

# ---- bench/plot.sh: bad input fails and leaves no PNG ------------------------------------
printf 'series\tx\ty\nweb\t1\t2\nweb\t2\tlots\n' >"$tmp/bad.tsv"
"$REPO/bench/plot.sh" -o "$tmp/bad.png" "$tmp/bad.tsv" >/dev/null 2>"$tmp/bad.err"
rc=$?
check "plot: a non-numeric y: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "plot: a non-numeric y: names the line" grep -q 'bad.tsv line 3' "$tmp/bad.err"
check "plot: a non-numeric y: no PNG" [ ! -e "$tmp/bad.png" ]
printf 'series\tx\ty\n' >"$tmp/nodata.tsv"
"$REPO/bench/plot.sh" -o "$tmp/nodata.png" "$tmp/nodata.tsv" >/dev/null 2>&1
rc=$?
check "plot: a panel without data: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "plot: a panel without data: no PNG" [ ! -e "$tmp/nodata.png" ]
# The size asked for is the size written, and the fixture's lines are more than an empty frame
# (a single point, about 7 KB at this size).
printf 'series\tx\ty\none\t1\t1\n' >"$tmp/one.tsv"
"$REPO/bench/plot.sh" -o "$tmp/one.png" -s 640x300 -t 'one' -x s -y MiB "$tmp/one.tsv" >/dev/null 2>&1
"$REPO/bench/plot.sh" -o "$tmp/small.png" -s 640x300 -t 'one' -x s -y MiB "$FIX/demo/plot-memory-small.tsv" >/dev/null 2>&1
check "plot: -s 640x300 gives a 640x300 PNG" png_ok "$tmp/one.png" 640 300 1000
check "plot: the fixture's lines add to the empty frame" png_ok "$tmp/small.png" 640 300 $(($(wc -c <"$tmp/one.png" 2>/dev/null || echo 0) * 5 / 4))

# ---- bench/overhead.sh's curves ------------------------------------------------------------
"$REPO/bench/plot-overhead.sh" "$FIX/overhead-raw.txt" "$tmp/ovh/overhead.png" >/dev/null 2>"$tmp/ovh.err"
rc=$?
check "plot-overhead: exit 0 (got $rc: $(head -c 300 "$tmp/ovh.err"))" [ "$rc" -eq 0 ]
check "plot-overhead: overhead.png is a 1100x1000 PNG with content" png_ok "$tmp/ovh/overhead.png" 1100 1000 40000
# The warm tick at 1000 cgroups is the median of the fixture's agent-warm cpu_us, in ms.
want=$(awk '$1 == "rec" && $3 == "n=1000" && $4 == "kind=agent-warm" { sub(/cpu_us=/, "", $5); printf "%.3f", $5 / 1000 }' "$FIX/overhead-raw.txt")
check "plot-overhead: warm tick at 1000 cgroups is $want ms" [ "$(field "$tmp/ovh/overhead-cpu.tsv" "reclaimd warm tick, host (fake tree on tmpfs)" 1000)" = "$want" ]

summary
