#!/bin/sh
# soak-vm.sh - the guest side of bench/soak.sh: SOAK_SECONDS (default 1800) of workloads, cgroup
# churn, reloads and swap changes around one agent (a sanitizer build, from soak.sh), sampled
# about every 2 s. Run by tests/vm/run.sh; not a test of make check.
#
# What runs (the agent's config: interval 2 s, psi on soak/work/* and soak/churn/*, zram0 at 100
# and the disk at 10, MGLRU aging where the kernel has it):
#   workloads  four memhogs in soak/work/w1..w4 (128/96/64/64 MiB, 5/20/50/90 % hot, 200
#              accesses a second); every 300 s one of them, in turn, is restarted, so there is
#              new cold memory all along;
#   churn      one cgroup a second created under soak/churn with a 4 MiB memhog in it, ten
#              alive at a time, the oldest killed and removed;
#   reloads    a SIGHUP every 15 s: the file alternates between two good configs, and every
#              fourth reload is a bad file (refused, the last good one kept);
#   swap       every 180 s someone else swaps the disk off; the agent's next reload swaps it on
#              again (the device is in its config), and if it is still off 30 s later the
#              script swaps it on (soak-swap.txt says which happened).
# Two quiet points, one after the warm-up (at 6 minutes, or a third of a run shorter than 18
# minutes) and one at the end: workload restarts, churn, reloads and swap changes stop (a swapoff
# under way is waited for), the churned cgroups are killed and removed, the four workloads run,
# the disk is on, config A is loaded, and once the agent manages only the four workloads with no
# job in flight for two ticks its fds are counted (the fewest of five samples with no job in
# flight). A leak in any of those paths raises the second count over the first. Written to
# soak-quiet.txt:
#   label t_s fds rss_kib managed known calm
# (calm 1: the quiet state was reached; 0: not within 2 minutes, and the count is not comparable).
# A sample about every 2 s (each takes a status call), in $RESULTS/soak-samples.tsv:
#   t_s alive fds rss_kib ticks late_last_us late_max_us log_lines reclaimed_bytes crashes managed
#   known in_flight
# (ticks .. reclaimed_bytes, managed, known and in_flight, from `reclaimctl --json status`; an
# agent that died is counted in crashes, its exit status logged to soak-crashes.txt, and started
# again on config A). At the end the agent gets SIGTERM; its exit status goes to soak-exit.txt
# and its log (stderr, with any sanitizer report) is agent.log; reclaimctl's stderr (a sanitizer
# build too) is reclaimctl.err.
set -u
. "$VMTEST_LIB"

DUR=${SOAK_SECONDS:-1800}
[ -x "$AGENT" ] || { fail soak-setup "no agent in the VM"; exit 0; }
# ASan's quarantine (256 MiB by default) holds freed memory back until it is full and shows as
# RSS growth for as long as it fills (8 MiB took about 15 minutes here); 1 MiB fills within the
# first minute, still catches a use after a recent free, and leaves the curve to the agent.
export ASAN_OPTIONS="quarantine_size_mb=1:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1"
swapdev=$(awk 'NR > 1 && $1 ~ /^\/dev\/vd/ { print $1; exit }' /proc/swaps)
[ -n "$swapdev" ] || { fail soak-setup "no disk swap in /proc/swaps"; exit 0; }
mglru=false
[ -r /sys/kernel/mm/lru_gen/enabled ] && mglru=true
LOG=$RESULTS/agent.log

# write_config FILE MIN_BYTES COLD_AGE
write_config() {
	cat >"$1" <<EOF
{
  "interval": 2,
  "log_level": "info",
  "mglru_aging": $mglru,
  "defaults": { "min_bytes": "$2", "cold_age": $3, "psi_some_target_pct": 50, "chunk_bytes": "8M" },
  "swap": { "devices": [ { "path": "/dev/zram0", "priority": 100, "kind": "zram" },
                         { "path": "$swapdev", "priority": 10, "kind": "ssd" } ],
            "reprioritize": "empty-only" },
  "rules": [
    { "match": "reclaimd", "policy": "none" },
    { "match": "soak/work/*" },
    { "match": "soak/churn/*" }
  ]
}
EOF
}
write_config /tmp/soak-a.json 16M 6
write_config /tmp/soak-b.json 32M 8
printf '{ "interval": 2, "rules": [ { "match": "soak/../x" } ] }\n' >/tmp/soak-bad.json
cp /tmp/soak-a.json /tmp/soak.json

cg=$(cg_create soak)
echo "+memory" >"$cg/cgroup.subtree_control"
mkdir -p "$cg/work" "$cg/churn"
echo "+memory" >"$cg/work/cgroup.subtree_control"
echo "+memory" >"$cg/churn/cgroup.subtree_control"

# start_agent: starts the agent and publishes its pid for the reload loop only once its status
# socket answers; the socket is set up after SIGHUP is taken through sd-event, so an early SIGHUP
# cannot kill it.
start_agent() {
	agent_start /tmp/soak.json "$LOG"
	_n=0
	until reclaimctl status >/dev/null 2>>"$RESULTS/reclaimctl.err"; do
		_n=$((_n + 1))
		if [ "$_n" -gt 120 ] || ! kill -0 "$AGENT_PID" 2>/dev/null; then
			break
		fi
		sleep 0.5
	done
	echo "$AGENT_PID" >/tmp/soak-agent.pid
}

# ---- workloads: slot N restarted every 300 s in turn --------------------------------------------
hog() { # SLOT MIB HOT_PCT
	mkdir -p "$cg/work/w$1"
	cg_run "$cg/work/w$1" memhog --anon "$2M" --hot-pct "$3" --rate 200 --report-interval 60 \
		>>"$RESULTS/memhog-w$1.log" 2>&1
	echo "$!" >"/tmp/soak-w$1.pid"
}
hog_slot() { # SLOT
	case $1 in 1) hog 1 128 5 ;; 2) hog 2 96 20 ;; 3) hog 3 64 50 ;; 4) hog 4 64 90 ;; esac
}
# hogs_alive: starts the workload of any slot whose memhog is not running.
hogs_alive() {
	for _s in 1 2 3 4; do
		kill -0 "$(cat "/tmp/soak-w$_s.pid" 2>/dev/null)" 2>/dev/null || hog_slot "$_s"
	done
}
restarts() {
	_n=$(cat /tmp/soak-restarts.count 2>/dev/null || echo 0)
	while :; do
		sleep 300
		_s=$((_n % 4 + 1))
		kill "$(cat /tmp/soak-w$_s.pid)" 2>/dev/null
		sleep 1
		hog_slot "$_s"
		_n=$((_n + 1))
		echo "$_n" >/tmp/soak-restarts.count
	done
}

# ---- churn: a cgroup a second, ten alive ----------------------------------------------------------
churn() { # FIRST_INDEX
	_i=$1
	while :; do
		mkdir "$cg/churn/c$_i"
		(echo 0 >"$cg/churn/c$_i/cgroup.procs" &&
			exec memhog --anon 4M --hot-pct 50 --rate 20 >/dev/null 2>&1) &
		echo "$!" >"/tmp/soak-c$_i.pid"
		if [ "$_i" -ge $(($1 + 10)) ]; then
			_j=$((_i - 10))
			kill "$(cat /tmp/soak-c$_j.pid)" 2>/dev/null
			_k=0
			until rmdir "$cg/churn/c$_j" 2>/dev/null; do
				_k=$((_k + 1))
				[ "$_k" -gt 100 ] && break
				sleep 0.02
			done
			rm -f "/tmp/soak-c$_j.pid"
		fi
		echo "$_i" >/tmp/soak-churn.count
		_i=$((_i + 1))
		sleep 1
	done
}

# ---- reloads: every 15 s, good A, good B, good A, bad, ... -----------------------------------------
reloads() {
	_n=0
	while :; do
		sleep 15
		_n=$((_n + 1))
		case $((_n % 4)) in
		0) cp /tmp/soak-bad.json /tmp/soak.json ;;
		1 | 3) cp /tmp/soak-b.json /tmp/soak.json ;;
		2) cp /tmp/soak-a.json /tmp/soak.json ;;
		esac
		kill -HUP "$(cat /tmp/soak-agent.pid)" 2>/dev/null
		echo "$_n" >/tmp/soak-reloads.count
	done
}

# ---- swap: the disk off and on again by someone else every 180 s ---------------------------------
swapchanges() {
	_n=0
	while :; do
		sleep 150
		# In the background with its pid published: quiet() waits for a swapoff under way (the
		# area stays in /proc/swaps until swapoff has read every page back).
		swapoff "$swapdev" 2>>"$RESULTS/soak-swap.txt" &
		echo "$!" >/tmp/soak-swapoff.pid
		if wait "$!"; then
			echo "$(uptime_s) swapoff $swapdev" >>"$RESULTS/soak-swap.txt"
		fi
		sleep 30
		if [ -n "$(swap_prio "$swapdev")" ]; then
			echo "$(uptime_s) on again already (the agent's reload)" >>"$RESULTS/soak-swap.txt"
		elif swapon-prio "$swapdev" 10 2>>"$RESULTS/soak-swap.txt"; then
			echo "$(uptime_s) swapon $swapdev (by the script: the agent had not)" >>"$RESULTS/soak-swap.txt"
		fi
		_n=$((_n + 1))
	done
}

# json_num OBJECT KEY: the number of the first "KEY": after "OBJECT": in the status on stdin (one
# line); KEY must come before any nested object of OBJECT that has a KEY too.
json_num() {
	awk -v o="\"$1\":" -v k="\"$2\":" '{
		i = index($0, o); if (!i) exit
		s = substr($0, i + length(o)); j = index(s, k); if (!j) exit
		s = substr(s, j + length(k)); sub(/^ */, "", s)
		if (match(s, /^[0-9]+/)) print substr(s, 1, RLENGTH)
	}'
}

status() {
	reclaimctl --json status 2>>"$RESULTS/reclaimctl.err" | tr -d '\n'
}

# load_start: workload restarts, churn (numbering on from the last cgroup), reloads and swap
# changes.
load_start() {
	restarts &
	rs_pid=$!
	_c=$(cat /tmp/soak-churn.count 2>/dev/null || echo -1)
	churn $((_c + 1)) &
	ch_pid=$!
	reloads &
	rl_pid=$!
	swapchanges &
	sw_pid=$!
}

# quiet LABEL: stops the load (the workloads keep running), brings the agent to a quiet state
# (module header) and appends "LABEL t_s fds rss_kib managed known" to soak-quiet.txt.
quiet() {
	kill "$rs_pid" "$ch_pid" "$rl_pid" "$sw_pid" 2>/dev/null
	wait "$rs_pid" "$ch_pid" "$rl_pid" "$sw_pid" 2>/dev/null
	hogs_alive
	for _f in /tmp/soak-c*.pid; do
		[ -f "$_f" ] && kill "$(cat "$_f")" 2>/dev/null
		rm -f "$_f"
	done
	# A swapoff the killed loop started goes on (its area stays listed until it is done): wait
	# for it, then make sure the disk is on.
	_n=0
	while kill -0 "$(cat /tmp/soak-swapoff.pid 2>/dev/null)" 2>/dev/null && [ "$_n" -lt 240 ]; do
		_n=$((_n + 1))
		sleep 0.5
	done
	_n=0
	while [ -z "$(swap_prio "$swapdev")" ] && [ "$_n" -lt 120 ]; do
		swapon-prio "$swapdev" 10 2>/dev/null && echo "$(uptime_s) swapon $swapdev (quiet $1)" >>"$RESULTS/soak-swap.txt"
		_n=$((_n + 1))
		sleep 1
	done
	# Every churned cgroup goes, with whatever runs in it (a memhog started after the last pid
	# file was written included).
	for _d in "$cg"/churn/c*; do
		[ -d "$_d" ] || continue
		[ -w "$_d/cgroup.kill" ] && echo 1 >"$_d/cgroup.kill" 2>/dev/null
		_n=0
		until rmdir "$_d" 2>/dev/null || [ "$_n" -gt 250 ]; do
			[ -w "$_d/cgroup.kill" ] && echo 1 >"$_d/cgroup.kill" 2>/dev/null
			_n=$((_n + 1))
			sleep 0.02
		done
	done
	cp /tmp/soak-a.json /tmp/soak.json
	kill -HUP "$AGENT_PID" 2>/dev/null
	# Quiet: the four workloads managed, nothing in flight, at two ticks in a row.
	_calm=0
	_last=
	_n=0
	while [ "$_calm" -lt 2 ] && [ "$_n" -lt 240 ]; do
		_st=$(status)
		_tk=$(echo "$_st" | json_num tick count)
		if [ -n "$_tk" ] && [ "$_tk" != "$_last" ]; then
			_last=$_tk
			if [ "$(echo "$_st" | json_num totals managed_cgroups)" = 4 ] &&
				[ "$(echo "$_st" | json_num totals jobs_in_flight)" = 0 ]; then
				_calm=$((_calm + 1))
			else
				_calm=0
			fi
		fi
		_n=$((_n + 1))
		sleep 0.5
	done
	_best=
	_k=0
	while [ "$_k" -lt 5 ]; do
		_st=$(status)
		sleep 0.3 # the agent closes the status connection on its next loop iteration
		# shellcheck disable=SC2012 # fd names are numbers
		_fd=$(ls "/proc/$AGENT_PID/fd" 2>/dev/null | wc -l)
		if [ "$(echo "$_st" | json_num totals jobs_in_flight)" = 0 ] &&
			{ [ -z "$_best" ] || [ "$_fd" -lt "$_best" ]; }; then
			_best=$_fd
		fi
		_k=$((_k + 1))
		sleep 1
	done
	_st=$(status)
	_calm1=0
	[ "$_calm" -ge 2 ] && _calm1=1
	_rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT_PID/status" 2>/dev/null)
	_mg=$(echo "$_st" | json_num totals managed_cgroups)
	_kn=$(echo "$_st" | json_num totals known_cgroups)
	echo "$1 $(fsub "$(uptime_s)" "$t0") ${_best:--} ${_rss:--} ${_mg:--} ${_kn:--} $_calm1" \
		>>"$RESULTS/soak-quiet.txt"
}

start_agent
log_wait "$LOG" "tick|managed by rule" 30 >/dev/null || true
t0=$(uptime_s)
for s in 1 2 3 4; do hog_slot "$s"; done
load_start
q1=360
[ "$DUR" -lt 1080 ] && q1=$((DUR / 3))
q1_done=0

crashes=0
echo "# t_s alive fds rss_kib ticks late_last_us late_max_us log_lines reclaimed_bytes crashes managed known in_flight" \
	>"$RESULTS/soak-samples.tsv"
while :; do
	t=$(fsub "$(uptime_s)" "$t0")
	[ "${t%.*}" -ge "$DUR" ] && break
	if kill -0 "$AGENT_PID" 2>/dev/null; then
		alive=1
	else
		wait "$AGENT_PID"
		echo "$t agent exited with status $?; started again" >>"$RESULTS/soak-crashes.txt"
		crashes=$((crashes + 1))
		alive=0
		cp /tmp/soak-a.json /tmp/soak.json
		start_agent
	fi
	if [ "$q1_done" = 0 ] && [ "${t%.*}" -ge "$q1" ]; then
		quiet after-warm-up
		load_start
		q1_done=1
		continue
	fi
	# shellcheck disable=SC2012 # fd names are numbers
	fds=$(ls "/proc/$AGENT_PID/fd" 2>/dev/null | wc -l)
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT_PID/status" 2>/dev/null)
	st=$(status)
	ticks=$(echo "$st" | json_num tick count)
	late=$(echo "$st" | json_num tick late_last_us)
	latemax=$(echo "$st" | json_num tick late_max_us)
	recl=$(echo "$st" | json_num totals reclaimed_bytes)
	managed=$(echo "$st" | json_num totals managed_cgroups)
	known=$(echo "$st" | json_num totals known_cgroups)
	inflight=$(echo "$st" | json_num totals jobs_in_flight)
	loglines=$(wc -l <"$LOG")
	echo "$t $alive ${fds:-0} ${rss:-0} ${ticks:--} ${late:--} ${latemax:--} $loglines ${recl:--} $crashes ${managed:--} ${known:--} ${inflight:--}" \
		>>"$RESULTS/soak-samples.tsv"
	sleep 1
done

quiet at-end
stop_s=$(agent_stop)
wait "$AGENT_PID"
rc=$?
echo "exit status $rc after SIGTERM, in $stop_s s" >"$RESULTS/soak-exit.txt"
echo "load seconds $DUR" >>"$RESULTS/soak-exit.txt"
for f in /tmp/soak-w*.pid /tmp/soak-c*.pid; do
	[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
done
swapon-prio "$swapdev" 10 2>/dev/null || true
echo "churn cycles $(cat /tmp/soak-churn.count 2>/dev/null || echo 0)" >>"$RESULTS/soak-exit.txt"
echo "reloads sent $(cat /tmp/soak-reloads.count 2>/dev/null || echo 0)" >>"$RESULTS/soak-exit.txt"
n=$(grep -c ' swapoff ' "$RESULTS/soak-swap.txt" 2>/dev/null)
echo "swapoffs ${n:-0}" >>"$RESULTS/soak-exit.txt"
n=$(grep -c 'on again already' "$RESULTS/soak-swap.txt" 2>/dev/null)
echo "swapped on by the agent ${n:-0}" >>"$RESULTS/soak-exit.txt"
n=$(grep -c 'the agent had not' "$RESULTS/soak-swap.txt" 2>/dev/null)
echo "swapped on by the script ${n:-0}" >>"$RESULTS/soak-exit.txt"
cat "$RESULTS/soak-exit.txt"
# The host (soak.sh) reads the samples and the log and judges; here only that the run happened.
if [ "$crashes" -eq 0 ]; then
	pass soak-ran "$DUR s, no crash"
else
	fail soak-ran "$DUR s, $crashes crash(es): $(head -1 "$RESULTS/soak-crashes.txt")"
fi
