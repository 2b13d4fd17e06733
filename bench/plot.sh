#!/usr/bin/env bash
# bench/plot.sh - the one gnuplot helper of the demo and the benchmarks: line plots of
# long-format data to a PNG, one panel or several (stacked, or in columns).
#
# Usage: bench/plot.sh -o OUT.png [-t TITLE] [-s WIDTHxHEIGHT] [-c COLUMNS] PANEL...
#   PANEL is [panel options] DATA; the options before a DATA apply to its panel:
#     -p TITLE    the panel's title
#     -x LABEL    x axis label      (kept for the following panels until given again)
#     -y LABEL    y axis label      (kept)
#     -d REGEX    series whose name matches REGEX (awk ERE) are drawn dashed (kept)
#     -g          series whose names are the same up to a first ", " share a colour (kept)
#     -k KEY      where the legend goes, as gnuplot's "set key" takes it (kept; default
#                 "outside right top", e.g. "inside left top" or "below")
#     -l, -L      logarithmic x axis, y axis (this panel only)
#     -z          the y axis starts at 0 (this panel only)
#     -P          a point at every sample (this panel only)
#   DATA is a file of tab-separated lines "series<TAB>x<TAB>y", x and y numbers; a first line
#   starting with "series" is a header, lines starting with "#" are comments. Each series is a
#   line, in the order its name first appears; the legend shows the names.
#   -s is the whole picture's size in pixels (default 1100 wide, 380 high per row of panels).
#
# Exit status: 0 the PNG was written (and "plot: OUT.png" printed on stdout); 1 bad usage or
# input (a line that is not three fields, a non-numeric x or y, a panel without data) or gnuplot
# failed, and then no OUT.png is left; 3 gnuplot is not installed: says so on stderr, writes
# nothing. Callers that must not fail (the demo, the benchmarks) ignore the status.
set -eu -o pipefail

die() { echo "plot: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 1; }
# A gnuplot single-quoted string: a quote inside is doubled.
q() { printf "'%s'" "${1//\'/\'\'}"; }

out='' title='' size='' cols=1
xlabel='' ylabel='' dash='' group=0
ptitle='' logx=0 logy=0 points=0 zero=0 key='outside right top'
panels=()
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Checks DATA and writes it as gnuplot blocks, one per series (index 0, 1, ...), into $tmp/pN.dat
# and the series' names, one a line, into $tmp/pN.names.
add_panel() { # DATA
	local n=${#panels[@]}
	[ -r "$1" ] || die "cannot read $1"
	awk -F'\t' -v dat="$tmp/p$n.dat" -v names="$tmp/p$n.names" -v file="$1" '
		function num(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
		FNR == 1 && $1 == "series" { next }
		/^#/ || /^[ \t]*$/ { next }
		{
			if (NF != 3 || $1 == "" || !num($2) || !num($3)) {
				printf "plot: %s line %d: not \"series<TAB>x<TAB>y\" with numbers: %s\n", file, FNR, $0 > "/dev/stderr"
				bad = 1; exit
			}
			if (!($1 in idx)) { idx[$1] = ns + 0; name[ns++] = $1 }
			pts[idx[$1]] = pts[idx[$1]] $2 " " $3 "\n"
		}
		END {
			if (bad) exit 1
			if (ns == 0) { printf "plot: %s: no data\n", file > "/dev/stderr"; exit 1 }
			for (i = 0; i < ns; i++) {
				printf "%s\n\n", pts[i] > dat
				print name[i] > names
			}
		}' "$1" || exit 1
	panels+=("$n")
	printf '%s\n' "$ptitle" >"$tmp/p$n.title"
	printf '%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n' "$xlabel" "$ylabel" "$dash" "$group" "$logx" "$points" "$logy" \
		"$zero" "$key" >"$tmp/p$n.opts"
	ptitle='' logx=0 logy=0 points=0 zero=0
}

while [ $# -gt 0 ]; do
	case $1 in
	-o) out=${2:?}; shift ;;
	-t) title=${2?}; shift ;;
	-s) size=${2:?}; shift ;;
	-c) cols=${2:?}; shift ;;
	-p) ptitle=${2?}; shift ;;
	-x) xlabel=${2?}; shift ;;
	-y) ylabel=${2?}; shift ;;
	-d) dash=${2?}; shift ;;
	-g) group=1 ;;
	-l) logx=1 ;;
	-L) logy=1 ;;
	-z) zero=1 ;;
	-k) key=${2:?}; shift ;;
	-P) points=1 ;;
	-h | --help) usage ;;
	-*) echo "plot: unknown option $1" >&2; usage ;;
	*) add_panel "$1" ;;
	esac
	shift
done
[ -n "$out" ] || usage
[ ${#panels[@]} -gt 0 ] || usage
case $cols in '' | *[!0-9]* | 0) die "bad -c '$cols'" ;; esac
rows=$(((${#panels[@]} + cols - 1) / cols))
[ -n "$size" ] || size=1100,$((380 * rows))
size=${size/x/,}
case $size in [0-9]*,[0-9]*) ;; *) die "bad -s '$size' (WIDTHxHEIGHT)" ;; esac

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "plot: gnuplot is not installed (Debian package gnuplot-nox; make deps installs it): no $out" >&2
	exit 3
fi

# Colours that stay apart on white and in print; dashed series use the same ones.
palette=('#1f77b4' '#d62728' '#2ca02c' '#ff7f0e' '#9467bd' '#8c564b' '#e377c2' '#7f7f7f')
{
	echo "set terminal pngcairo size $size noenhanced font 'sans,11' linewidth 1.5"
	echo "set output $(q "$tmp/out.png")"
	echo "set grid"
	echo "set datafile separator ' '"
	echo "set multiplot layout $rows,$cols title $(q "$title") font ',13'"
	for n in "${panels[@]}"; do
		mapfile -t o <"$tmp/p$n.opts"
		pt=$(cat "$tmp/p$n.title")
		echo "set title $(q "$pt")"
		echo "set xlabel $(q "${o[0]}")"
		echo "set ylabel $(q "${o[1]}")"
		if [ "${o[4]}" = 1 ]; then echo "set logscale x"; else echo "unset logscale x"; fi
		if [ "${o[6]}" = 1 ]; then echo "set logscale y"; else echo "unset logscale y"; fi
		if [ "${o[7]}" = 1 ]; then echo "set yrange [0:*]"; else echo "set yrange [*:*]"; fi
		echo "set key ${o[8]} vertical Left reverse samplen 3"
		style="lines lw 2"
		[ "${o[5]}" = 1 ] && style="linespoints lw 2 pt 7 ps 0.8"
		cmd=() i=0 ncol=0
		declare -A colour_of=()
		while IFS= read -r name; do
			key=$name
			[ "${o[3]}" = 1 ] && key=${name%%, *}
			if [ -z "${colour_of[$key]:-}" ]; then
				colour_of[$key]=${palette[$((ncol % ${#palette[@]}))]}
				ncol=$((ncol + 1))
			fi
			dt=1
			[ -n "${o[2]}" ] && awk -v s="$name" -v re="${o[2]}" 'BEGIN { exit !(s ~ re) }' && dt=2
			cmd+=("$(q "$tmp/p$n.dat") index $i using 1:2 with $style lc rgb '${colour_of[$key]}' dt $dt title $(q "$name")")
			i=$((i + 1))
		done <"$tmp/p$n.names"
		unset colour_of
		echo "plot $(IFS=,; echo "${cmd[*]}")"
	done
	echo "unset multiplot"
	echo "unset output"
} >"$tmp/plot.gp"

gnuplot "$tmp/plot.gp" 2>"$tmp/gnuplot.err" || {
	cat "$tmp/gnuplot.err" >&2
	die "gnuplot failed; no $out"
}
[ -s "$tmp/out.png" ] || die "gnuplot wrote no $out"
mkdir -p "$(dirname "$out")"
mv -f "$tmp/out.png" "$out"
echo "plot: $out"
