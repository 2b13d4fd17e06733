#!/usr/bin/env bash
# hostile-paths.sh - the files reclaimd owns against another local user (docs/security.md), with
# the real reclaimd on a copy of the recorded 6.12 tree (tests/fixtures/real-6.12, through
# --proc-root/--sys-root/--cgroup-root) and "zswap": {"max_pool_percent": 7}, so that it records
# a change in its state file. The attacker runs as nobody (setpriv --reuid=nobody
# --regid=nogroup --clear-groups) and does exactly what issue 31 reproduced:
#   1. the status socket's directory writable by others (a 0777 emptyDir): the daemon refuses to
#      make its socket there, naming the directory, owner and mode; the attacker's symlink to a
#      root-only victim file followed by a reload (SIGHUP) leaves the victim as it was. Done by
#      root in a directory only root can write (a careless administrator), the swap is seen at
#      reload and the victim is left alone too;
#   2. a FIFO at the textfile's temporary name (NAME.prom.<pid>) in a directory the attacker
#      owns (Debian's textfile directory is the prometheus user's), and a symlink at NAME.prom:
#      the loop keeps ticking (a status call answers, the file is rewritten), the victim is
#      unchanged, SIGTERM ends the daemon within 2 s;
#   3. a FIFO at the state file and at <state>.tmp in a directory the attacker owns: the start is
#      refused at once naming the directory; the same FIFOs made by root in root's directory:
#      the start goes on, the change is recorded in a regular file, SIGTERM within 2 s;
#   6. a second daemon on the same state file and socket: exit 4 within 10 s naming the first's
#      pid, the first's record and value untouched, the first still running; with "state_file":
#      null the socket alone refuses it the same way (a --dry-run goes on without the socket,
#      the first still serving it); after SIGKILL of the first a restart takes
#      the lock and the stale socket, adopts the record, and its clean stop puts the
#      administrator's value back.
#   7. nobody, owner of the directory above the textfile directory, swaps that directory for a
#      symlink to a root-only directory: nothing is written there, one refusal names the link and
#      its owner; root's own symlink on the path is followed;
#   8. a socket directory writable by status.read_group is refused (no socket made); a socket
#      nobody serves at the name is logged with its uid and taken over (not exit 4), and root's
#      status call reaches the agent;
#   9. nobody flips a symlink into a missing state directory under a sticky directory during 20
#      starts: nothing is ever written in the symlink's target.
# Every check of "unchanged" compares sha256, mode and owner of the victim file before and after.
# Waits are bounded polls (10 s); every daemon run has a timeout, so a hang is a failure, not a
# stuck test. Needs root (files owned by root and by nobody, setpriv); otherwise skipped.
# Run by `make check-unit` (tests/run-unit.sh); RECLAIMD and RECLAIMCTL name other binaries to
# try (e.g. an older build). Ends "hostile-paths: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=${RECLAIMD:-$BUILD/reclaimd}
CTL=${RECLAIMCTL:-$BUILD/reclaimctl}
FIX=tests/fixtures/real-6.12
NAME=hostile-paths

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
skip() { skipped=$((skipped + 1)); echo "SKIP $NAME: $*"; }
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
finish() {
	echo "$NAME: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit $?
}
if [ "$(id -u)" -ne 0 ]; then
	skip "needs root (files owned by root and by nobody, setpriv)"
	finish
fi
for f in "$AGENT" "$CTL"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; finish; }
done
if ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1 || ! getent group nogroup >/dev/null; then
	skip "no setpriv, or no user nobody / group nogroup to attack as"
	finish
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-hostile.XXXXXX") || { bad "mktemp"; finish; }
chmod 0755 "$T" # the attacker must reach the directories below
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
umask 022
cp -r "$FIX/proc" "$FIX/sys" "$T/"
CG=$T/sys/fs/cgroup
P=$T/sys/module/zswap/parameters
NOBODY=$(id -u nobody)

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# The victim: a root-only file outside everything the daemon owns.
printf 'root only\n' >"$T/victim"
chmod 0600 "$T/victim"
fingerprint() { echo "$(sha256sum <"$T/victim") $(stat -c '%a %u %g' "$T/victim")"; }
VICTIM=$(fingerprint)
victim_unchanged() { [ "$(fingerprint)" = "$VICTIM" ]; }

config() { # FILE STATE SOCKET [EXTRA MEMBERS, with a leading comma]
	cat >"$1" <<EOF
{"interval": 0.5, "mglru_aging": false, "headroom": false, "log_level": "debug",
 "state_file": $2, "status": {"socket": $3, "read_group": "nogroup"},
 "zswap": {"max_pool_percent": 7, "manage": false} ${4:-}}
EOF
}
# start LOG CONFIG [OPTIONS]: the agent in the background (at most 60 s), its pid in $PID.
start() {
	local log=$1 cfg=$2
	shift 2
	timeout -s KILL 60 "$AGENT" --allow-unsafe-paths -c "$cfg" --cgroup-root "$CG" --proc-root "$T/proc" \
		--sys-root "$T/sys" --log-stderr "$@" >"$log" 2>&1 &
	PID=$!
	PIDS+=("$PID")
}
wait_for() { # COMMAND...: polls up to 10 s
	local i
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}
started() { grep -q 'started: cgroup root' "$1"; }
alive() { kill -0 "$1" 2>/dev/null; }
# stop_within_2s PID: SIGTERM to the agent (the child of `timeout` PID); gone within 2 s.
stop_within_2s() {
	local i a
	a=$(agent_pid "$1")
	kill -TERM "${a:-$1}" 2>/dev/null
	for i in $(seq 20); do
		alive "$1" || { wait "$1" 2>/dev/null; return 0; }
		sleep 0.1
	done
	kill -9 "$1" ${a:+"$a"} 2>/dev/null
	wait "$1" 2>/dev/null
	return 1
}
# The agent's pid (the child of `timeout`).
agent_pid() { pgrep -P "$1" | head -n 1; }
is() { [ "$(tr -d '\n' <"$1" 2>/dev/null)" = "$2" ]; }
has() { grep -qF -- "$2" "$1" || { echo "--- no \"$2\" in $1:" >&2; cat "$1" >&2; return 1; }; }

# ---- 1. the status socket's mode, applied by path --------------------------------------------
mkdir -m 0777 "$T/emptydir"
chmod 0777 "$T/emptydir" # the kubelet's emptyDir: 0777 whatever the umask
config "$T/c1.json" null "\"$T/emptydir/reclaimd.sock\""
echo 20 >"$P/max_pool_percent"
start "$T/1.log" "$T/c1.json"
check "1: the agent starts" wait_for started "$T/1.log"
check "1: the socket directory is refused, naming it, its owner and mode" \
	has "$T/1.log" "status socket $T/emptydir/reclaimd.sock: refused: $T/emptydir is writable by others (owner uid 0, mode 0777)"
# The attack: whatever is at the name, nobody replaces it with a symlink to the victim; reload.
as_nobody sh -c "rm -f '$T/emptydir/reclaimd.sock'; ln -s '$T/victim' '$T/emptydir/reclaimd.sock'"
check "1: the attacker's symlink is in place" test -L "$T/emptydir/reclaimd.sock"
kill -HUP "$(agent_pid "$PID")"
check "1: the reload ran" wait_for grep -q 'configuration reloaded' "$T/1.log"
check "1: the victim is unchanged after the reload (hash, mode, owner)" victim_unchanged
check "1: SIGTERM within 2 s" stop_within_2s "$PID"
check "1: the victim is unchanged after the stop" victim_unchanged

# The same swap by root in root's own directory: the reload sees another inode at the name.
mkdir -m 0755 "$T/run1"
config "$T/c1b.json" null "\"$T/run1/reclaimd.sock\""
start "$T/1b.log" "$T/c1b.json"
check "1b: the agent starts" wait_for started "$T/1b.log"
mode_is() { [ "$(stat -c %a "$1" 2>/dev/null)" = "$2" ]; }
check "1b: the socket is made, root and nogroup only" wait_for mode_is "$T/run1/reclaimd.sock" 660
rm -f "$T/run1/reclaimd.sock"
ln -s "$T/victim" "$T/run1/reclaimd.sock"
kill -HUP "$(agent_pid "$PID")"
check "1b: the reload ran" wait_for grep -q 'configuration reloaded' "$T/1b.log"
check "1b: the reload says the name leads elsewhere now" \
	has "$T/1b.log" "status socket $T/run1/reclaimd.sock: the name no longer leads to the socket this agent bound"
check "1b: the victim is unchanged (hash, mode, owner)" victim_unchanged
check "1b: SIGTERM within 2 s" stop_within_2s "$PID"
check "1b: the stop leaves the symlink (not the agent's) alone" test -L "$T/run1/reclaimd.sock"
check "1b: the victim is unchanged after the stop" victim_unchanged

# ---- 2. a FIFO at the textfile's temporary name -----------------------------------------------
mkdir -m 0755 "$T/prom" "$T/run2"
chown "$NOBODY" "$T/prom" # the collector's directory, the attacker's
config "$T/c2.json" null "\"$T/run2/reclaimd.sock\"" ", \"metrics\": {\"textfile\": \"$T/prom/reclaimd.prom\"}"
start "$T/2.log" "$T/c2.json"
check "2: the agent starts" wait_for started "$T/2.log"
check "2: the textfile is written" wait_for test -s "$T/prom/reclaimd.prom"
apid=$(agent_pid "$PID")
# FIFOs at the name the agent used before (NAME.prom.<pid>) and at the next pids; a symlink to
# the victim at NAME.prom itself.
for i in 0 1 2 3; do as_nobody mkfifo "$T/prom/reclaimd.prom.$((apid + i))"; done
as_nobody sh -c "rm -f '$T/prom/reclaimd.prom'; ln -s '$T/victim' '$T/prom/reclaimd.prom'"
sleep 2 # four ticks
check "2: a status call answers within 5 s" timeout 10 "$CTL" --socket "$T/run2/reclaimd.sock" --timeout 5 status >/dev/null
check "2: the textfile is a regular file again, written after the attack" \
	wait_for test -f "$T/prom/reclaimd.prom" -a ! -L "$T/prom/reclaimd.prom"
check "2: the textfile holds metrics" wait_for grep -q '^reclaimd_' "$T/prom/reclaimd.prom"
check "2: the FIFOs are left as they were" test -p "$T/prom/reclaimd.prom.$apid"
check "2: the victim is unchanged (hash, mode, owner)" victim_unchanged
check "2: SIGTERM within 2 s" stop_within_2s "$PID"
check "2: no temporary file left behind" test -z "$(find "$T/prom" -name 'reclaimd.prom.tmp-*')"

# ---- 3. a FIFO at the state file and at <state>.tmp --------------------------------------------
mkdir -m 0755 "$T/state3"
chown "$NOBODY" "$T/state3"
as_nobody mkfifo "$T/state3/state.json" "$T/state3/state.json.tmp"
config "$T/c3.json" "\"$T/state3/state.json\"" null
start "$T/3.log" "$T/c3.json"
check "3: the start in the attacker's directory ends within 10 s" wait_for sh -c "! kill -0 $PID 2>/dev/null"
wait "$PID" 2>/dev/null
rc=$?
check "3: ... refused (exit 1, was $rc)" [ "$rc" -eq 1 ]
check "3: ... naming the directory, its owner and mode" \
	has "$T/3.log" "state file $T/state3/state.json: refused: $T/state3 is not owned by root (owner uid $NOBODY, mode 0755)"
check "3: ... nothing written: 7 not applied" is "$P/max_pool_percent" 20

mkdir -m 0755 "$T/state3b"
mkfifo "$T/state3b/state.json" "$T/state3b/state.json.tmp"
config "$T/c3b.json" "\"$T/state3b/state.json\"" null
start "$T/3b.log" "$T/c3b.json"
check "3b: FIFOs in root's directory: the agent starts" wait_for started "$T/3b.log"
check "3b: the FIFO at the state file is reported and set aside" \
	has "$T/3b.log" "state file $T/state3b/state.json: state.json is not a regular file (a FIFO); ignored"
check "3b: the change is made" wait_for is "$P/max_pool_percent" 7
check "3b: ... and recorded in a regular file" wait_for test -f "$T/state3b/state.json" -a ! -p "$T/state3b/state.json"
check "3b: ... with its record" timeout 5 grep -q '"zswap/max_pool_percent"' "$T/state3b/state.json"
check "3b: SIGTERM within 2 s" stop_within_2s "$PID"
check "3b: the stop puts 20 back" is "$P/max_pool_percent" 20

# ---- 6. two daemons on the same state file and socket ---------------------------------------
mkdir -m 0755 "$T/run6"
config "$T/c6.json" "\"$T/run6/state.json\"" "\"$T/run6/reclaimd.sock\""
echo 20 >"$P/max_pool_percent"
start "$T/6a.log" "$T/c6.json"
PID_A=$PID
check "6: the first starts" wait_for started "$T/6a.log"
check "6: the first writes 7 and records it" wait_for grep -q '"agent": "7"' "$T/run6/state.json"
APID=$(agent_pid "$PID_A")
cp "$T/run6/state.json" "$T/6.state.before"
start "$T/6b.log" "$T/c6.json"
check "6: the second ends within 10 s" wait_for sh -c "! kill -0 $PID 2>/dev/null"
wait "$PID" 2>/dev/null
rc=$?
check "6: the second exits 4 (was $rc)" [ "$rc" -eq 4 ]
check "6: the second names the first's pid" has "$T/6b.log" "another reclaimd (pid $APID) runs on it"
check "6: the first still runs" alive "$APID"
check "6: the first's record is untouched" cmp -s "$T/run6/state.json" "$T/6.state.before"
check "6: the value is still 7" is "$P/max_pool_percent" 7
check "6: the first still answers on its socket" timeout 10 "$CTL" --socket "$T/run6/reclaimd.sock" --timeout 5 status >/dev/null

# The socket alone (no state file): a live one is never taken over.
config "$T/c6s.json" null "\"$T/run6/reclaimd.sock\""
start "$T/6s.log" "$T/c6s.json"
check "6s: a second on the socket alone ends within 10 s" wait_for sh -c "! kill -0 $PID 2>/dev/null"
wait "$PID" 2>/dev/null
rc=$?
check "6s: ... exit 4 (was $rc)" [ "$rc" -eq 4 ]
check "6s: ... naming the pid that serves it" has "$T/6s.log" "$T/run6/reclaimd.sock is served by pid $APID"
check "6s: the first still answers" timeout 10 "$CTL" --socket "$T/run6/reclaimd.sock" --timeout 5 status >/dev/null
# A dry run (it writes nothing) on the same socket goes on without it.
start "$T/6d.log" "$T/c6s.json" --dry-run
check "6d: a dry run on the live socket starts" wait_for started "$T/6d.log"
check "6d: ... without the socket, saying so" \
	has "$T/6d.log" "is served by pid $APID): another reclaimd runs here; this dry run goes on without the socket"
check "6d: SIGTERM within 2 s" stop_within_2s "$PID"
check "6d: the first still answers" timeout 10 "$CTL" --socket "$T/run6/reclaimd.sock" --timeout 5 status >/dev/null

# The first crashes: the kernel drops its lock; the restart takes the stale socket and adopts.
kill -9 "$APID"
wait "$PID_A" 2>/dev/null
check "6k: SIGKILL leaves the stale socket" test -S "$T/run6/reclaimd.sock"
start "$T/6c.log" "$T/c6.json"
check "6k: the restart starts" wait_for started "$T/6c.log"
check "6k: ... adopts the record" wait_for grep -q 'max_pool_percent is 7 as the last run left it' "$T/6c.log"
check "6k: ... serves the socket" timeout 10 "$CTL" --socket "$T/run6/reclaimd.sock" --timeout 5 status >/dev/null
check "6k: SIGTERM within 2 s" stop_within_2s "$PID"
check "6k: the clean stop puts 20 back" is "$P/max_pool_percent" 20
check "6k: the victim is unchanged (hash, mode, owner)" victim_unchanged


# ---- 7. the textfile directory swapped for a symlink by its owner ------------------------------
# nobody owns $T/home7 (Debian's /var/lib/prometheus is prometheus's) and the textfile directory
# in it; it swaps the directory for a symlink to a root-only directory: nothing may be written
# there, and the refusal names the symlink and its owner.
mkdir -m 0755 "$T/home7" "$T/run7" "$T/rootonly7"
chmod 0700 "$T/rootonly7"
chown "$NOBODY" "$T/home7"
as_nobody mkdir "$T/home7/textdir"
config "$T/c7.json" null "\"$T/run7/reclaimd.sock\"" ", \"metrics\": {\"textfile\": \"$T/home7/textdir/reclaimd.prom\"}"
start "$T/7.log" "$T/c7.json"
check "7: the agent starts" wait_for started "$T/7.log"
check "7: the textfile is written in the collector's directory" wait_for test -s "$T/home7/textdir/reclaimd.prom"
as_nobody sh -c "mv '$T/home7/textdir' '$T/home7/old' && ln -s '$T/rootonly7' '$T/home7/textdir'"
check "7: the refusal names the symlink and its owner" wait_for grep -qF \
	"$T/home7/textdir is a symlink not owned by root (owner uid $NOBODY)" "$T/7.log"
sleep 1 # two more ticks
check "7: nothing is written in the root-only directory" test -z "$(ls -A "$T/rootonly7")"
check "7: the refusal is logged once" [ "$(grep -c 'is a symlink not owned by root' "$T/7.log")" -eq 1 ]
check "7: SIGTERM within 2 s" stop_within_2s "$PID"
# Root's own symlink on the path is followed (a /var/run -> /run kind of link).
mkdir -m 0755 "$T/real7"
ln -s "$T/real7" "$T/link7"
config "$T/c7b.json" null "\"$T/run7/reclaimd.sock\"" ", \"metrics\": {\"textfile\": \"$T/link7/reclaimd.prom\"}"
start "$T/7b.log" "$T/c7b.json"
check "7b: the agent starts" wait_for started "$T/7b.log"
check "7b: through root's symlink the textfile is written" wait_for test -s "$T/real7/reclaimd.prom"
check "7b: SIGTERM within 2 s" stop_within_2s "$PID"

# ---- 8. the status socket's directory and a socket of another uid at its name ----------------
# A directory writable by status.read_group (nogroup) is refused: a member could replace the
# socket.
mkdir -m 0775 "$T/run8"
chgrp nogroup "$T/run8"
chmod 0775 "$T/run8"
config "$T/c8.json" null "\"$T/run8/reclaimd.sock\""
start "$T/8.log" "$T/c8.json"
check "8: the agent starts" wait_for started "$T/8.log"
check "8: the group-writable socket directory is refused, naming it, owner and mode" \
	has "$T/8.log" "status socket $T/run8/reclaimd.sock: refused: $T/run8 is writable by its group (owner uid 0, mode 0775)"
check "8: no socket is made" test ! -e "$T/run8/reclaimd.sock"
check "8: SIGTERM within 2 s" stop_within_2s "$PID"
# A socket nobody serves at the name (left from when the directory was writable; the
# directory is root's alone now): not a reclaimd, so the start takes the name over, says so,
# and serves root.
mkdir -m 0777 "$T/run8b"
chmod 0777 "$T/run8b"
setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 40 python3 -c "
import socket, time
s = socket.socket(socket.AF_UNIX)
s.bind('$T/run8b/reclaimd.sock')
s.listen(5)
time.sleep(40)" &
SQUAT=$!
PIDS+=("$SQUAT")
check "8b: nobody's socket is in place" wait_for test -S "$T/run8b/reclaimd.sock"
chmod 0755 "$T/run8b"
config "$T/c8b.json" null "\"$T/run8b/reclaimd.sock\""
start "$T/8b.log" "$T/c8b.json"
check "8b: the agent starts (no exit 4)" wait_for started "$T/8b.log"
check "8b: it names the uid that served the name and takes it over" \
	has "$T/8b.log" "uid $NOBODY (socket file owner uid $NOBODY), not a reclaimd"
check "8b: the socket is root's now" wait_for sh -c "[ \"\$(stat -c %u '$T/run8b/reclaimd.sock')\" = 0 ]"
check "8b: root's status call reaches the agent" timeout 10 "$CTL" --socket "$T/run8b/reclaimd.sock" --timeout 5 status >/dev/null
check "8b: SIGTERM within 2 s" stop_within_2s "$PID"
kill "$SQUAT" 2>/dev/null
wait "$SQUAT" 2>/dev/null


# ---- 9. a symlink raced into a missing directory of the state file's path -----------------------
# The state file is under a sticky 1777 directory where its own directory does not exist yet;
# nobody flips that name between nothing and a symlink to a root directory as fast as it can,
# while root starts the agent 20 times (removing what the last start made). The agent may make
# the directory or refuse the symlink, but never write into the symlink's target.
mkdir -m 1777 "$T/sticky9"
chmod 1777 "$T/sticky9"
mkdir -m 0755 "$T/target9"
setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 120 python3 -c "
import os
while True:
    try:
        os.symlink('$T/target9', '$T/sticky9/sub')
        os.unlink('$T/sticky9/sub')
    except OSError:
        pass" &
FLIP=$!
PIDS+=("$FLIP")
config "$T/c9.json" "\"$T/sticky9/sub/state.json\"" null
for i in $(seq 20); do
	start "$T/9.log" "$T/c9.json"
	wait_for sh -c "grep -q 'started: cgroup root' '$T/9.log' || ! kill -0 $PID 2>/dev/null"
	stop_within_2s "$PID" || true
	rm -rf "$T/sticky9/sub" 2>/dev/null
done
kill "$FLIP" 2>/dev/null
wait "$FLIP" 2>/dev/null
check "9: nothing was written through nobody's symlink (20 starts)" test -z "$(ls -A "$T/target9")"

finish
