#!/usr/bin/env bash
# bench/peers.sh - reclaimd side by side with other proactive reclaimers (issue 12 part 1).
#
# Usage: bench/peers.sh [--seconds S] [--runs N] [--arms "ARM..."] [--out DIR] [--report-only]
#
# One VM boot (tests/vm/run.sh, Debian's Linux 6.12) per arm and run, all with the same guest
# (2 nodes x 1024M, 512M zram + 1G disk swap, a 512M ext2 /data) and the same five workloads of
# tests/vm/scenarios/peers.sh, started fresh each boot. Arms:
#   none               no reclaimer
#   senpai             oomd 0.5.0's Senpai (Debian's oomd package), Meta's "poking" settings
#   damon              DAMON_RECLAIM, built into the kernel (6.12: loses its scheme, reclaims 0)
#   damon-sysfs        DAMON_RECLAIM's scheme and parameters through the DAMON sysfs interface
#   reclaimd-shipped   reclaimd with config/reclaimd.json
#   reclaimd-defaults  reclaimd with only {"match": "system.slice/*.service"} (the code defaults)
#   reclaimd-memreclaim  the same with "mglru_aging": false (memory.reclaim instead of lru_gen)
#
#   --seconds S     measured seconds per run after the workloads are ready (default 300)
#   --runs N        runs per arm (default 3); runs are interleaved (all arms, then again)
#   --arms "..."    arms to run (default: all seven, in the order above)
#   --out DIR       results (default bench/out/peers)
#   --env KEY=VALUE passed to the guest scenario (repeatable), e.g. PEERS_DAMON_MIN_AGE_US=5000000
#                   for another DAMON_RECLAIM setting (see tests/vm/scenarios/peers.sh)
#   --report-only   do not boot anything; print the table and plot from DIR/raw again
#
# oomd is fetched with `apt-get download oomd` into bench/.cache/oomd (git-ignored) the first time;
# if that fails the senpai arm shows as failed. Every guest gets the same files (reclaimd, oomd,
# configs), so the arms differ only in what the scenario starts.
#
# Writes DIR/raw/<arm>/r<i>/ (the VM's results), DIR/table.txt and DIR/saved.png (gnuplot, when
# installed). Takes about (S + 70) s per arm and run.
set -eu -o pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

seconds=300
runs=3
arms="none senpai damon damon-sysfs reclaimd-shipped reclaimd-defaults reclaimd-memreclaim"
out=bench/out/peers
report_only=0
envs=()
die() { echo "peers: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=${2:?}; shift ;;
	--runs) runs=${2:?}; shift ;;
	--arms) arms=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--env) envs+=(--env "${2:?}"); shift ;;
	--report-only) report_only=1 ;;
	-h | --help) usage ;;
	*) echo "peers: unknown argument $1" >&2; usage ;;
	esac
	shift
done
case $seconds in '' | *[!0-9]*) die "bad --seconds '$seconds'" ;; esac
case $runs in '' | *[!0-9]* | 0) die "bad --runs '$runs'" ;; esac
for a in $arms; do
	case $a in none | senpai | damon | damon-sysfs | reclaimd-shipped | reclaimd-defaults | reclaimd-memreclaim) ;;
	*) die "unknown arm '$a'" ;;
	esac
done
mkdir -p "$out/raw"

# oomd from Debian's package, unpacked into a git-ignored cache; prints the binary's path.
fetch_oomd() {
	local cache=$REPO/bench/.cache/oomd
	if [ ! -x "$cache/root/usr/bin/oomd" ]; then
		rm -rf "$cache" && mkdir -p "$cache"
		(cd "$cache" && apt-get download oomd >download.log 2>&1 && dpkg-deb -x oomd_*.deb root) || return 1
	fi
	ldd "$cache/root/usr/bin/oomd" | grep -q 'not found' && return 1
	echo "$cache/root/usr/bin/oomd"
}

if [ "$report_only" -eq 0 ]; then
	[ -x ./reclaimd ] || die "no ./reclaimd: run make first"
	vmargs=(--node-mem 1024M --data-size 512M --timeout $((seconds + 600))
		--file config/reclaimd.json:/etc/reclaimd/reclaimd.json)
	if oomd=$(fetch_oomd); then
		vmargs+=(--exe "$oomd:/usr/bin/oomd")
	else
		echo "peers: could not fetch oomd (apt-get download oomd; its libraries: libjsoncpp25, libsystemd0):" \
			"the senpai arm will fail" >&2
	fi
	for r in $(seq 1 "$runs"); do
		for a in $arms; do
			d=$out/raw/$a/r$r
			mkdir -p "$d"
			echo "peers: run $r/$runs, arm $a: ${seconds} s (VM output: $d)" >&2
			if ! tests/vm/run.sh "${vmargs[@]}" "${envs[@]}" --env PEERS_ARM="$a" --env PEERS_SECONDS="$seconds" \
				tests/vm/scenarios/peers.sh "$d" >"$d.run.log" 2>&1; then
				echo "peers: arm $a run $r: the VM run failed; see $d.run.log" >&2
			fi
		done
	done
fi

arms_present=
for a in $arms; do [ -d "$out/raw/$a" ] && arms_present="$arms_present $a"; done
[ -n "$arms_present" ] || die "no results in $out/raw"
kernel=$(cat "$out"/raw/*/r*/vm-info.txt 2>/dev/null | sed -n 's/^kernel=//p' | head -1)

# Every run's samples, summary and agent line, tagged with the run number; a run without
# agent.tsv (the VM or the scenario failed) gets a "failed" agent line.
all=$out/all.tsv
: >"$all"
for a in $arms_present; do
	for d in "$out/raw/$a"/r*/; do
		r=${d%/}
		r=${r##*/r}
		if [ -s "$d/agent.tsv" ] && [ "$(cat "$d/scenario.rc" 2>/dev/null)" = 0 ]; then
			awk -v r="$r" 'FNR > 1 { print "S\t" r "\t" $0 }' "$d/samples.tsv" >>"$all"
			awk -v r="$r" 'FNR > 1 { print "W\t" r "\t" $0 }' "$d/summary.tsv" >>"$all"
			awk -v r="$r" 'FNR > 1 { print "A\t" r "\t" $0 }' "$d/agent.tsv" >>"$all"
		else
			printf 'A\t%s\t%s\tfailed:vm-or-scenario\t-\t-\n' "$r" "$a" >>"$all"
		fi
	done
done

# What the data says (not the options: --report-only may read an older pass).
nruns=$(awk -F'\t' '$1 == "A" { print $2 }' "$all" | sort -n | tail -1)
seconds=$(awk -F'\t' '$1 == "A" && $6 != "-" { print int($6) }' "$all" | sort -n | tail -1)
{
	echo "## bench/peers.sh: up to ${nruns:-?} run(s) per arm, ${seconds:-?} s each, Linux ${kernel:-?} in qemu (TCG), 2 x 1024M, zram 512M + disk swap 1G"
	echo
	awk -v arms="$arms_present" -v plotdir="$out" -f bench/peers-table.awk "$all"
	# The DAMON arms' scheme stats and probe counts, one line per run (damon-stats.txt).
	for a in $arms_present; do
		case $a in damon*) ;; *) continue ;; esac
		for f in "$out/raw/$a"/r*/damon-stats.txt; do
			[ -s "$f" ] || continue
			r=${f%/damon-stats.txt}
			echo "damon: $a ${r##*/}: $(cat "$f")"
		done
	done
} | tee "$out/table.txt"

# saved.png: the total over the five workloads, then one panel per workload; a line per arm
# (bench/plot.sh; without gnuplot it says so and the table stands).
plot_saved() {
	local a c panels=() key=(-k 'inside left top')
	local titles=('all five workloads' 'web (cold 240 MiB)' 'batch (cold 380 MiB)' 'filecache (cold 270 MiB)'
		'warm30 (cold 140 MiB)' 'warm50 (cold 100 MiB)')
	for c in 2 3 4 5 6 7; do
		: >"$out/saved-p$c.tsv"
		for a in $arms_present; do
			[ -s "$out/saved-$a.dat" ] || continue
			awk -v a="$a" -v c="$c" '!/^#/ && NF >= c { printf "%s\t%s\t%s\n", a, $1, $c }' "$out/saved-$a.dat" >>"$out/saved-p$c.tsv"
		done
		[ -s "$out/saved-p$c.tsv" ] || return 0
		panels+=("${key[@]}" -p "${titles[$((c - 2))]}" "$out/saved-p$c.tsv")
		key=(-k off)
	done
	bench/plot.sh -o "$out/saved.png" -s 1500x900 -c 3 \
		-t "Memory saved (memory.current at start - now, MiB; median over runs), Linux ${kernel:-?} in qemu" \
		-x 'seconds since the workloads were ready' -y 'saved, MiB' "${panels[@]}"
}
plot_saved || echo "peers: no plot (see the line above)" >&2
