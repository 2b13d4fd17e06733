#!/bin/bash
# overhead.sh - reclaimd's CPU time per tick next to the floor that any agent pays (reading the
# same kernel files once, bench/floor), printed as tables. The main figure is the warm tick over
# the "hot1" floor (the agent's own I/O strategy): what the agent adds on top of reading its files.
# Nothing here asserts timing; the goal lines say whether the goals are met.
#
# Usage: bench/overhead.sh [options]
#   --sizes "N ..."      host part: managed cgroups per fake tree (default "1000 3000 10000")
#   --runs R             --once runs per size (default 5); the median is shown
#   --ticks K            warm ticks per measured run (default 20 on the host, 8 in the VM)
#   --warm-runs W        warm runs per size (default 3)
#   --passes P           floor passes per mode (default 20 on the host, 10 in the VM)
#   --vm-sizes "N ..."   VM part: real cgroups per run (default "500 1000"); the tmpfs
#                        calibration in the VM uses the largest size that the host part also has
#   --vm-rounds R        VM part: rounds of (floor, cold run, warm run, floor modes) (default 3)
#   --no-host            skip the host part
#   --no-vm              skip the VM part
#   --out DIR            where raw records, logs and tables go (default bench/out/overhead)
#
# Host part: for each size a fake cgroupfs (bench/gen_cgroupfs: the recorded files of a real 6.12
# cgroup in every directory, Kubernetes-node shape) on a tmpfs; then
#   cold  `reclaimd --once --dry-run --cgroup-root T --allow-unsafe-paths --log-stderr --config C`
#         (a fake tree is not a cgroup2 mount: the test-only flag), R times: the CPU time up to
#         the end of its first tick (process start, configuration, discovery of a fresh tree
#         included), and the whole process's user/sys and peak RSS (--once runs a second
#         tick an interval later, which decides: the first only samples);
#   warm  the same without --once, interval 0.5 s, for 1+K ticks, W times: CPU per tick after the
#         first (bench/tickmeter reads the agent's CPU clock at each sd_notify STATUS=, which the
#         agent sends at the end of every tick); cross-checked with the rusage difference
#         between a 1+K-tick run and a --once run, per tick more;
#   floor bench/floor on the same tree, per pass: "open" (open/read/close every file: the floor),
#         "hot" (the agent's I/O strategy: hot files kept open and pread), "hot1" (hot, without
#         the read that only confirms EOF: the floor the tables compare against) and "used" (hot,
#         only the files the psi policy uses); "walk" is what listing every cgroup directory
#         costs (getdents over every cgroup): the agent's first tick pays it, later ticks list
#         only directories that inotify says changed.
# The agent is run with the open-files limit of systemd/reclaimd.service (LimitNOFILE=524288):
# a shell without CAP_SYS_RESOURCE cannot raise its hard limit, and with 20000 (seen on our
# development hosts) 10,000 cgroups need more fds than that (about 5 per managed cgroup): that
# size is then measured as a --once run only, and the table says how many cgroups were skipped.
#
# VM part: tests/vm/run.sh runs bench/vm-overhead.sh in Debian's 6.12 kernel (software
# emulation, one guest CPU): real cgroups under /sys/fs/cgroup/bench, the same measurements in
# interleaved rounds (the emulated machine's speed jumps by up to 2x for seconds at a time), plus
# a "live" run (not --dry-run: PSI triggers installed, min_bytes 1T so that nothing is reclaimed)
# and the same fake tree on the guest's tmpfs to calibrate emulation against the host.
#
# Output: DIR/raw.txt (one "rec" line per measurement), DIR/tables.txt (also printed), logs, and
# DIR/overhead.png (bench/plot-overhead.sh: CPU per tick and peak RSS against cgroups; gnuplot).
set -eu -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)

sizes="1000 3000 10000"
vm_sizes="500 1000"
vm_rounds=3
runs=5
ticks=
warm_runs=3
passes=
do_host=1
do_vm=1
out=$HERE/out/overhead

die() {
	echo "overhead.sh: $*" >&2
	exit 1
}
usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift ;;
	--vm-sizes) vm_sizes=$2; shift ;;
	--vm-rounds) vm_rounds=$2; shift ;;
	--runs) runs=$2; shift ;;
	--ticks) ticks=$2; shift ;;
	--warm-runs) warm_runs=$2; shift ;;
	--passes) passes=$2; shift ;;
	--no-host) do_host=0 ;;
	--no-vm) do_vm=0 ;;
	--out) out=$2; shift ;;
	-h | --help) usage ;;
	*) echo "overhead.sh: unknown argument $1" >&2; usage ;;
	esac
	shift
done

TEMPLATE=$REPO/tests/fixtures/real-6.12/sys/fs/cgroup/fixture
[ -f "$TEMPLATE/memory.stat" ] || die "no recorded cgroup at $TEMPLATE"
AGENT=$REPO/reclaimd
[ -x "$AGENT" ] || make -s -C "$REPO" reclaimd >&2
make -s -C "$HERE" >&2
GEN=$HERE/build/gen_cgroupfs
FLOOR=$HERE/build/floor
TICKMETER=$HERE/build/tickmeter

mkdir -p "$out"
out=$(cd "$out" && pwd)
RAW=$out/raw.txt
: >"$RAW"
LOG=$out/agent.log
: >"$LOG"

# "key=value" lines (tickmeter, floor) -> value of $2.
kv() {
	sed -n "s/^$2=//p" "$1" | head -1
}

# Median of KEY over the records of WHERE N KIND so far.
rec_median() { # WHERE N KIND KEY
	awk -v w="where=$1" -v n="n=$2" -v k="kind=$3" -v key="$4=" '
		$1 == "rec" && $2 == w && $3 == n && $4 == k {
			for (i = 5; i <= NF; i++)
				if (index($i, key) == 1)
					print substr($i, length(key) + 1)
		}' "$RAW" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

# The agent's rules for the generated shape: those of config/reclaimd.json that apply to it.
write_config() { # FILE ROOT_PREFIX EXTRA_DEFAULTS
	cat >"$1" <<EOF
{
  "interval": 0.5,
  "log_level": "warning",
  "defaults": { $3 },
  "rules": [
    { "match": "${2}init.scope", "policy": "none" },
    { "match": "${2}system.slice/systemd-*", "policy": "none" },
    { "match": "${2}system.slice/*.service" },
    { "match": "${2}kubepods.slice/**/*.scope", "min_bytes": "64M" },
    { "match": "${2}user.slice/**", "psi_some_target_pct": 0.25, "probe_max": 0.3 }
  ]
}
EOF
}

# ---- host part ------------------------------------------------------------------------------
host_part() {
	local work mnt n tree list cfg r t cold_u cold_s cold_t status emfile warm_n
	local k=${ticks:-20} p=${passes:-20}

	# The unit's limit (systemd/reclaimd.service); root may raise the hard limit.
	ulimit -Hn 524288 2>/dev/null || true
	ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
	echo "host: open files limit $(ulimit -n)" >&2

	work=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-bench.XXXXXX")
	mnt=$work/fs
	mkdir -p "$mnt"
	if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=8g,mode=0755 tmpfs "$mnt"; then
		# (|| true: the mount is normally gone by then, and under set -e the failed umount
		# would make the whole script exit 32.)
		trap 'umount "'"$mnt"'" 2>/dev/null || true; rm -rf "'"$work"'"' EXIT
	elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
		rmdir "$mnt"
		mnt=$(mktemp -d /dev/shm/reclaimd-bench.XXXXXX)
		trap 'rm -rf "'"$mnt"'" "'"$work"'"' EXIT
	else
		die "need root (to mount a tmpfs) or a tmpfs at /dev/shm"
	fi

	{
		echo "title where=host-tmpfs Host: fake cgroupfs on tmpfs ($(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)); reclaimd --dry-run"
	} >>"$RAW"

	for n in $sizes; do
		tree=$mnt/cg$n
		list=$work/list$n
		cfg=$work/config$n.json
		t=$(date +%s)
		"$GEN" --cgroups "$n" --template "$TEMPLATE" --list "$list" "$tree" >&2
		write_config "$cfg" "" ""
		echo "host n=$n: tree generated in $(($(date +%s) - t)) s" >&2

		# Cold: one --once run each.
		emfile=0
		for r in $(seq "$runs"); do
			"$TICKMETER" -- "$AGENT" --config "$cfg" --once --dry-run --cgroup-root "$tree" --allow-unsafe-paths \
				--log-stderr >"$work/tm" 2>"$work/err" || die "agent run failed (see $work/err)"
			cat "$work/err" >>"$LOG"
			# The agent reports skipped cgroups in one line per minute ("N managed cgroups
			# skipped this tick: out of file descriptors"); older builds logged one per cgroup.
			emfile=$(sed -n 's/.* \([0-9][0-9]*\) managed cgroups skipped this tick: out of file descriptors.*/\1/p' "$work/err" | head -n 1)
			[ -n "$emfile" ] || emfile=$(grep -c "Too many open files" "$work/err" || true)
			status=$(kv "$work/tm" status)
			if [ "$emfile" -gt 0 ]; then
				# Out of fds: no STATUS (sd_notify needs a socket), so no tick boundary.
				echo "host n=$n: EMFILE, $emfile cgroups skipped (open files limit $(ulimit -n))" >&2
				echo "rec where=host-tmpfs n=$n kind=agent-cold emfile=$emfile nofile=$(ulimit -n)" \
					"user_us=$(kv "$work/tm" user_us) sys_us=$(kv "$work/tm" sys_us)" \
					"rss_kib=$(kv "$work/tm" maxrss_kib)" >>"$RAW"
				continue
			fi
			case $status in "$n managed cgroups"*) ;; *) die "n=$n: agent says '$status'" ;; esac
			echo "rec where=host-tmpfs n=$n kind=agent-cold cpu_us=$(kv "$work/tm" cold_cpu_us)" \
				"user_us=$(kv "$work/tm" user_us) sys_us=$(kv "$work/tm" sys_us)" \
				"rss_kib=$(kv "$work/tm" maxrss_kib) ticks=$(kv "$work/tm" ticks)" >>"$RAW"
		done
		cold_u=$(rec_median host-tmpfs "$n" agent-cold user_us)
		cold_s=$(rec_median host-tmpfs "$n" agent-cold sys_us)
		cold_t=$(rec_median host-tmpfs "$n" agent-cold ticks)

		# Warm: 1+K ticks at 0.5 s (not measurable without STATUS messages).
		[ "$emfile" -gt 0 ] && warm_n=0 || warm_n=$warm_runs
		for r in $(seq "$warm_n"); do
			"$TICKMETER" --ticks "$k" -- "$AGENT" --config "$cfg" --dry-run --cgroup-root "$tree" --allow-unsafe-paths \
				--log-stderr >"$work/tm" 2>>"$LOG" || die "agent run failed (see $LOG)"
			awk -v n="$n" -v k="$k" -v cu="$cold_u" -v cs="$cold_s" -v ct="$cold_t" -F= '
				{ v[$1] = $2 }
				END {
					split(v["tick_cpu_us"], t, ",")
					mn = mx = t[2]
					for (i = 3; i <= k + 1; i++) { if (t[i] < mn) mn = t[i]; if (t[i] > mx) mx = t[i] }
					# rusage of this run less that of a --once run, per tick more
					d = v["ticks"] - (ct == "" ? 1 : ct)
					u = (v["user_us"] - cu) / d; s = (v["sys_us"] - cs) / d
					printf "rec where=host-tmpfs n=%s kind=agent-warm cpu_us=%s mean_us=%s rss_kib=%s min_us=%s max_us=%s user_us=%.0f sys_us=%.0f diff_us=%.0f\n",
						n, v["warm_median_us"], v["warm_cpu_us"], v["maxrss_kib"], mn, mx, u, s, u + s
				}' "$work/tm" >>"$RAW"
		done

		for mode in open hot hot1 used walk; do
			"$FLOOR" --root "$tree" --list "$list" --passes "$p" --mode "$mode" --quiet >"$work/fl" ||
				{ echo "host n=$n: floor --mode $mode failed" >&2; continue; }
			awk -v n="$n" -v mode="$mode" '{
				for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				printf "rec where=host-tmpfs n=%s kind=floor-%s cpu_us=%s min_us=%s user_us=%s sys_us=%s files=%s hot_fallback=%s errors=%s\n",
					n, mode, v["median_us"], v["min_us"], v["user_mean_us"], v["sys_mean_us"], v["files_per_pass"], v["hot_fallback"], v["errors"]
			}' "$work/fl" >>"$RAW"
		done
		rm -rf "$tree"
		echo "host n=$n: done in $(($(date +%s) - t)) s" >&2
	done
	umount "$mnt" 2>/dev/null || true
}

# ---- VM part --------------------------------------------------------------------------------
vm_part() {
	local vmout=$out/vm cal=0 n args
	local k=${ticks:-8} p=${passes:-10}

	# Calibration size: the largest VM size the host part measured too.
	for n in $vm_sizes; do
		case " $sizes " in *" $n "*) [ "$do_host" -eq 1 ] && cal=$n ;; esac
	done
	args=(
		--file "$HERE/build/floor:/usr/local/bin/floor"
		--file "$HERE/build/tickmeter:/usr/local/bin/tickmeter"
		--file "$HERE/build/gen_cgroupfs:/usr/local/bin/gen_cgroupfs"
		--file "$REPO/tests/fixtures/real-6.12/sys/fs/cgroup:/bench/cgroup-template"
		--file "$HERE/table.awk:/bench/table.awk"
		--env "BENCH_SIZES=$vm_sizes" --env "BENCH_TICKS=$k" --env "BENCH_ROUNDS=$vm_rounds"
		--env "BENCH_PASSES=$p" --env "BENCH_CALIBRATE=$cal"
		# One guest CPU: a second emulated vCPU competes with the first for the host's CPUs
		# and makes CPU times noisier still.
		--append maxcpus=1
		--timeout 3000
	)
	"$REPO/tests/vm/run.sh" "${args[@]}" "$HERE/vm-overhead.sh" "$vmout" >&2 ||
		die "VM run failed; see $vmout"
	[ -f "$vmout/raw.txt" ] || die "the VM left no raw.txt; see $vmout/console.log"
	grep -E '^(rec|title) ' "$vmout/raw.txt" >>"$RAW"
	grep -h '^FAIL' "$vmout/results.txt" 2>/dev/null >&2 || true
}

t0=$(date +%s)
if [ "$do_host" -eq 1 ]; then
	host_part
	echo "host part: $(($(date +%s) - t0)) s" | tee "$out/timing.txt" >&2
fi
t1=$(date +%s)
if [ "$do_vm" -eq 1 ]; then
	vm_part
	echo "VM part: $(($(date +%s) - t1)) s" | tee -a "$out/timing.txt" >&2
fi

awk -f "$HERE/table.awk" "$RAW" | tee "$out/tables.txt"
echo "(raw records: $RAW; agent stderr: $LOG)"
# The curves (CPU per tick, peak RSS against cgroups); a missing gnuplot never fails the bench.
"$HERE/plot-overhead.sh" "$RAW" "$out/overhead.png" || echo "overhead.sh: no plot (see the line above)" >&2
