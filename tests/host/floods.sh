#!/usr/bin/env bash
# floods.sh - fair service under floods (docs/limits.md), against a real reclaimd on the host: the
# agent runs with --dry-run on a generated cgroupfs tree (tests/lib.sh's fake_agent), with its
# metrics on 127.0.0.1 and its status socket readable by nobody's group. First 100 scrapes and
# 100 Status calls are timed with nothing else going on; then again while
#   - 16 slow HTTP clients (from 127.0.0.2) each send the start of a GET and one more header
#     byte every 2 s, never finishing it, and connect again when closed, and
#   - 64 clients of the status socket, as nobody (a member of the read group), each send the
#     start of a call and one more byte every 0.5 s, never its end, and connect again when
#     closed, while another member of the read group holds 4 partial clients of its own.
# Checks: >= 99 of the 100 scrapes and of the 100 Status calls (made as another member of the
# read group, uid 65533) answered within 1 s under the flood; 20 of 20 calls as root; the slow
# clients held no connection much past the request deadlines (5 s HTTP, 3 s socket); the
# bystander's clients were not evicted for nobody's (per-uid limit); tick lateness under
# the flood as in the quiet run (mean within 20 ms, none over 250 ms; the Status replies carry
# each tick's lateness); ticks went on. Then the status socket full: 64 partial clients, 16 under
# each of four uids of the read group; >= 49 of 50 calls of another member and 10 of 10 of root
# within 1 s (the oldest partial client makes room).
#
# Run by `make check-unit` (through tests/run-unit.sh); BUILD names the build directory
# (default build/gcc). Ends with "floods: N passed, N failed, N skipped"; exits non-zero when a
# check failed. Needs root (setpriv to other users) and python3; otherwise it is skipped.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=$BUILD/reclaimd
GEN=$BUILD/tests/gen_cgroupfs
CLIENTS=$PWD/tests/host/flood_clients.py
TEMPLATE=tests/fixtures/real-6.12/sys/fs/cgroup/fixture
NAME=floods
. tests/lib.sh   # fake_agent; the counters below are this script's own
FLOOD_S=${FLOOD_S:-16}   # how long the attackers run: 2 s to fill, 10+ s of measuring, margin

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { # DESCRIPTION COMMAND...: passes when the command succeeds
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
finish() {
	echo "$NAME: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit $?
}
skip() {
	echo "SKIP $NAME: $*"
	skipped=1
	finish
}

[ "$(id -u)" -eq 0 ] || skip "needs root (setpriv to the attacker's and the reader's uid)"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
# An interpreter other users can run (a pyenv shim under /root is not one).
PY=
for p in /usr/bin/python3 "$(command -v python3)"; do
	if [ -x "$p" ] && setpriv --reuid=65534 --regid=65534 --clear-groups "$p" -c '' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || skip "no python3 that uid 65534 can run"
for f in "$AGENT" "$GEN"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; finish; }
done

group=$(getent group 65534 | cut -d: -f1)
[ -n "$group" ] || skip "no group 65534"
as_attacker() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_reader() { setpriv --reuid=65533 --regid=65534 --clear-groups "$@"; }
value() { sed -n "s/^$1=//p" "$2"; }

# The agent on 40 generated cgroups (tests/lib.sh's fake_agent), its directory and the socket's
# open to the other users, metrics on a free port.
configure() {
	chmod 755 "$T" "$T/run"
	PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	cat >"$CFG" <<EOF
{
  "interval": 0.5,
  "log_level": "info",
  "mglru_aging": false,
  "status": { "socket": "$SOCK", "read_group": "$group" },
  "metrics": { "listen": "127.0.0.1:$PORT" },
  "rules": [
    { "match": "init.scope", "policy": "none" },
    { "match": "system.slice/*.service" },
    { "match": "kubepods.slice/**/*.scope", "min_bytes": "64M" },
    { "match": "user.slice/**", "psi_some_target_pct": 0.25, "probe_max": 0.3 }
  ]
}
EOF
}
fake_agent reclaimd-floods 40 configure
[ $? -eq 1 ] && finish
for _ in $(seq 200); do
	"$PY" "$CLIENTS" measure "127.0.0.1:$PORT" "$SOCK" 1 0 >"$T/up" 2>&1 &&
		[ "$(value scrape_ok "$T/up")" = 1 ] && [ "$(value call_ok "$T/up")" = 1 ] && break
	sleep 0.1
done
check "the agent serves scrapes and Status calls" \
	[ "$(value scrape_ok "$T/up")" = 1 -a "$(value call_ok "$T/up")" = 1 ]
sleep 1

# ---- quiet --------------------------------------------------------------------------------
as_reader "$PY" "$CLIENTS" measure "127.0.0.1:$PORT" "$SOCK" 100 0.1 >"$T/quiet" 2>&1
check "quiet: 100 of 100 scrapes within 1 s ($(value scrape_ok "$T/quiet"))" \
	[ "$(value scrape_ok "$T/quiet")" = 100 ]
check "quiet: 100 of 100 Status calls within 1 s ($(value call_ok "$T/quiet"))" \
	[ "$(value call_ok "$T/quiet")" = 100 ]

# ---- the flood ------------------------------------------------------------------------------
# A bystander first: another member of the read group with 4 partial clients of its own, the
# oldest when nobody's 64 come. The per-uid limit keeps nobody's from evicting them: each is
# closed at its 3 s deadline, never sooner.
setpriv --reuid=65530 --regid=65534 --clear-groups \
	"$PY" "$CLIENTS" attack unix "$SOCK" 4 0.5 "$FLOOD_S" >"$T/bystander" 2>&1 &
bystander_pid=$!
sleep 0.5
"$PY" "$CLIENTS" attack tcp "127.0.0.1:$PORT" 127.0.0.2 16 2 "$FLOOD_S" >"$T/http" 2>&1 &
http_pid=$!
as_attacker "$PY" "$CLIENTS" attack unix "$SOCK" 64 0.5 "$FLOOD_S" >"$T/sock" 2>&1 &
sock_pid=$!
sleep 2
"$PY" "$CLIENTS" measure - "$SOCK" 20 0.5 >"$T/root" 2>&1 &
root_pid=$!
as_reader "$PY" "$CLIENTS" measure "127.0.0.1:$PORT" "$SOCK" 100 0.1 >"$T/flood" 2>&1
wait "$root_pid"
wait "$http_pid"
wait "$sock_pid"
wait "$bystander_pid"
check "the agent is alive after the flood" kill -0 "$AGENT_PID"

s_ok=$(value scrape_ok "$T/flood")
c_ok=$(value call_ok "$T/flood")
check "flood: >= 99 of 100 scrapes within 1 s (${s_ok:-none}, slowest $(value scrape_max_ms "$T/flood") ms)" \
	[ "${s_ok:-0}" -ge 99 ]
check "flood: >= 99 of 100 Status calls of a read-group member within 1 s (${c_ok:-none}, slowest $(value call_max_ms "$T/flood") ms)" \
	[ "${c_ok:-0}" -ge 99 ]
check "flood: 20 of 20 Status calls of root within 1 s ($(value call_ok "$T/root"))" \
	[ "$(value call_ok "$T/root")" = 20 ]
# The attackers attacked: connections were made, held, closed by the server and made again.
http_held=$(value attack_longest_held_s "$T/http")
sock_held=$(value attack_longest_held_s "$T/sock")
check "slow HTTP clients connected and were closed ($(value attack_connects "$T/http") connections, $(value attack_closed_by_server "$T/http") closed)" \
	[ "$(value attack_closed_by_server "$T/http")" -ge 16 ]
check "slow HTTP clients: held 4-7 s at most, the 5 s request deadline ($http_held s)" \
	awk -v s="${http_held:-99}" 'BEGIN { exit !(s >= 4 && s <= 7) }'
check "partial socket clients connected and were closed ($(value attack_connects "$T/sock") connections, $(value attack_closed_by_server "$T/sock") closed)" \
	[ "$(value attack_closed_by_server "$T/sock")" -ge 64 ]
check "partial socket clients: held 5 s at most, the 3 s request deadline ($sock_held s)" \
	awk -v s="${sock_held:-99}" 'BEGIN { exit !(s <= 5) }'
by_closed=$(value attack_shortest_closed_s "$T/bystander")
check "another user's 4 partial clients not evicted for nobody's 64: closed at the 3 s deadline, soonest after $by_closed s" \
	awk -v s="${by_closed:-0}" 'BEGIN { exit !(s >= 2.5 && s <= 5) }'
# Tick lateness as without the flood: the mean over the ticks the calls saw within 20 ms of the
# quiet run's, and no tick under the flood half an interval late. Not the maxima against each
# other: on a CPU shared with other builds one tick in 20 is 30-110 ms late, flood or not (the
# quiet runs' worst ranged 10-90 ms over 19 runs, their means 2-14 ms).
q_mean=$(value late_mean_us "$T/quiet")
f_mean=$(value late_mean_us "$T/flood")
f_late=$(value late_max_us "$T/flood")
check "tick lateness under the flood: mean ${f_mean:-none} us within 20 ms of the quiet run's ${q_mean:-none} us" \
	[ "${f_mean:--1}" -ge 0 -a "${q_mean:--1}" -ge 0 -a "${f_mean:-0}" -le $((${q_mean:-0} + 20000)) ]
check "tick lateness under the flood: max ${f_late:-none} us (quiet $(value late_max_us "$T/quiet") us) under 250 ms" \
	[ "${f_late:--1}" -ge 0 -a "${f_late:-0}" -lt 250000 ]
f_ticks=$(value ticks "$T/flood")
f_secs=$(value ticks_seconds "$T/flood")
check "ticks went on under the flood ($f_ticks in $f_secs s at 0.5 s)" \
	awk -v n="${f_ticks:-0}" -v s="${f_secs:-0}" 'BEGIN { exit !(n >= s / 0.5 * 0.8) }'
echo "measured: quiet: $(tr '\n' ' ' <"$T/quiet")"
echo "measured: flood: $(tr '\n' ' ' <"$T/flood")"
echo "measured: root:  $(tr '\n' ' ' <"$T/root")"
echo "measured: http attackers: $(tr '\n' ' ' <"$T/http")"
echo "measured: socket attackers: $(tr '\n' ' ' <"$T/sock")"
echo "measured: bystander: $(tr '\n' ' ' <"$T/bystander")"

# ---- a full status socket --------------------------------------------------------------------
# 64 partial clients again, 16 under each of four uids of the read group: within the per-uid
# limit, they fill every place. A new caller takes the place of the oldest partial one.
attackers=
for uid in 65534 65532 65531 65530; do
	setpriv --reuid=$uid --regid=65534 --clear-groups \
		"$PY" "$CLIENTS" attack unix "$SOCK" 16 0.5 12 >"$T/full.$uid" 2>&1 &
	attackers="$attackers $!"
done
sleep 2
"$PY" "$CLIENTS" measure - "$SOCK" 10 0.5 >"$T/full-root" 2>&1 &
root_pid=$!
as_reader "$PY" "$CLIENTS" measure - "$SOCK" 50 0.1 >"$T/full" 2>&1
wait "$root_pid"
for p in $attackers; do wait "$p"; done
full_connects=$(cat "$T"/full.655* | sed -n 's/^attack_connects=//p' | awk '{ n += $1 } END { print n + 0 }')
check "full socket: >= 49 of 50 Status calls of a read-group member within 1 s ($(value call_ok "$T/full"))" \
	[ "$(value call_ok "$T/full")" -ge 49 ]
check "full socket: 10 of 10 Status calls of root within 1 s ($(value call_ok "$T/full-root"))" \
	[ "$(value call_ok "$T/full-root")" = 10 ]
check "full socket: the four users' clients connected ($full_connects connections)" \
	[ "$full_connects" -ge 64 ]
echo "measured: full socket: $(tr '\n' ' ' <"$T/full"); root: $(tr '\n' ' ' <"$T/full-root")"

# ---- pipelined calls ----------------------------------------------------------------------------
# 200 Status calls in one write: one is answered per wake-up, and the client is closed (Busy)
# once it is VARLINK_PIPELINE_MAX (8) ahead.
as_reader "$PY" "$CLIENTS" pipeline "$SOCK" 200 >"$T/pipe" 2>&1
check "pipelined: 200 calls in one write get 8 answers at most ($(value pipeline_replies "$T/pipe")) and one Busy error ($(value pipeline_errors "$T/pipe"))" \
	[ "$(value pipeline_replies "$T/pipe")" -le 8 -a "$(value pipeline_errors "$T/pipe")" = 1 ]

# ---- slow HTTP clients from 16 addresses ----------------------------------------------------------
# 8 from each of 127.0.0.2-17, 128 wanting the 64 places: a newcomer makes the oldest
# unfinished request give way once 48 are open.
http_pids=
for i in $(seq 2 17); do
	"$PY" "$CLIENTS" attack tcp "127.0.0.1:$PORT" 127.0.0.$i 8 0.5 12 >"$T/http16.$i" 2>&1 &
	http_pids="$http_pids $!"
done
sleep 2
"$PY" "$CLIENTS" measure "127.0.0.1:$PORT" - 100 0.1 >"$T/http16" 2>&1
for p in $http_pids; do wait "$p"; done
h_connects=$(cat "$T"/http16.* | sed -n 's/^attack_connects=//p' | awk '{ n += $1 } END { print n + 0 }')
check "16 addresses: >= 99 of 100 scrapes within 1 s ($(value scrape_ok "$T/http16"), slowest $(value scrape_max_ms "$T/http16") ms)" \
	[ "$(value scrape_ok "$T/http16")" -ge 99 ]
check "16 addresses: the slow clients connected ($h_connects connections)" [ "$h_connects" -ge 128 ]

kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
check "SIGTERM after the flood: exit 0" [ $? -eq 0 ]
AGENT_PID=

# ---- slowly read Cgroups replies ---------------------------------------------------------------
# A tree of 2000 cgroups (a Cgroups reply of about 1.5 MB); four users of the read group, 16
# clients each, call Cgroups and read 64 KiB of the reply every 2.5 s, connecting again when
# closed. Compared with a quiet phase on the same agent: another member's and root's Status
# calls are answered within 1 s and ticks are not later; the server timed replies out (a
# reader may still drain what the kernel buffered after the close, so the clients' own
# holding times are not asserted) and counted its refusals or evictions.
"$GEN" --cgroups 2000 --template "$TEMPLATE" "$T/tree2" >/dev/null 2>&1 ||
	{ bad "gen_cgroupfs --cgroups 2000 failed"; finish; }
fake_agent_run "$T/tree2" "$LOG.2"
for _ in $(seq 200); do
	"$PY" "$CLIENTS" measure - "$SOCK" 1 0 >"$T/up2" 2>&1 && [ "$(value call_ok "$T/up2")" = 1 ] && break
	sleep 0.1
done
sleep 2
as_reader "$PY" "$CLIENTS" measure - "$SOCK" 60 0.1 >"$T/big-quiet" 2>&1
readers=
for uid in 65534 65532 65531 65530; do
	setpriv --reuid=$uid --regid=65534 --clear-groups \
		"$PY" "$CLIENTS" slowread "$SOCK" 16 65536 2.5 "$FLOOD_S" >"$T/slow.$uid" 2>&1 &
	readers="$readers $!"
done
sleep 3
"$PY" "$CLIENTS" measure - "$SOCK" 20 0.5 >"$T/big-root" 2>&1 &
root_pid=$!
as_reader "$PY" "$CLIENTS" measure - "$SOCK" 100 0.1 >"$T/big" 2>&1
wait "$root_pid"
for p in $readers; do wait "$p"; done
"$PY" "$CLIENTS" stats "$SOCK" >"$T/big-stats" 2>&1
slow_connects=$(cat "$T"/slow.* | sed -n 's/^slowread_connects=//p' | awk '{ n += $1 } END { print n + 0 }')
check "slow readers: >= 99 of 100 Status calls of a read-group member within 1 s ($(value call_ok "$T/big"), slowest $(value call_max_ms "$T/big") ms)" \
	[ "$(value call_ok "$T/big")" -ge 99 ]
check "slow readers: 20 of 20 Status calls of root within 1 s ($(value call_ok "$T/big-root"))" \
	[ "$(value call_ok "$T/big-root")" = 20 ]
check "slow readers: they connected ($slow_connects connections)" [ "$slow_connects" -ge 64 ]
bq_mean=$(value late_mean_us "$T/big-quiet")
b_mean=$(value late_mean_us "$T/big")
b_late=$(value late_max_us "$T/big")
check "slow readers: tick lateness mean ${b_mean:-none} us within 20 ms of the quiet run's ${bq_mean:-none} us" \
	[ "${b_mean:--1}" -ge 0 -a "${bq_mean:--1}" -ge 0 -a "${b_mean:-0}" -le $((${bq_mean:-0} + 20000)) ]
check "slow readers: tick lateness max ${b_late:-none} us (quiet $(value late_max_us "$T/big-quiet") us) under 250 ms" \
	[ "${b_late:--1}" -ge 0 -a "${b_late:-0}" -lt 250000 ]
ev_pending=$(value evicted_pending "$T/big-stats")
ref_output=$(value refused_output "$T/big-stats")
timeouts=$(value timeouts "$T/big-stats")
refusals=$(( ${ev_pending:-0} + ${ref_output:-0} ))
check "slow readers: the socket counters show them (evicted_pending ${ev_pending:-none}, refused_output ${ref_output:-none}, timeouts ${timeouts:-none})" \
	[ "$refusals" -gt 0 -a "${timeouts:-0}" -gt 0 ]
echo "measured: slow readers: quiet: $(tr '\n' ' ' <"$T/big-quiet")"
echo "measured: slow readers: member: $(tr '\n' ' ' <"$T/big"); root: $(tr '\n' ' ' <"$T/big-root")"

kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
check "SIGTERM after the slow readers: exit 0" [ $? -eq 0 ]
AGENT_PID=
finish
