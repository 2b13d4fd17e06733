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

# agent_stop: SIGTERM, wait; prints the seconds it took.
agent_stop() {
	_t0=$(uptime_s)
	kill -TERM "$AGENT_PID" 2>/dev/null || true
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
