#!/bin/sh
# vm-overhead.sh - guest half of bench/overhead.sh (a tests/vm scenario): reclaimd's CPU time
# per tick on real cgroups of Linux 6.12, next to bench/floor on the same cgroups.
#
# For each size N in $BENCH_SIZES: N managed cgroups under /sys/fs/cgroup/bench in the shape
# gen_cgroupfs writes (system.slice/svc<i>.service, kubepods.slice/.../pod<j>/ctr<k>.scope,
# 2-3 per pod), one in ten with a small process (memhog, 2 MiB, one access a second); then
#   floor-open  bench/floor, $BENCH_PASSES passes; floor-hot/hot1/used/walk half as many
# all of it $BENCH_ROUNDS times, interleaved (the emulated machine's speed drifts by tens of %);
#   agent-cold  `reclaimd --once --dry-run` (CPU up to the end of its first tick)
#   agent-warm  1+$BENCH_TICKS ticks, --dry-run, interval 0.5 s
#   agent-live  1 x 1+$BENCH_TICKS ticks without --dry-run: a PSI trigger per cgroup (min_bytes
#               1T, so nothing is reclaimed); psimon kthreads counted meanwhile
# The agent runs in /sys/fs/cgroup/benchagent, so its memory (including the kernel's buffers
# for its open files) is that cgroup's. With BENCH_CALIBRATE=N (a size the host part measured),
# the fake tree of gen_cgroupfs is also measured on the guest's tmpfs, so that the host's and
# the guest's numbers for the same work give the emulation slowdown.
# Writes $RESULTS/raw.txt (records for bench/table.awk) and $RESULTS/tables.txt.
set -eu
. "$VMTEST_LIB"

SIZES=${BENCH_SIZES:-500}
TICKS=${BENCH_TICKS:-8}
ROUNDS=${BENCH_ROUNDS:-3}
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
	# One in ten gets a small process (2 MiB, one access a second).
	_i=0
	HOG_PIDS=
	while read -r _rel; do
		if [ $((_i % 10)) -eq 0 ]; then
			cg_run "$CGROOT/$_rel" memhog --anon 2M --hot-pct 100 --rate 1 --duration 100000 \
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

# psimon kthreads (one per cgroup with a PSI trigger): "count cpu_ticks" (utime + stime in
# clock ticks); one awk over /proc, so that sampling costs little next to what it measures.
psimon() {
	# (cat: a process may exit between the glob and the read)
	cat /proc/[0-9]*/stat 2>/dev/null | awk '$2 == "(psimon)" { n++; t += $14 + $15 } END { print n + 0, t + 0 }' 
}

# floor_one WHERE N LIST ROOT MODE PASSES TAG: one bench/floor run, one record.
floor_one() {
	floor --root "$4" --list "$3" --passes "$6" --mode "$5" >/tmp/fl
	cp /tmp/fl "$RESULTS/floor-$1-$2-$5-$7.txt"
	awk -v w="$1" -v n="$2" -v mode="$5" '$1 == "floor" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "rec where=%s n=%s kind=floor-%s cpu_us=%s min_us=%s user_us=%s sys_us=%s files=%s hot_fallback=%s errors=%s\n",
			w, n, mode, v["median_us"], v["min_us"], v["user_mean_us"], v["sys_mean_us"], v["files_per_pass"], v["hot_fallback"], v["errors"]
	}' /tmp/fl >>"$RAW"
}

# agent_rec WHERE N KIND TICKMETER_OUTPUT ONCE_USER_US ONCE_SYS_US ONCE_TICKS: one record of a
# ticking run; with the rusage of a --once run, also the rusage difference per tick more.
agent_rec() {
	awk -v w="$1" -v n="$2" -v kind="$3" -v k="$TICKS" -v cu="$5" -v cs="$6" -v ct="$7" -F= '
		{ v[$1] = $2 }
		END {
			split(v["tick_cpu_us"], t, ",")
			mn = mx = t[2]
			for (i = 3; i <= k + 1; i++) { if (t[i] < mn) mn = t[i]; if (t[i] > mx) mx = t[i] }
			d = v["ticks"] - (ct == "" ? 1 : ct)
			if (d < 1)
				d = 1
			u = (v["user_us"] - cu) / d; s = (v["sys_us"] - cs) / d
			printf "rec where=%s n=%s kind=%s cpu_us=%s mean_us=%s rss_kib=%s min_us=%s max_us=%s cold_us=%s cg_current=%s cg_kernel=%s",
				w, n, kind, v["warm_median_us"], v["warm_cpu_us"], v["maxrss_kib"], mn, mx,
				v["cold_cpu_us"], v["cgroup_current_bytes"], v["cgroup_kernel_bytes"]
			if (cu != "")
				printf " user_us=%.0f sys_us=%.0f diff_us=%.0f", u, s, u + s
			printf "\n"
		}' "$4" >>"$RAW"
}

# measure WHERE N CONFIG LIST ROOT: $ROUNDS rounds of floor "open", a cold run, a warm run and
# the other floor modes, interleaved so that the emulated machine's drift hits agent and floor
# alike (the tables show medians over all rounds); then one live run.
measure() {
	_w=$1
	_n=$2
	_cfg=$3
	_list=$4
	_root=$5
	_rootarg=
	# A fake tree on tmpfs is not a cgroup2 mount: reclaimd takes it only in tests.
	[ "$_root" != "$CGROOT" ] && _rootarg="--cgroup-root $_root --allow-unsafe-paths"
	_round=0
	while [ "$_round" -lt "$ROUNDS" ]; do
		floor_one "$_w" "$_n" "$_list" "$_root" open "$PASSES" "r$_round"

		# shellcheck disable=SC2086
		tickmeter --cgroup "$AGENT_CG" -- reclaimd --config "$_cfg" --once --dry-run $_rootarg \
			--log-stderr >/tmp/tm 2>>"$RESULTS/agent-$_w-$_n.log"
		case $(kv /tmp/tm status) in
		"$_n managed cgroups"*) ;;
		*) fail "$_w-$_n-managed" "agent says '$(kv /tmp/tm status)'" ;;
		esac
		_cu=$(kv /tmp/tm user_us)
		_cs=$(kv /tmp/tm sys_us)
		echo "rec where=$_w n=$_n kind=agent-cold cpu_us=$(kv /tmp/tm cold_cpu_us)" \
			"user_us=$_cu sys_us=$_cs rss_kib=$(kv /tmp/tm maxrss_kib) ticks=$(kv /tmp/tm ticks)" >>"$RAW"
		_ct=$(kv /tmp/tm ticks)

		# shellcheck disable=SC2086
		tickmeter --ticks "$TICKS" --cgroup "$AGENT_CG" -- reclaimd --config "$_cfg" --dry-run \
			$_rootarg --log-stderr >/tmp/tm 2>>"$RESULTS/agent-$_w-$_n.log"
		cp /tmp/tm "$RESULTS/tickmeter-$_w-$_n-warm$_round.txt"
		agent_rec "$_w" "$_n" agent-warm /tmp/tm "$_cu" "$_cs" "$_ct"

		for _m in hot hot1 used walk; do
			floor_one "$_w" "$_n" "$_list" "$_root" "$_m" $((PASSES / 2 + 1)) "r$_round"
		done
		_round=$((_round + 1))
	done

	[ "$_root" = "$CGROOT" ] || return 0
	# Live: PSI triggers installed (one psimon kthread per cgroup). psimon and the kernel
	# stacks are sampled once all triggers exist, and again 4 s later.
	write_config /tmp/live.json bench/ '"min_bytes": "1T"'
	_p0=$(psimon)
	_ks0=$(awk '$1 == "KernelStack:" { print $2 }' /proc/meminfo)
	tickmeter --ticks "$TICKS" --cgroup "$AGENT_CG" -- reclaimd --config /tmp/live.json \
		--log-stderr >/tmp/tm 2>>"$RESULTS/agent-$_w-$_n-live.log" &
	_tm=$!
	_t=0
	while [ "$(psimon | cut -d' ' -f1)" -lt "$_n" ] && [ "$_t" -lt 120 ]; do
		sleep 1
		_t=$((_t + 1))
	done
	_pa=$(psimon)
	_ks1=$(awk '$1 == "KernelStack:" { print $2 }' /proc/meminfo)
	_ta=$(now)
	sleep 4
	_pb=$(psimon)
	_tb=$(now)
	wait "$_tm" || true
	cp /tmp/tm "$RESULTS/tickmeter-$_w-$_n-live.txt"
	agent_rec "$_w" "$_n" agent-live /tmp/tm "" "" ""
	# psimon CPU between the two samples, per second (clock ticks of 10 ms).
	echo "$_pa $_pb $_ta $_tb $_ks0 $_ks1" | awk -v w="$_w" -v n="$_n" \
		-v em="$(grep -c 'Too many open files' "$RESULTS/agent-$_w-$_n-live.log" || true)" '{
			dt = $6 - $5
			printf "rec where=%s n=%s kind=vm-mem psimon_threads=%d psimon_cpu_ms_per_s=%.2f kernel_stack_kib=%d live_emfile=%s\n",
				w, n, $3, (dt > 0 ? ($4 - $2) * 10 / dt : 0), $8 - $7, em
		}' >>"$RAW"
	echo "live: psimon before $_p0, during $_pa / $_pb; KernelStack $_ks0 -> $_ks1 kB"
}

mkdir -p "$AGENT_CG"
echo "title where=vm-kernfs VM: real cgroups, Linux $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPU(s) online under qemu software emulation (slow, and noisy: compare ratios; native estimate below); reclaimd --dry-run unless 'live'" >>"$RAW"
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
