#!/bin/bash
# logvolume.sh - how many log lines reclaimd writes per minute at the default level (info), at
# 10, 100 and 1,000 managed cgroups, for one or two agent binaries side by side (before and after
# a change). A measurement, not a test: nothing is asserted.
#
# Usage: bench/logvolume.sh [options]
#   --sizes "N ..."   managed cgroups per fake tree (default "10 100 1000")
#   --seconds S       how long each agent runs (default 180; at least 90)
#   --interval I      the agents' tick interval in seconds (default 2)
#   --churn-pct P     per cent of the managed cgroups given a memory pressure spike every 10 s
#                     (default 10)
#   --after BIN       the agent to measure (default: ./reclaimd of this tree, built if missing)
#   --before BIN      another agent run beside it on the same trees (e.g. main's), optional
#   --sample N        keep the log of the --after agent at N cgroups as sample.log (default 1000)
#   --out DIR         where logs and the table go (default bench/out/logvolume)
#
# For each size: a fake cgroupfs (bench/gen_cgroupfs: the recorded files of a real 6.12 cgroup in
# every directory, Kubernetes-node shape) in a temporary directory, and each agent on it with
#   reclaimd --dry-run --cgroup-root TREE --allow-unsafe-paths --log-stderr --config C
# (a fake tree is not a cgroup2 mount: the test-only flag; --dry-run writes nothing), the
# configuration of bench/overhead.sh's shape with "log_level": "info", no status socket. Every
# size and both agents run at once, for the same S seconds. What the agents decide on the tree:
#   - the recorded PSI totals do not move, so each managed cgroup is below its PSI target and
#     asks for memory at every tick (in a dry run nothing is taken, so it keeps asking): routine
#     reclaim at its densest, one request per managed cgroup per tick;
#   - every 10 s a churner adds half an interval of stall to the "some" total of memory.pressure
#     in P % of the managed cgroups (a different slice each round), so those cgroups stop for a
#     tick (memory PSI over the target) and start again: two changes of state per spike, the
#     events the info level is for.
# Counted: lines of each agent's stderr, over the whole run and over the steady part (from 60 s
# on: the start-up lines, one "managed by rule" line per cgroup and the feature probes, come
# first). Per minute = lines / seconds * 60.
#
# Output: DIR/table.txt (also printed), DIR/<label>-<N>.log (the agents' stderr), DIR/sample.log.
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)

sizes="10 100 1000"
seconds=180
interval=2
churn_pct=10
after=
before=
sample=1000
out=$REPO/bench/out/logvolume

usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-0}"
}
die() {
	echo "logvolume.sh: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	--interval) interval=$2; shift ;;
	--churn-pct) churn_pct=$2; shift ;;
	--after) after=$2; shift ;;
	--before) before=$2; shift ;;
	--sample) sample=$2; shift ;;
	--out) out=$2; shift ;;
	-h | --help) usage ;;
	*) echo "logvolume.sh: unknown option $1" >&2; usage 2 ;;
	esac
	shift
done
case $seconds in '' | *[!0-9]*) die "--seconds: a whole number of seconds, not '$seconds'" ;; esac
[ "$seconds" -ge 90 ] || die "--seconds $seconds: at least 90 (the steady part starts at 60 s)"
case $churn_pct in '' | *[!0-9]*) die "--churn-pct: a whole per cent, not '$churn_pct'" ;; esac
for n in $sizes; do
	case $n in '' | *[!0-9]*) die "--sizes: whole numbers, not '$n'" ;; esac
done
if [ -z "$after" ]; then
	after=$REPO/reclaimd
	[ -x "$after" ] || make -s -C "$REPO" reclaimd >&2
fi
[ -x "$after" ] || die "no agent at $after (make -j2, or --after BIN)"
[ -z "$before" ] || [ -x "$before" ] || die "--before $before: not an executable"

TEMPLATE=$REPO/tests/fixtures/real-6.12/sys/fs/cgroup/fixture
[ -f "$TEMPLATE/memory.stat" ] || die "no recorded cgroup at $TEMPLATE"
make -s -C "$HERE" >&2
GEN=$HERE/build/gen_cgroupfs

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/logvolume.XXXXXX")
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The rules of bench/overhead.sh for the generated shape.
write_config() { # FILE
	cat >"$1" <<EOF
{
  "interval": $interval,
  "log_level": "info",
  "status": { "socket": null },
  "rules": [
    { "match": "init.scope", "policy": "none" },
    { "match": "system.slice/systemd-*", "policy": "none" },
    { "match": "system.slice/*.service" },
    { "match": "kubepods.slice/**/*.scope", "min_bytes": "64M" },
    { "match": "user.slice/**", "psi_some_target_pct": 0.25, "probe_max": 0.3 }
  ]
}
EOF
}

# churn TREE LIST: every 10 s, adds half an interval of stall (microseconds) to the "some" total
# of memory.pressure in churn_pct % of the listed cgroups, a different slice each round.
churn() {
	local tree=$1 list=$2 n k round=0 add
	n=$(wc -l <"$list")
	k=$(((n * churn_pct + 99) / 100))
	add=$(awk -v i="$interval" 'BEGIN { printf "%d", i * 500000 }')
	[ "$k" -gt 0 ] || return 0
	while sleep 10; do
		awk -v k="$k" -v n="$n" -v r="$round" 'NR > (r * k) % n && NR <= (r * k) % n + k' "$list" |
			while read -r cg; do
				f=$tree/$cg/memory.pressure
				awk -v add="$add" '$1 == "some" { sub(/total=[0-9]+/, "total=" substr($5, 7) + add) } { print }' \
					"$f" >"$f.new" && cat "$f.new" 1<>"$f" && rm -f "$f.new"
			done
		round=$((round + 1))
	done
}

labels=after
[ -n "$before" ] && labels="before after"
echo "logvolume: sizes $sizes, $seconds s each, interval $interval s, churn $churn_pct % every 10 s" >&2
for n in $sizes; do
	mkdir -p "$work/$n"
	"$GEN" --cgroups "$n" --template "$TEMPLATE" --list "$work/$n/list" "$work/$n/tree" >&2
	write_config "$work/$n/config.json"
	for l in $labels; do
		bin=$after
		[ "$l" = before ] && bin=$before
		"$bin" --config "$work/$n/config.json" --dry-run --cgroup-root "$work/$n/tree" \
			--allow-unsafe-paths --log-stderr 2>"$out/$l-$n.log" &
		pids="$pids $!"
	done
	churn "$work/$n/tree" "$work/$n/list" &
	pids="$pids $!"
done
sleep 60
for n in $sizes; do
	for l in $labels; do
		wc -l <"$out/$l-$n.log" >"$work/$l-$n.at60"
	done
done
sleep $((seconds - 60))
for n in $sizes; do
	for l in $labels; do
		wc -l <"$out/$l-$n.log" >"$work/$l-$n.end"
	done
done
for p in $pids; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=

{
	echo "reclaimd log lines at the default level (info), $seconds s per run, interval $interval s,"
	echo "--dry-run on a fake cgroupfs (every managed cgroup asks at every tick), $churn_pct % of the"
	echo "cgroups given a memory pressure spike every 10 s; steady: from 60 s on"
	echo
	printf '%-8s %8s %12s %16s %14s\n' agent cgroups "lines" "lines/min all" "lines/min steady"
	for n in $sizes; do
		for l in $labels; do
			a60=$(cat "$work/$l-$n.at60")
			end=$(cat "$work/$l-$n.end")
			awk -v l="$l" -v n="$n" -v a="$a60" -v e="$end" -v s="$seconds" 'BEGIN {
				printf "%-8s %8d %12d %16.0f %14.0f\n", l, n, e, e / s * 60, (e - a) / (s - 60) * 60 }'
		done
	done
	echo
	for l in $labels; do
		echo "$l: $(if [ "$l" = before ]; then echo "$before"; else echo "$after"; fi)"
	done
} | tee "$out/table.txt"
for n in $sizes; do
	[ "$n" = "$sample" ] && cp "$out/after-$n.log" "$out/sample.log"
done
exit 0
