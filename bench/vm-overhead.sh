#!/bin/sh
# vm-overhead.sh - guest half of bench/overhead.sh (a tests/vm scenario): reclaimd's CPU time
# per tick on real cgroups of Linux 6.12, next to bench/floor on the same cgroups.
#
# For each size N in $BENCH_SIZES: N managed cgroups under /sys/fs/cgroup/bench in the shape
# gen_cgroupfs writes (system.slice/svc<i>.service, kubepods.slice/.../pod<j>/ctr<k>.scope,
# 2-3 per pod), one in ten with a small process (memhog, 2 MiB); then
#   agent-cold  $BENCH_RUNS x `reclaimd --once --dry-run`
#   agent-warm  $BENCH_WARM_RUNS x 1+$BENCH_TICKS ticks, --dry-run, interval 0.5 s
#   agent-live  1 x 1+$BENCH_TICKS ticks without --dry-run: a PSI trigger per cgroup (min_bytes
#               1T, so nothing is reclaimed); psimon kthreads counted meanwhile
#   floor-open/hot/hot1  bench/floor, $BENCH_PASSES passes each
# The agent runs in /sys/fs/cgroup/benchagent, so its memory (including the kernel's buffers
# for its open files) is that cgroup's. With BENCH_CALIBRATE=N (a size the host part measured),
# the fake tree of gen_cgroupfs is also measured on the guest's tmpfs, so that the host's and
# the guest's numbers for the same work give the emulation slowdown.
# Writes $RESULTS/raw.txt (records for bench/table.awk) and $RESULTS/tables.txt.
set -eu
. "$VMTEST_LIB"

SIZES=${BENCH_SIZES:-500}
TICKS=${BENCH_TICKS:-8}
RUNS=${BENCH_RUNS:-3}
WARM_RUNS=${BENCH_WARM_RUNS:-2}
PASSES=${BENCH_PASSES:-10}
CALIBRATE=${BENCH_CALIBRATE:-0}
TEMPLATE=/bench/cgroup-template/fixture
RAW=$RESULTS/raw.txt
B=$CGROOT/bench
AGENT_CG=$CGROOT/benchagent
: >"$RAW"

# As systemd/reclaimd.service (LimitNOFILE=524288); the initramfs default is 1024/4096.
ulimit -n 524288

now() { cut -d' ' -f1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

kv() { sed -n "s/^$2=//p" "$1" | head -1; }

write_config() { # FILE MATCH_PREFIX DEFAULTS
	cat >"$1" <<EOF
{
  "interval": 0.5,
  "log_level": "warning",
  "defaults": { $3 },
  "rules": [
    { "match": "benchagent", "policy": "none" },
    { "match": "${2}init.scope", "policy": "none" },
    { "match": "${2}system.slice/systemd-*", "policy": "none" },
    { "match": "${2}system.slice/*.service" },
    { "match": "${2}kubepods.slice/**/*.scope", "min_bytes": "64M" },
    { "match": "${2}user.slice/**", "psi_some_target_pct": 0.25, "probe_max": 0.3 }
  ]
}
EOF
}

# enable DIR: children of DIR get the memory and io controllers.
enable() { echo "+memory +io" >"$1/cgroup.subtree_control"; }

# make_tree N LIST: real cgroups; LIST gets the managed paths relative to $CGROOT.
make_tree() {
	_n=$1
	_list=$2
	: >"$_list"
	mkdir -p "$B/system.slice" "$B/kubepods.slice"
	enable "$B"
	enable "$B/system.slice"
	enable "$B/kubepods.slice"
	_svc=$((_n / 10))
	_i=0
	while [ "$_i" -lt "$_svc" ]; do
		mkdir "$B/system.slice/svc$_i.service"
		echo "bench/system.slice/svc$_i.service" >>"$_list"
		_i=$((_i + 1))
	done
	_left=$((_n - _svc))
	_pod=0
	while [ "$_left" -gt 0 ]; do
		_k=$((2 + _pod % 2))
		[ "$_k" -gt "$_left" ] && _k=$_left
		_p=$B/kubepods.slice/pod$_pod.slice
		mkdir "$_p"
		enable "$_p"
		_j=0
		while [ "$_j" -lt "$_k" ]; do
			mkdir "$_p/ctr$_j.scope"
			echo "bench/kubepods.slice/pod$_pod.slice/ctr$_j.scope" >>"$_list"
			_j=$((_j + 1))
		done
		_left=$((_left - _k))
		_pod=$((_pod + 1))
	done
	# One in ten gets a small process (2 MiB, touched a few times a second).
	_i=0
	HOG_PIDS=
	while read -r _rel; do
		if [ $((_i % 10)) -eq 0 ]; then
			cg_run "$CGROOT/$_rel" memhog --anon 2M --hot-pct 100 --rate 5 --duration 100000 \
				--report-interval 100000 >/dev/null 2>&1
			HOG_PIDS="$HOG_PIDS $!"
		fi
		_i=$((_i + 1))
	done <"$_list"
}

remove_tree() {
	# shellcheck disable=SC2086
	[ -n "$HOG_PIDS" ] && kill $HOG_PIDS 2>/dev/null
	# shellcheck disable=SC2086
	[ -n "$HOG_PIDS" ] && wait $HOG_PIDS 2>/dev/null
	HOG_PIDS=
	for _try in 1 2 3 4 5; do
		find "$B" -depth -type d -exec rmdir {} \; 2>/dev/null || true
		[ -d "$B" ] || return 0
		sleep 1
	done
	echo "could not remove $B" >&2
}

# psimon kthreads: "count cpu_ticks" (utime + stime, clock ticks).
psimon() {
	_c=0
	_t=0
	for _s in /proc/[0-9]*/stat; do
		read -r _line 2>/dev/null <"$_s" || continue
		case $_line in *"(psimon)"*) ;; *) continue ;; esac
		_c=$((_c + 1))
		# shellcheck disable=SC2086
		set -- ${_line#*) }
		_t=$((_t + ${12} + ${13}))
	done
	echo "$_c $_t"
}

# measure WHERE N CONFIG LIST ROOT: the agent and the floor on one tree.
measure() {
	_w=$1
	_n=$2
	_cfg=$3
	_list=$4
	_root=$5
	_rootarg=
	[ "$_root" != "$CGROOT" ] && _rootarg="--cgroup-root $_root"
	_r=0
	while [ "$_r" -lt "$RUNS" ]; do
		# shellcheck disable=SC2086
		tickmeter --cgroup "$AGENT_CG" -- reclaimd --config "$_cfg" --once --dry-run $_rootarg \
			--log-stderr >/tmp/tm 2>>"$RESULTS/agent-$_w-$_n.log"
		case $(kv /tmp/tm status) in
		"$_n managed cgroups"*) ;;
		*) fail "$_w-$_n-managed" "agent says '$(kv /tmp/tm status)'" ;;
		esac
		echo "rec where=$_w n=$_n kind=agent-cold cpu_us=$(kv /tmp/tm cold_cpu_us)" \
			"user_us=$(kv /tmp/tm user_us) sys_us=$(kv /tmp/tm sys_us) rss_kib=$(kv /tmp/tm maxrss_kib)" >>"$RAW"
		_r=$((_r + 1))
	done
	_cu=$(grep "^rec where=$_w n=$_n kind=agent-cold" "$RAW" | sed 's/.*user_us=\([0-9]*\).*/\1/' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	_cs=$(grep "^rec where=$_w n=$_n kind=agent-cold" "$RAW" | sed 's/.*sys_us=\([0-9]*\).*/\1/' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')

	_r=0
	while [ "$_r" -lt "$WARM_RUNS" ]; do
		# shellcheck disable=SC2086
		tickmeter --ticks "$TICKS" --cgroup "$AGENT_CG" -- reclaimd --config "$_cfg" --dry-run \
			$_rootarg --log-stderr >/tmp/tm 2>>"$RESULTS/agent-$_w-$_n.log"
		cp /tmp/tm "$RESULTS/tickmeter-$_w-$_n-warm$_r.txt"
		awk -v w="$_w" -v n="$_n" -v k="$TICKS" -v cu="$_cu" -v cs="$_cs" -v kind=agent-warm -F= '
			{ v[$1] = $2 }
			END {
				split(v["tick_cpu_us"], t, ",")
				mn = mx = t[2]
				for (i = 3; i <= k + 1; i++) { if (t[i] < mn) mn = t[i]; if (t[i] > mx) mx = t[i] }
				u = (v["user_us"] - cu) / k; s = (v["sys_us"] - cs) / k
				printf "rec where=%s n=%s kind=%s cpu_us=%s rss_kib=%s min_us=%s max_us=%s user_us=%.0f sys_us=%.0f diff_us=%.0f cg_current=%s cg_kernel=%s\n",
					w, n, kind, v["warm_cpu_us"], v["maxrss_kib"], mn, mx, u, s, u + s,
					v["cgroup_current_bytes"], v["cgroup_kernel_bytes"]
			}' /tmp/tm >>"$RAW"
		_r=$((_r + 1))
	done

	if [ "$_root" = "$CGROOT" ]; then
		# Live: triggers installed; sample psimon threads while it runs.
		write_config /tmp/live.json bench/ '"min_bytes": "1T"'
		(
			_max=0
			_maxt=0
			while :; do
				set -- $(psimon)
				[ "$1" -gt "$_max" ] && _max=$1
				[ "$2" -gt "$_maxt" ] && _maxt=$2
				echo "$_max $_maxt" >/tmp/psimon.max
				sleep 0.5
			done
		) &
		_sampler=$!
		_p0=$(psimon)
		tickmeter --ticks "$TICKS" --cgroup "$AGENT_CG" -- reclaimd --config /tmp/live.json \
			--log-stderr >/tmp/tm 2>>"$RESULTS/agent-$_w-$_n-live.log"
		kill "$_sampler" 2>/dev/null || true
		wait "$_sampler" 2>/dev/null || true
		cp /tmp/tm "$RESULTS/tickmeter-$_w-$_n-live.txt"
		awk -v w="$_w" -v n="$_n" -v k="$TICKS" -v kind=agent-live -F= '
			{ v[$1] = $2 }
			END {
				split(v["tick_cpu_us"], t, ",")
				mn = mx = t[2]
				for (i = 3; i <= k + 1; i++) { if (t[i] < mn) mn = t[i]; if (t[i] > mx) mx = t[i] }
				printf "rec where=%s n=%s kind=%s cpu_us=%s rss_kib=%s min_us=%s max_us=%s cold_us=%s cg_current=%s cg_kernel=%s\n",
					w, n, kind, v["warm_cpu_us"], v["maxrss_kib"], mn, mx, v["cold_cpu_us"],
					v["cgroup_current_bytes"], v["cgroup_kernel_bytes"]
			}' /tmp/tm >>"$RAW"
		read -r _pmax _ptmax </tmp/psimon.max || { _pmax=0; _ptmax=0; }
		# psimon CPU: clock ticks (10 ms) over the run, per agent tick.
		echo "rec where=$_w n=$_n kind=vm-mem psimon_threads=$_pmax" \
			"psimon_cpu_us=$((_ptmax * 10000 / (TICKS + 1)))" \
			"live_emfile=$(grep -c 'Too many open files' "$RESULTS/agent-$_w-$_n-live.log" || true)" >>"$RAW"
		echo "live: psimon before $_p0, max during $_pmax; agent cgroup $(kv /tmp/tm cgroup_current_bytes) bytes"
	fi

	for _m in open hot hot1 used; do
		floor --root "$_root" --list "$_list" --passes "$PASSES" --mode "$_m" --quiet >/tmp/fl
		awk -v w="$_w" -v n="$_n" -v mode="$_m" '{
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "rec where=%s n=%s kind=floor-%s cpu_us=%s user_us=%s sys_us=%s files=%s hot_fallback=%s errors=%s\n",
				w, n, mode, v["median_us"], v["user_mean_us"], v["sys_mean_us"], v["files_per_pass"], v["hot_fallback"], v["errors"]
		}' /tmp/fl >>"$RAW"
	done
}

mkdir -p "$AGENT_CG"
echo "title where=vm-kernfs VM: real cgroups, Linux $(uname -r), 2 vCPUs under qemu software emulation (slow: compare ratios; absolute times see the calibration below); reclaimd --dry-run unless 'live'" >>"$RAW"
HOG_PIDS=
for N in $SIZES; do
	t0=$(now)
	make_tree "$N" /tmp/list
	echo "n=$N: $(wc -l </tmp/list) managed cgroups, $(find "$B" -type d | wc -l) directories, created in $(elapsed "$t0") s"
	sleep 2
	write_config /tmp/vm.json bench/ ""
	measure vm-kernfs "$N" /tmp/vm.json /tmp/list "$CGROOT"
	remove_tree
	pass "overhead-$N" "measured in $(elapsed "$t0") s"
done

if [ "$CALIBRATE" -gt 0 ]; then
	t0=$(now)
	echo "title where=vm-tmpfs VM: the host's fake tree on the guest's tmpfs (calibration)" >>"$RAW"
	gen_cgroupfs --cgroups "$CALIBRATE" --template "$TEMPLATE" --list /tmp/cal.list /tmp/fakecg
	write_config /tmp/cal.json "" ""
	measure vm-tmpfs "$CALIBRATE" /tmp/cal.json /tmp/cal.list /tmp/fakecg
	rm -rf /tmp/fakecg
	pass "calibration-$CALIBRATE" "measured in $(elapsed "$t0") s"
fi

awk -f /bench/table.awk "$RAW" | tee "$RESULTS/tables.txt"
