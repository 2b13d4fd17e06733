#!/usr/bin/env bash
# bench/apps.sh - real applications under their own load generators, side by side per arm
# (issue 28 item 1).
#
# Usage: bench/apps.sh [--apps "kv fio"] [--arms "ARM..."] [--seconds S] [--runs N] [--out DIR]
#                      [--env KEY=VALUE] [--agent PATH] [--report-only]
#
# One VM boot (tests/vm/run.sh, Debian's Linux 6.12; 2 nodes x 1024M, zram 512M + disk swap 1G,
# a 2G ext2 /data) per application, arm and run. In each, two identical instances of the
# application: "a", managed by the arm, and "b", which nothing manages, loaded at the same moment
# with the same load (tests/vm/scenarios/apps.sh has the details). The application's own numbers
# are reported per instance and as the paired ratio a/b, which cancels the emulator's swings
# between and within boots (docs/comparison.md "Real applications").
#   --apps "..."    kv: redis-server 7.0 (about 330 MiB each) read by redis-benchmark, 82 % of
#                       the reads on a hot 10 % of the keys
#                   kv-move: kv whose hot 10 % moves to keys nothing read before, halfway
#                       (APPS_KV_MOVE_AT)
#                   kv-scan: kv plus a full read of every key every 60 s (APPS_KV_SCAN_S)
#                   fio: fio 3.33 reading a 300 MiB file (page cache) with zipf:1.1 offsets at
#                       2,000 reads/s
#                   db: PostgreSQL 15 (pgbench scale 16, about 250 MiB, mostly page cache) read
#                       by pgbench: primary-key SELECTs, Zipfian 1.1 keys, 100 transactions/s
#                   (default: "kv fio")
#   --arms "..."    none, senpai (oomd 0.5.0, Meta's "poking" settings), damon-sysfs
#                   (DAMON_RECLAIM's scheme through sysfs, filtered to instance a's memcg),
#                   reclaimd-defaults ({"match": "system.slice/*.service"}), reclaimd-ageonly
#                   (the same with min_bytes 1T: ages, never evicts)
#                   (default: "none senpai damon-sysfs reclaimd-defaults")
#   --seconds S     measured seconds per run (default 150)
#   --runs N        runs per arm (default 1); runs are interleaved (all arms, then again)
#   --out DIR       results (default bench/out/apps)
#   --env KEY=VALUE passed to the guest scenario (repeatable), e.g. APPS_KV_HOT_N=2000
#   --agent PATH    the reclaimd binary for the reclaimd arms (default ./reclaimd); copied
#                   before the first boot, so a rebuild during the runs changes nothing
#   --report-only   boot nothing; print the tables and plot from DIR/raw again
#
# Needs on the host (Debian 12, like the guest): redis-server, redis-tools, fio and postgresql-15
# (`apt-get install redis-server redis-tools fio postgresql`); their binaries go into the guest
# with their shared libraries (run.sh --exe), PostgreSQL's share/ and the modules db loads
# (plpgsql, dict_snowball, pg_prewarm) with run.sh --file. oomd is fetched as bench/peers.sh does. Every run records the
# host's load average before and after it (host-load.txt): the guest's speed follows it.
#
# Writes DIR/raw/<app>/<arm>/r<i>/ (the VM's results), DIR/table.txt and DIR/apps.png. Takes
# about S + 60 s per app, arm and run (kv fills 2 x 330 MiB first, 34 s in a smoke run).
set -eu -o pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

apps="kv fio"
arms="none senpai damon-sysfs reclaimd-defaults"
seconds=150
runs=1
out=bench/out/apps
report_only=0
agent=./reclaimd
envs=()
die() { echo "apps: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--apps) apps=${2:?}; shift ;;
	--arms) arms=${2:?}; shift ;;
	--seconds) seconds=${2:?}; shift ;;
	--runs) runs=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--env) envs+=(--env "${2:?}"); shift ;;
	--agent) agent=${2:?}; shift ;;
	--report-only) report_only=1 ;;
	-h | --help) usage ;;
	*) echo "apps: unknown argument $1" >&2; usage ;;
	esac
	shift
done
case $seconds in '' | *[!0-9]*) die "bad --seconds '$seconds'" ;; esac
case $runs in '' | *[!0-9]* | 0) die "bad --runs '$runs'" ;; esac
for a in $arms; do
	case $a in none | senpai | damon-sysfs | reclaimd-defaults | reclaimd-ageonly) ;;
	*) die "unknown arm '$a'" ;;
	esac
done
for p in $apps; do
	case $p in kv | kv-move | kv-scan | fio | db) ;; *) die "unknown app '$p'" ;; esac
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
PG=/usr/lib/postgresql/15
# exe_args APP: the --exe (and --file) arguments that put APP's binaries into the guest.
exe_args() {
	local b bins m
	case $1 in
	kv*) bins="redis-server redis-benchmark redis-cli" ;;
	fio) bins="fio" ;;
	db)
		for b in postgres initdb; do
			[ -x "$PG/bin/$b" ] || die "no $PG/bin/$b on this host: apt-get install postgresql"
			printf '%s\n' --exe "$PG/bin/$b:$PG/bin/$b"
		done
		printf '%s\n' --exe "$PG/bin/pgbench:/usr/bin/pgbench" --exe "$PG/bin/psql:/usr/bin/psql"
		printf '%s\n' --file "/usr/share/postgresql/15:/usr/share/postgresql/15"
		for m in plpgsql dict_snowball pg_prewarm; do
			printf '%s\n' --file "$PG/lib/$m.so:$PG/lib/$m.so"
		done
		return 0
		;;
	esac
	for b in $bins; do
		command -v "$b" >/dev/null || die "no $b on this host: apt-get install redis-server redis-tools fio"
		printf '%s\n' --exe "$(readlink -f "$(command -v "$b")"):/usr/bin/$b"
	done
}

if [ "$report_only" -eq 0 ]; then
	[ -x "$agent" ] || die "no $agent: run make first"
	mkdir -p "$out"
	cp "$agent" "$out/reclaimd" || die "cannot copy $agent to $out"
	vmargs=(--node-mem 1024M --data-size 2G --timeout $((seconds + 900)) --agent "$out/reclaimd")
	if oomd=$(fetch_oomd); then
		vmargs+=(--exe "$oomd:/usr/bin/oomd")
	else
		echo "apps: could not fetch oomd (apt-get download oomd): the senpai arm will fail" >&2
	fi
	# Every application's binaries are checked once, before any boot.
	for p in $apps; do
		exe_args "$p" >/dev/null || exit 1
	done
	for r in $(seq 1 "$runs"); do
		for p in $apps; do
			exes_out=$(exe_args "$p") || exit 1
			mapfile -t exes <<<"$exes_out"
			for a in $arms; do
				d=$out/raw/$p/$a/r$r
				mkdir -p "$d"
				echo "apps: run $r/$runs, $p, arm $a: ${seconds} s (VM output: $d)" >&2
				load0=$(cut -d' ' -f1-3 /proc/loadavg)
				if ! tests/vm/run.sh "${vmargs[@]}" "${exes[@]}" "${envs[@]}" --env APPS_ARM="$a" \
					--env APPS_APP="$p" --env APPS_SECONDS="$seconds" \
					tests/vm/scenarios/apps.sh "$d" >"$d.run.log" 2>&1; then
					echo "apps: $p arm $a run $r: the VM run failed; see $d.run.log" >&2
				fi
				printf 'before\t%s\nafter\t%s\n' "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" >"$d/host-load.txt"
			done
		done
	done
fi

# Every run's files, one tagged line each (bench/apps-table.awk lists the tags).
all=$out/all.tsv
: >"$all"
for p in $apps; do
	for a in $arms; do
		for d in "$out/raw/$p/$a"/r*/; do
			[ -d "$d" ] || continue
			r=${d%/}
			r=${r##*/r}
			tag() { awk -v t="$1" -v r="$r" -v p="$p" -v a="$a" 'FNR > 1 { print t "\t" r "\t" p "\t" a "\t" $0 }' "$2"; }
			if [ -s "$d/agent.tsv" ] && [ "$(cat "$d/scenario.rc" 2>/dev/null)" = 0 ]; then
				# samples.tsv starts with the arm: S r app arm t_s inst ...
				awk -v r="$r" -v p="$p" 'FNR > 1 { print "S\t" r "\t" p "\t" $0 }' "$d/samples.tsv" >>"$all"
				[ -s "$d/kv-chunks.tsv" ] && tag K "$d/kv-chunks.tsv" >>"$all"
				tag F "$d/app.tsv" >>"$all"
				awk -v r="$r" -v p="$p" 'FNR > 1 { print "A\t" r "\t" p "\t" $1 "\t" $2 "\t" $3 "\t" $4 }' "$d/agent.tsv" >>"$all"
			else
				printf 'A\t%s\t%s\t%s\tfailed:vm-or-scenario\t-\t-\n' "$r" "$p" "$a" >>"$all"
			fi
			[ -s "$d/host-load.txt" ] &&
				printf 'H\t%s\t%s\t%s\t%s\t%s\n' "$r" "$p" "$a" "$(sed -n 's/^before\t//p' "$d/host-load.txt")" \
					"$(sed -n 's/^after\t//p' "$d/host-load.txt")" >>"$all"
		done
	done
done
[ -s "$all" ] || die "no results in $out/raw"
rm -f "$out"/plot-*.tsv
kernel=$(cat "$out"/raw/*/*/r*/vm-info.txt 2>/dev/null | sed -n 's/^kernel=//p' | head -1) || true

{
	echo "## bench/apps.sh: Linux ${kernel:-?} in qemu (TCG), 2 x 1024M, zram 512M + disk swap 1G;" \
		"instance a managed by the arm, b by nothing, loaded together"
	echo
	awk -v apps="$apps" -v arms="$arms" -v plotdir="$out" -f bench/apps-table.awk "$all"
	for f in "$out"/raw/*/damon-sysfs/r*/damon-stats.txt; do
		[ -s "$f" ] || continue
		r=${f%/damon-stats.txt}
		echo "damon: ${r#"$out"/raw/}: $(cat "$f")"
	done
} | tee "$out/table.txt"

# apps.png: per application, saved MiB of instance a and its pages back over time, one line per
# arm; for kv also the p99 ratio a/b of the all-keys stream per chunk.
plot_apps() {
	local p panels=() key=(-k 'inside left top')
	for p in $apps; do
		[ -s "$out/plot-$p-saved.tsv" ] || continue
		panels+=("${key[@]}" -x 'seconds since the run started' -y 'saved, MiB' -p "$p: instance a, memory saved" "$out/plot-$p-saved.tsv")
		key=(-k off)
		panels+=(-y 'pages back' -p "$p: instance a, pages back (cumulative)" "$out/plot-$p-back.tsv")
		[ -s "$out/plot-$p-p99.tsv" ] &&
			panels+=(-y 'p99 a / p99 b' -p "$p: p99 ratio a/b per 5 s chunk, all-keys stream" "$out/plot-$p-p99.tsv")
	done
	[ ${#panels[@]} -gt 0 ] || return 0
	bench/plot.sh -o "$out/apps.png" -s 1500x800 -c 3 \
		-t "Real applications, Linux ${kernel:-?} in qemu: instance a managed by the arm, b by nothing" "${panels[@]}"
}
plot_apps || echo "apps: no plot (see the line above)" >&2
