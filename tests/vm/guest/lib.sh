# shellcheck shell=sh
# Helpers for scenario scripts, installed in the VM as $VMTEST_LIB
# (/usr/local/lib/vmtest.sh). Use with: . "$VMTEST_LIB"
# busybox sh; no bashisms.

CGROOT=/sys/fs/cgroup

# pass NAME [DETAIL...] / fail NAME REASON...: one result line each.
pass() {
	_name=$1
	shift
	echo "PASS $_name${*:+ $*}" | tee -a "$RESULTS/results.txt"
}
fail() {
	_name=$1
	shift
	echo "FAIL $_name: $*" | tee -a "$RESULTS/results.txt"
}

# skip NAME REASON...: a check this VM cannot run; counted as skipped by run-tests.sh, never as
# passed.
skip() {
	_name=$1
	shift
	echo "SKIP $_name: $*" | tee -a "$RESULTS/results.txt"
}

# have_feature FEATURE: whether this kernel has FEATURE, probed here, apart from the agent. Names
# as in reclaimd's feature table (include/reclaimd/features.h: swappiness, node_reclaim, ...);
# the spellings of kfeature (reclaim-swappiness, node-reclaim, ...: need_feature below skips on
# those) are taken too. The memory.reclaim probes write an empty request ("0 ...") to the root,
# which reclaims nothing: the kernel's loop never runs for 0 pages.
have_feature() {
	case $1 in
	reclaim-swappiness) _hf=swappiness ;;
	reclaim-swappiness-max) _hf=swappiness_max ;;
	*) _hf=$(echo "$1" | tr - _) ;;
	esac
	case $_hf in
	swappiness) echo "0 swappiness=60" >"$CGROOT/memory.reclaim" 2>/dev/null ;;
	swappiness_max) echo "0 swappiness=max" >"$CGROOT/memory.reclaim" 2>/dev/null ;;
	lru_gen) [ -r /sys/kernel/mm/lru_gen/enabled ] &&
		[ "$(($(cat /sys/kernel/mm/lru_gen/enabled)))" -ne 0 ] ;;
	lru_gen_debugfs) [ -e /sys/kernel/debug/lru_gen ] ;;
	zswap_writeback) _f=$CGROOT/feature-probe.$$ && mkdir "$_f" &&
		{ [ -e "$_f/memory.zswap.writeback" ]; _r=$?; rmdir "$_f"; return $_r; } ;;
	zswap_shrinker) [ -e /sys/module/zswap/parameters/shrinker_enabled ] ;;
	zswap_zpool) [ -e /sys/module/zswap/parameters/zpool ] ;;
	node_reclaim) [ -e /sys/devices/system/node/node0/reclaim ] ;;
	proactive_counters) grep -q '^pgsteal_proactive ' /proc/vmstat ;;
	numa_stat) [ -e "$CGROOT/memory.numa_stat" ] ;;
	cgroup_pressure) _f=$CGROOT/feature-probe.$$ && mkdir "$_f" &&
		{ [ -e "$_f/cgroup.pressure" ]; _r=$?; rmdir "$_f"; return $_r; } ;;
	*) echo "have_feature: unknown feature $1" >&2; return 2 ;;
	esac
}

# check NAME COMMAND...: pass if COMMAND succeeds, fail otherwise.
check() {
	_name=$1
	shift
	if "$@"; then pass "$_name"; else fail "$_name" "$*"; fi
}

# wait_for_file PATH SECONDS: polls every 0.1 s; fails when it does not appear.
wait_for_file() {
	_n=$(($2 * 10))
	while [ ! -e "$1" ]; do
		_n=$((_n - 1))
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
	done
	return 0
}

# cg_create NAME: creates $CGROOT/NAME (and parents), prints its path.
cg_create() {
	mkdir -p "$CGROOT/$1" && echo "$CGROOT/$1"
}

# cg_run CGROUP_PATH COMMAND...: starts COMMAND in the background inside the
# cgroup; its pid is in $! afterwards. (The subshell moves itself, then execs.)
cg_run() {
	_cg=$1
	shift
	(echo 0 >"$_cg/cgroup.procs" && exec "$@") &
}

# memstat CGROUP_PATH KEY: prints one memory.stat value.
memstat() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"
}

# mib BYTES: prints BYTES in MiB with one decimal.
mib() {
	awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'
}

# ---- reclaimd helpers -----------------------------------------------------

# uptime_s: seconds since boot, with fractions.
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# agent_start CONFIG LOG [ARGS...]: starts reclaimd in its own cgroup (so its
# own memory is never a target), logging to LOG; pid in $AGENT_PID.
agent_start() {
	_cfg=$1
	_log=$2
	shift 2
	mkdir -p "$CGROOT/reclaimd"
	(echo 0 >"$CGROOT/reclaimd/cgroup.procs" &&
		exec reclaimd --config "$_cfg" --log-stderr "$@" 2>>"$_log") &
	AGENT_PID=$!
}

# config_debug SRC DST: SRC with "log_level": "debug", into DST, for scenarios that read the
# per-request lines (each request and finished job is a DEBUG line; docs/operating.md "Logs").
config_debug() {
	if grep -q '"log_level"' "$1"; then
		sed 's/"log_level": *"[a-z]*"/"log_level": "debug"/' "$1" >"$2"
	else
		sed '1s/^{/{ "log_level": "debug",/' "$1" >"$2"
	fi
	grep -q '"log_level": "debug"' "$2" || { echo "config_debug: no log_level in $2" >&2; return 1; }
}

# agent_stop: SIGTERM, wait; prints the seconds it took.
agent_stop() {
	# Polls /proc instead of `wait`: callers use $(agent_stop), and in that subshell the agent
	# is not a child, so `wait` would return at once and the time would measure nothing.
	_t0=$(uptime_s)
	kill -TERM "$AGENT_PID" 2>/dev/null || true
	_n=200
	while [ "$_n" -gt 0 ]; do
		_st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$AGENT_PID/status" 2>/dev/null || true)
		# (|| true: once the shell has reaped the agent its /proc entry is gone, and under set -e
		# sed's failure would end the caller.)
		{ [ -z "$_st" ] || [ "$_st" = Z ]; } && break
		_n=$((_n - 1))
		sleep 0.05
	done
	wait "$AGENT_PID" 2>/dev/null || true
	_t1=$(uptime_s)
	awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.3f", b - a }'
}

# log_sum LOG CGROUP FIELD: sums FIELD=<n> over the agent's "reclaim done"
# lines for CGROUP (MESSAGE_ID ...a08).
log_sum() {
	awk -v cg="CGROUP=$2" -v f="$3" '
		/MESSAGE_ID=0c4e2a58d2b94f0c9a6b0b1f4d2e7a08/ && index($0, " " cg " ") {
			for (i = 1; i <= NF; i++) if (index($i, f "=") == 1) { split($i, kv, "="); s += kv[2] }
		}
		END { printf "%d", s }' "$1"
}

# sampler CGROUP_PATH OUT INTERVAL: appends "uptime memory.current" lines to
# OUT every INTERVAL seconds until killed; pid in $!.
sampler() {
	(while :; do
		echo "$(uptime_s) $(cat "$1/memory.current" 2>/dev/null || echo gone)" >>"$2"
		sleep "$3"
	done) &
}

# ---- agent log fields and NUMA helpers ------------------------------------
# Agent stderr lines look like
#   [123.456789] reclaimd[info]: MESSAGE | KEY=value KEY=value ...

# log_select LOG KEY=VALUE...: prints the lines of LOG whose fields (after " | ") include every
# KEY=VALUE given, exactly.
log_select() {
	_log=$1
	shift
	awk -v want="$*" '
		BEGIN { nw = split(want, w, " ") }
		{
			i = index($0, " | ")
			if (!i) next
			n = split(substr($0, i + 3), f, " ")
			delete have
			for (j = 1; j <= n; j++) have[f[j]] = 1
			for (j = 1; j <= nw; j++) if (!(w[j] in have)) next
			print
		}' "$_log"
}

# log_field KEY: reads agent log lines on stdin, prints the value of field KEY of each (an empty
# line when a line does not have it).
log_field() {
	awk -v k="$1" '{
		v = ""
		i = index($0, " | ")
		if (i) {
			n = split(substr($0, i + 3), f, " ")
			for (j = 1; j <= n; j++) if (index(f[j], k "=") == 1) { v = substr(f[j], length(k) + 2); break }
		}
		print v
	}'
}

# log_message: reads agent log lines on stdin, prints their MESSAGE (between "reclaimd[level]: "
# and " | ").
log_message() {
	sed 's/^.*reclaimd\[[a-z]*\]: //; s/ | .*$//'
}

# log_time: reads agent log lines on stdin, prints their timestamps (seconds since boot).
log_time() {
	sed -n 's/^\[\([0-9.]*\)\].*/\1/p'
}

# node_cpulist N: the CPUs of NUMA node N as the kernel lists them ("2-3").
node_cpulist() {
	cat "/sys/devices/system/node/node$1/cpulist"
}

# cpulist_expand LIST: "0-2,5" -> "0 1 2 5".
cpulist_expand() {
	echo "$1" | tr ',' '\n' | awk -F- 'NF { lo = $1; hi = (NF > 1) ? $2 : $1; for (c = lo; c <= hi; c++) printf "%s%d", (out++ ? " " : ""), c } END { print "" }'
}

# vmstat_sum KEY...: the sum of the /proc/vmstat counters named (a trailing * matches a prefix:
# vmstat_sum 'allocstall_*').
vmstat_sum() {
	awk -v keys="$*" '
		BEGIN { n = split(keys, k, " ") }
		{
			for (i = 1; i <= n; i++) {
				p = k[i]
				if ((substr(p, length(p)) == "*" && index($1, substr(p, 1, length(p) - 1)) == 1) || $1 == p) { s += $2; break }
			}
		}
		END { printf "%d\n", s }' /proc/vmstat
}

# idle_cores_since STAT_FILE CPUS...: idle cores among CPUS between the /proc/stat copy in
# STAT_FILE and now: sum over the CPUs of d(idle + iowait) / d(total), as the agent computes it.
idle_cores_since() {
	_f=$1
	shift
	grep '^cpu[0-9]' /proc/stat | awk -v cpus="$*" '
		BEGIN { n = split(cpus, c, " "); for (i = 1; i <= n; i++) want["cpu" c[i]] = 1 }
		FNR == NR { if ($1 in want) { t = 0; for (i = 2; i <= 11; i++) t += $i; t0[$1] = t; i0[$1] = $5 + $6 } next }
		($1 in want) && ($1 in t0) {
			t = 0; for (i = 2; i <= 11; i++) t += $i
			if (t > t0[$1]) s += ($5 + $6 - i0[$1]) / (t - t0[$1])
		}
		END { printf "%.2f\n", s }' "$_f" -
}

# ---- swap and zswap helpers -----------------------------------------------

# swap_col PATH COL: a column of PATH's line in /proc/swaps (3 Size KiB, 4 Used KiB, 5 Priority);
# empty when PATH is not active.
swap_col() {
	awk -v p="$1" -v c="$2" 'NR > 1 && $1 == p { print $c; exit }' /proc/swaps
}
swap_used_kib() { swap_col "$1" 4; }
swap_size_kib() { swap_col "$1" 3; }
swap_prio() { swap_col "$1" 5; }

# kver_le MAJOR MINOR: true when the running kernel's version is at most MAJOR.MINOR. A release
# string that does not start with digits.digits (none of Debian's) counts as newer.
kver_le() {
	_kv=$(uname -r)
	case $_kv in
	[0-9]*.[0-9]*) ;;
	*) return 1 ;;
	esac
	_kmaj=${_kv%%.*}
	_krest=${_kv#*.}
	_kmin=${_krest%%[!0-9]*}
	case $_kmaj in '' | *[!0-9]*) return 1 ;; esac
	case $_kmin in '' | *[!0-9]*) return 1 ;; esac
	[ "$_kmaj" -lt "$1" ] || { [ "$_kmaj" -eq "$1" ] && [ "$_kmin" -le "$2" ]; }
}

# zswap_stat NAME: a debugfs zswap counter (0 when missing).
zswap_stat() {
	cat "/sys/kernel/debug/zswap/$1" 2>/dev/null || echo 0
}

# zswap_rejects: the sum of the debugfs zswap reject_* counters.
zswap_rejects() {
	cat /sys/kernel/debug/zswap/reject_* 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# zswap_param NAME [VALUE]: prints, or writes, a zswap module parameter.
zswap_param() {
	if [ $# -ge 2 ]; then
		echo "$2" >"/sys/module/zswap/parameters/$1"
	else
		cat "/sys/module/zswap/parameters/$1"
	fi
}

# disk_sectors_written DEV: sectors written to block device DEV (/dev/vda or vda), from
# /sys/block/<dev>/stat (field 7, 512-byte units).
disk_sectors_written() {
	awk '{ print $7 }' "/sys/block/${1#/dev/}/stat"
}

# cg_reclaim CGROUP_PATH BYTES: one memory.reclaim write; EAGAIN (less reclaimed than asked) is
# not an error. Returns the write's status.
cg_reclaim() {
	echo "$2" 2>/dev/null >"$1/memory.reclaim"
}

# log_wait LOG ERE SECONDS: waits until a line of LOG matches ERE (grep -E), polling every 0.1 s;
# prints the first matching line; fails when none appears in time.
log_wait() {
	_n=$(($3 * 10))
	while :; do
		if _l=$(grep -E -m1 -- "$2" "$1" 2>/dev/null); then
			echo "$_l"
			return 0
		fi
		_n=$((_n - 1))
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
	done
}

# fsub A B: A - B for decimal numbers, three decimals.
fsub() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'
}

# agent_stop_sync: the same as agent_stop (which now polls /proc and is correct in $(...)).
agent_stop_sync() {
	agent_stop
}

# ---- kernel features ------------------------------------------------------
# A check that needs a feature the booted kernel lacks is skipped with the reason, never passed
# or failed: `need_feature CHECK FEATURE... || return` (or `|| continue`, `|| exit 0`).
# Features, and what Debian's kernels have (smoke.sh records them in kernel-features.txt;
# seen 2026-12-02 on 6.1.0-57, 6.12.117 and 7.3.4):
#   feature                 meaning                                               6.1 6.12 7.3
#   reclaim-swappiness      memory.reclaim accepts "N swappiness=V"               no  yes  yes
#   reclaim-swappiness-max  memory.reclaim accepts "N swappiness=max"             no  no   yes
#   zswap-writeback         memory.zswap.writeback exists                         no  yes  yes
#   zswap-shrinker          /sys/module/zswap/parameters/shrinker_enabled         no  yes  yes
#   lru-gen                 MGLRU on: /sys/kernel/mm/lru_gen/enabled not 0x0000  no* yes  yes
#   lru-gen-debugfs         /sys/kernel/debug/lru_gen (aging/eviction commands)   yes yes  yes
#   node-reclaim            /sys/devices/system/node/node0/reclaim                no  no   yes
#   proactive-counters      pgscan_proactive in /proc/vmstat                      no  no   yes
#   (* built in but off by default on Debian's 6.1)

# kfeature NAME: status 0 when the booted kernel has feature NAME, 1 when not, 2 for an unknown
# NAME. memory.reclaim keys are probed on an empty cgroup of its own: a request of one page
# that reclaims nothing ends in EAGAIN when the key is accepted, EINVAL when it is not.
kfeature() {
	case $1 in
	reclaim-swappiness) _kf_reclaim_key "swappiness=60" ;;
	reclaim-swappiness-max) _kf_reclaim_key "swappiness=max" ;;
	zswap-writeback) _kf_cg_file memory.zswap.writeback ;;
	zswap-shrinker) [ -e /sys/module/zswap/parameters/shrinker_enabled ] ;;
	lru-gen)
		[ -r /sys/kernel/mm/lru_gen/enabled ] &&
			[ "$(cat /sys/kernel/mm/lru_gen/enabled)" != 0x0000 ]
		;;
	lru-gen-debugfs) [ -e /sys/kernel/debug/lru_gen ] ;;
	node-reclaim) [ -e /sys/devices/system/node/node0/reclaim ] ;;
	proactive-counters) grep -q '^pgscan_proactive ' /proc/vmstat ;;
	*)
		echo "kfeature: unknown feature '$1'" >&2
		return 2
		;;
	esac
}

# The probe cgroup: an empty child of the root (which has no memory.* files), removed again
# after each probe so that no agent ever discovers it.
_KF_CG=$CGROOT/vmtest-kfeature
_kf_cg_file() {
	mkdir -p "$_KF_CG" || return 1
	[ -e "$_KF_CG/$1" ] && _kf_rc=0 || _kf_rc=1
	rmdir "$_KF_CG"
	return $_kf_rc
}
_kf_reclaim_key() {
	mkdir -p "$_KF_CG" || return 1
	_kf_rc=0
	if ! _kf_err=$({ echo "4096 $1" >"$_KF_CG/memory.reclaim"; } 2>&1); then
		case $_kf_err in *"nvalid argument"*) _kf_rc=1 ;; esac
	fi
	rmdir "$_KF_CG"
	return $_kf_rc
}

# need_feature CHECK FEATURE...: status 0 when the kernel has every FEATURE; otherwise records
# "SKIP CHECK: kernel <release> has no FEATURE" (skip) and returns 1.
need_feature() {
	_nf_check=$1
	shift
	for _nf in "$@"; do
		kfeature "$_nf" && continue
		skip "$_nf_check" "kernel $(uname -r) has no $_nf"
		return 1
	done
	return 0
}

# kfeature_report FILE: one line "FEATURE yes|no" per feature into FILE (and the console).
kfeature_report() {
	for _kr in reclaim-swappiness reclaim-swappiness-max zswap-writeback zswap-shrinker \
		lru-gen lru-gen-debugfs node-reclaim proactive-counters; do
		if kfeature "$_kr"; then echo "$_kr yes"; else echo "$_kr no"; fi
	done | tee "$1"
}
