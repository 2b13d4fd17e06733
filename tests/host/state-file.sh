#!/usr/bin/env bash
# state-file.sh - the state file (docs/operating.md "Safety: what is put back at stop, and after a
# crash")
# with the real reclaimd, on the host: the agent runs (not --dry-run: the state file is only kept
# when it writes) on a copy of the recorded 6.12 tree (tests/fixtures/real-6.12: proc, sys, the
# cgroup root at sys/fs/cgroup) with --proc-root/--sys-root/--cgroup-root, no rules, and
# "zswap": {"max_pool_percent": 7}. Its zswap parameters are plain files there, so what it writes
# and puts back is read back. Checks:
#   - the record ("administrator": "20", "agent": "7") is in the file while it runs;
#   - SIGKILL, start again (same config), clean stop: 20 is back (adopted, not taken as the
#     administrator's), and the file is gone;
#   - SIGKILL, the administrator writes 30, start again, clean stop: 30 stays (changed since);
#   - SIGKILL, start with a config that no longer sets it: 20 is put back at start;
#   - a truncated file and one of another version: one error naming the file, the start goes on
#     as if there were none, the clean stop restores what was in force at start;
#   - records written by hand as a crashed run would leave them: a lowered memory.zswap.max
#     given back (and one of a cgroup made again under the same name, another inode, left), zram
#     writeback_limit_enable put back to 0 and an administrator's writeback_limit budget put
#     back less what the chunk used, a swap record of a device that is gone dropped, a record of
#     an unknown section dropped with a warning;
#   - --dry-run leaves a state file as it found it.
# Waits are bounded polls (10 s) for a condition, never timing assertions.
# Run by `make check-unit` (tests/run-unit.sh); ends "state-file: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=${RECLAIMD:-$BUILD/reclaimd}
FIX=tests/fixtures/real-6.12
NAME=state-file

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
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
[ -x "$AGENT" ] || { bad "$AGENT is not built"; finish; }

T=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-state.XXXXXX")
PID=
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
cp -r "$FIX/proc" "$FIX/sys" "$T/"
CG=$T/sys/fs/cgroup
P=$T/sys/module/zswap/parameters
STATE=$T/run/state.json
LOG=$T/agent.log

config() { # FILE ZSWAP_SECTION
	cat >"$1" <<EOF
{"interval": 0.5, "mglru_aging": false, "headroom": false, "log_level": "debug",
 "state_file": "$STATE", "status": {"socket": null}, "zswap": $2}
EOF
}
config "$T/set7.json" '{"max_pool_percent": 7, "manage": false}'
config "$T/none.json" '{"manage": false}'

start() { # CONFIG [EXTRA OPTIONS]
	local cfg=$1
	shift
	"$AGENT" --allow-unsafe-paths -c "$cfg" --cgroup-root "$CG" --proc-root "$T/proc" --sys-root "$T/sys" \
		--log-stderr "$@" >"$LOG" 2>&1 &
	PID=$!
	wait_for "the agent started" grep -q 'started: cgroup root' "$LOG"
}
wait_for() { # DESCRIPTION COMMAND...: polls up to 10 s
	local what=$1 i
	shift
	for i in $(seq 100); do
		"$@" && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	"$@" && return 0
	echo "timed out waiting for: $what" >&2
	return 1
}
stop() { # SIGNAL
	kill "-$1" "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
}
param() { tr -d '\n' <"$P/max_pool_percent"; }
is() { [ "$(cat "$1" 2>/dev/null | tr -d '\n')" = "$2" ]; }
logged() { grep -q -- "$1" "$LOG"; }

# ---- crash while the agent's value is in force, same configuration: adopted -------------
echo 20 >"$P/max_pool_percent"
start "$T/set7.json"
check "the agent wrote 7" wait_for "max_pool_percent 7" is "$P/max_pool_percent" 7
check "the record is in the state file" \
	python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["entries"]; sys.exit(not any(x["key"]=="zswap/max_pool_percent" and x["administrator"]=="20" and x["agent"]=="7" for x in e))' "$STATE"
stop 9
check "SIGKILL leaves 7 in force" is "$P/max_pool_percent" 7
check "SIGKILL leaves the state file" test -s "$STATE"
start "$T/set7.json"
check "the restart adopts the record" wait_for "adopt line" logged 'zswap: max_pool_percent is 7 as the last run left it'
check "the restart did not take 7 as the administrator's" sh -c "! grep -q 'max_pool_percent 7 -> 7' '$LOG'"
stop TERM
check "a clean stop after the crash puts back the administrator's 20" is "$P/max_pool_percent" 20
check "a clean stop removes the state file" test ! -e "$STATE"
check "no value was left unrestored" sh -c "! grep -q 'could not be put back' '$LOG'"

# ---- crash, then the administrator changes it: the new original ---------------------------
start "$T/set7.json"
wait_for "max_pool_percent 7" is "$P/max_pool_percent" 7
stop 9
echo 30 >"$P/max_pool_percent"
start "$T/set7.json"
check "the restart says it was changed since" wait_for "changed-since line" logged 'zswap: max_pool_percent is 30, not 7 as the last run left it'
check "the agent applies its 7 again" wait_for "max_pool_percent 7" is "$P/max_pool_percent" 7
stop TERM
check "a clean stop puts back the administrator's new 30, not the recorded 20" is "$P/max_pool_percent" 30
check "the state file is gone" test ! -e "$STATE"

# ---- crash, then a configuration that no longer sets it: put back at start -----------------
echo 20 >"$P/max_pool_percent"
start "$T/set7.json"
wait_for "max_pool_percent 7" is "$P/max_pool_percent" 7
stop 9
start "$T/none.json"
check "the restart puts 20 back at once" wait_for "max_pool_percent 20" is "$P/max_pool_percent" 20
check "and says so" logged 'zswap: max_pool_percent put back to 20 (the last run set 7'
stop TERM
check "still 20 after the clean stop" is "$P/max_pool_percent" 20
check "the state file is gone" test ! -e "$STATE"

# ---- a truncated state file, and one of another version -----------------------------------
for bad_file in '{"version": 1, "entries": [{"key": "zswap/max_pool_per' '{"version": 2, "entries": []}'; do
	mkdir -p "$T/run"
	printf '%s' "$bad_file" >"$STATE"
	echo 20 >"$P/max_pool_percent"
	start "$T/set7.json"
	case $bad_file in
	*'"version": 2'*) why='version 2, this agent reads version 1' ;;
	*) why='not valid JSON' ;;
	esac
	check "a bad state file is named with what is wrong ($why)" \
		wait_for "error line" logged "state file $STATE: $why"
	check "and the start goes on as if there were none ($why)" \
		wait_for "max_pool_percent 7" is "$P/max_pool_percent" 7
	check "the bad file is replaced by a good one ($why)" \
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$STATE"
	stop TERM
	check "the clean stop puts back what was in force at start ($why)" is "$P/max_pool_percent" 20
	check "the state file is gone ($why)" test ! -e "$STATE"
done

# ---- records a crashed run would leave, for the other owners -------------------------------
mkdir -p "$CG/work" "$CG/again" "$T/run"
cp "$CG/fixture/"* "$CG/work/"
cp "$CG/fixture/"* "$CG/again/"
echo 1048576 >"$CG/work/memory.zswap.max"
echo 1048576 >"$CG/again/memory.zswap.max"
ZR=$T/sys/block/zram0
echo 1 >"$ZR/writeback_limit_enable"
echo 56 >"$ZR/writeback_limit"
mkdir -p "$T/sys/block/zram1"
echo 1 >"$T/sys/block/zram1/writeback_limit_enable"
echo 56 >"$T/sys/block/zram1/writeback_limit"
ino=$(stat -c %i "$CG/work")
cat >"$STATE" <<EOF
{"version": 1, "pid": 1, "entries": [
 {"key": "zswap_max/work", "id": $ino, "administrator": "max", "agent": "1048576"},
 {"key": "zswap_max/again", "id": 1, "administrator": "max", "agent": "1048576"},
 {"key": "zswap_max/gone.slice/x", "id": 2, "administrator": "max", "agent": "4096"},
 {"key": "zram/zram0/writeback_limit", "administrator": "1000", "agent": "256"},
 {"key": "zram/zram1/writeback_limit_enable", "administrator": "0", "agent": "1"},
 {"key": "swap/$T/no-such-swapfile", "administrator": "10", "agent": "off"},
 {"key": "future/thing", "administrator": "a", "agent": "b"}
]}
EOF
start "$T/none.json"
check "a lowered memory.zswap.max is given back" wait_for "zswap.max max" is "$CG/work/memory.zswap.max" max
check "one of a cgroup made again (another inode) is left" is "$CG/again/memory.zswap.max" 1048576
check "the give-back is logged" logged 'memory.zswap.max given back to 1 cgroup the last run had lowered'
check "an administrator's zram budget is put back less what the chunk used" is "$ZR/writeback_limit" 800
check "writeback_limit_enable the agent switched on is put back to 0" is "$T/sys/block/zram1/writeback_limit_enable" 0
check "a swap device that is gone: record dropped" logged "swap $T/no-such-swapfile: the last run swapped it off"
check "an unknown section is dropped with a warning" logged 'record "future/thing"'
stop TERM
check "the state file is gone after the clean stop" test ! -e "$STATE"

# ---- a dry run leaves the state file alone -------------------------------------------------
mkdir -p "$T/run"
printf '%s\n' '{"version": 1, "entries": [{"key": "zswap/max_pool_percent", "administrator": "20", "agent": "7"}]}' >"$STATE"
cp "$STATE" "$T/state.before"
echo 7 >"$P/max_pool_percent"
start "$T/set7.json" --dry-run
stop TERM
check "--dry-run leaves the state file as it was" cmp -s "$STATE" "$T/state.before"
check "--dry-run leaves the value as it was" is "$P/max_pool_percent" 7

finish
