#!/usr/bin/env bash
# dropins.sh - the drop-in directory with the real reclaimd (docs/configuration.md "Drop-ins"):
# --check-config on a copy of the recorded 6.12 tree (tests/fixtures/real-6.12), the daemon with
# --dry-run on this host's cgroup2 mount (skipped without one, or without PSI), its configuration
# in a root-only directory and read through the trust check (no --allow-unsafe-paths):
#   - at start, <dir>/reclaimd.d/10-a.json is merged: its "interval" wins over the main file's,
#     its rule is added; --check-config lists the files read, in order, and warns about a main
#     file's rule that a drop-in's "**" shadows;
#   - SIGHUP with a drop-in that has a syntax error: rejected naming the drop-in, line and
#     column; the agent runs on with the previous configuration (interval, rule count);
#   - SIGHUP with a drop-in others can write: refused naming it, previous configuration kept;
#   - `reclaimctl reload` with a drop-in holding two errors: exit 7, the first error and the
#     count in the reply, previous configuration kept;
#   - SIGHUP with a good second drop-in: applied (its interval, one rule more);
#   - SIGHUP and `reclaimctl reload` with a third drop-in whose rule shadows the main file's:
#     the shadow warning logged once per reload (1, 2, 3 in all), none once it is gone.
# Needs root (the files must be root's to pass the trust check); otherwise skipped. Waits are
# bounded polls (10 s) and the agent runs under a 60 s timeout. Run by `make check-unit`;
# ends "dropins: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=${RECLAIMD:-$BUILD/reclaimd}
CTL=${RECLAIMCTL:-$BUILD/reclaimctl}
FIX=tests/fixtures/real-6.12
NAME=dropins

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
	skip "needs root (the configuration files must be root's)"
	finish
fi
for f in "$AGENT" "$CTL"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; finish; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-dropins.XXXXXX") || { bad "mktemp"; finish; }
chmod 0755 "$T"
AGENT_PID=
cleanup() {
	[ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
umask 022
cp -r "$FIX/proc" "$FIX/sys" "$T/"
CG=$T/sys/fs/cgroup
mkdir -m 0755 "$T/etc" "$T/etc/reclaimd.d" "$T/run"
CFG=$T/etc/reclaimd.json
D=$T/etc/reclaimd.d
SOCK=$T/run/reclaimd.sock
cat >"$CFG" <<EOF
{"interval": 1, "mglru_aging": false, "headroom": false, "log_level": "info",
 "state_file": null, "status": {"socket": "$SOCK"},
 "zswap": {"manage": false},
 "rules": [{"match": "system.slice/*.service"}]}
EOF
echo '{"interval": 2, "rules": [{"match": "system.slice/cron.service", "policy": "none"}]}' >"$D/10-a.json"

run() { # OUT COMMAND...: stdout and stderr into OUT, the exit status returned
	local out=$1
	shift
	"$@" >"$out" 2>&1
}
has() { grep -qF -- "$2" "$1" || { echo "--- no \"$2\" in $1:" >&2; cat "$1" >&2; return 1; }; }

run "$T/cc" "$AGENT" --check-config -c "$CFG" --cgroup-root "$CG" --proc-root "$T/proc" --sys-root "$T/sys"
check "--check-config: exit 0 (was $?)" [ $? -eq 0 ]
check "--check-config: the main file read first" has "$T/cc" "# read 1: $CFG"
check "--check-config: then the drop-in" has "$T/cc" "# read 2: $D/10-a.json"
check "--check-config: the drop-in's interval" grep -q '^interval  *2 s' "$T/cc"
check "--check-config: the drop-in's rule first" has "$T/cc" 'rules[0]  match "system.slice/cron.service"'

# A drop-in rule the main file's rule already covers: accepted, with a warning naming both.
mkdir -m 0755 "$T/sh" "$T/sh/reclaimd.d"
echo '{"rules": [{"match": "a/**"}]}' >"$T/sh/reclaimd.json"
echo '{"rules": [{"match": "**"}]}' >"$T/sh/reclaimd.d/10-all.json"
run "$T/sh.out" "$AGENT" --check-config -c "$T/sh/reclaimd.json" --cgroup-root "$CG" --proc-root "$T/proc" --sys-root "$T/sys"
check "--check-config, a shadowed rule: still valid, exit 0 (was $?)" [ $? -eq 0 ]
check "--check-config, a shadowed rule: warned about" has "$T/sh.out" \
	"reclaimd: warning: $T/sh/reclaimd.json with its drop-ins: rules[1] \"a/**\" never applies: rules[0] \"**\" comes first"

# A shadowed rule whose match holds an escape sequence and a newline: the warning and the rule
# listing show them escaped, and no line of the output is forged.
mkdir -m 0755 "$T/esc" "$T/esc/reclaimd.d"
printf '{"rules": [{"match": "a/x\\u001b[31m\\nFAKE reclaimd[crit]: injected"}]}\n' >"$T/esc/reclaimd.json"
echo '{"rules": [{"match": "**"}]}' >"$T/esc/reclaimd.d/10-all.json"
run "$T/esc.out" "$AGENT" --check-config -c "$T/esc/reclaimd.json" --cgroup-root "$CG" --proc-root "$T/proc" --sys-root "$T/sys"
check "--check-config, a match with ESC and newline: exit 0 (was $?)" [ $? -eq 0 ]
check "--check-config, a match with ESC and newline: no ESC byte out" bash -c "! grep -q \$'\\x1b' '$T/esc.out'"
check "--check-config, a match with ESC and newline: no forged line" bash -c "! grep -q '^FAKE' '$T/esc.out'"
check "--check-config, a match with ESC and newline: warning escaped" has "$T/esc.out" \
	'rules[1] "a/x\x1b[31m\x0aFAKE reclaimd[crit]: injected" never applies'

# The interval in use, in seconds, from the agent's Status.
interval() { "$CTL" --socket "$SOCK" --json status 2>/dev/null |
	sed -n 's/^ *"interval_s": *\([0-9.]*\).*/\1/p' | head -n 1 | awk '{ print $1 + 0 }'; }
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$cg" ]; then
	skip "the daemon: no cgroup2 mount on this host"
	finish
fi
if [ ! -e /proc/pressure/memory ]; then
	skip "the daemon: this kernel has no PSI"
	finish
fi
LOG=$T/agent.log
timeout -s KILL 60 "$AGENT" -c "$CFG" --cgroup-root "$cg" --dry-run --log-stderr 2>"$LOG" &
AGENT_PID=$!
for _ in $(seq 100); do
	[ -n "$(interval)" ] && break
	sleep 0.1
done
check "start: the drop-in's interval 2 is in use" [ "$(interval)" = 2 ]

# logged LINE: wait (up to 10 s) for a log line holding LINE.
logged() {
	for _ in $(seq 100); do
		grep -qF -- "$1" "$LOG" && return 0
		sleep 0.1
	done
	echo "--- no \"$1\" in the agent's log:" >&2
	cat "$LOG" >&2
	return 1
}
hup() { local a; a=$(pgrep -P "$AGENT_PID" | head -n 1); kill -HUP "${a:-$AGENT_PID}"; }

printf '{"interval": 3,\n  "log_level" "debug"}\n' >"$D/20-b.json"
hup
check "SIGHUP, syntax error in a drop-in: rejected naming it, line and column" \
	logged "configuration not reloaded, keeping the previous one: $D/20-b.json:2:21: ':' expected"
check "SIGHUP, syntax error: the agent runs on" kill -0 "$AGENT_PID"
check "SIGHUP, syntax error: the interval in use is still 2" [ "$(interval)" = 2 ]

echo '{"interval": 3}' >"$D/20-b.json"
chmod 0666 "$D/20-b.json"
hup
check "SIGHUP, drop-in writable by others: refused naming it" \
	logged "$D/20-b.json: refused: $D/20-b.json is writable by others (owner uid 0, mode 0666)"
check "SIGHUP, unsafe drop-in: the interval in use is still 2" [ "$(interval)" = 2 ]

chmod 0644 "$D/20-b.json"
echo '{"interval": 3, "log_level": "warn", "rules": [{"match": "a/**", "policy": "nnoe"}]}' >"$D/20-b.json"
run "$T/o" "$CTL" --socket "$SOCK" reload
check "reclaimctl reload, two errors in a drop-in: exit 7 (was $?)" [ $? -eq 7 ]
check "reclaimctl reload: the first error, with its line, column and did-you-mean" \
	has "$T/o" "$D/20-b.json:1:17: log_level: unknown level \"warn\": did you mean \"warning\"?"
run "$T/o" "$CTL" --socket "$SOCK" --json reload
check "reclaimctl --json reload: the reply names the drop-in, its line and column" \
	has "$T/o" "\"file\": \"$D/20-b.json\","
check "reclaimctl --json reload: line 1, column 17" \
	sh -c "grep -q '\"line\": 1,' '$T/o' && grep -q '\"column\": 17' '$T/o'"
check "reclaimctl reload: and the count of the others" has "$T/o" "(and 1 more: reclaimd --check-config lists them)"
check "reclaimctl reload, bad drop-in: the interval in use is still 2" [ "$(interval)" = 2 ]
run "$T/cc2" "$AGENT" --check-config -c "$CFG" --cgroup-root "$cg"
check "--check-config lists both errors" has "$T/cc2" "rules[0].policy: unknown policy \"nnoe\": did you mean \"none\"?"

echo '{"interval": 3, "rules": [{"match": "user.slice/**"}]}' >"$D/20-b.json"
hup
check "SIGHUP, good drop-ins: loaded with the merged rules" \
	logged "configuration reloaded from $CFG (3 rules)"
check "SIGHUP, good drop-ins: interval 3 from the later drop-in" [ "$(interval)" = 3 ]

# Shadowed rules on reload: warned about as at start, once per reload, and no longer once the
# drop-in that shadows is gone. Merged: 10-a's cron rule, 20-b's user.slice rule, 30-c's
# system.slice/**, then the main file's system.slice/*.service, which 30-c's takes.
SHADOW="$CFG with its drop-ins: rules[3] \"system.slice/*.service\" never applies: rules[2] \"system.slice/**\" comes first and takes every cgroup it could match"
n_shadow() { grep -cF -- "$SHADOW" "$LOG"; }
n_reloads() { grep -c "configuration reloaded from $CFG " "$LOG"; }
# reloaded N: wait (up to 10 s) for the Nth "configuration reloaded" line, and its warnings
# (logged right after it, on the same thread) with a status call answered after them.
reloaded() {
	for _ in $(seq 100); do
		[ "$(n_reloads)" -ge "$1" ] && interval >/dev/null && return 0
		sleep 0.1
	done
	echo "--- not $1 reloads in the agent's log:" >&2
	cat "$LOG" >&2
	return 1
}
check "no shadowed rule so far, none warned about ($(n_shadow))" [ "$(n_shadow)" -eq 0 ]
echo '{"rules": [{"match": "system.slice/**"}]}' >"$D/30-c.json"
r0=$(n_reloads)
hup
check "SIGHUP, a drop-in that shadows: reloaded" reloaded $((r0 + 1))
check "SIGHUP, a drop-in that shadows: loaded with its rule" \
	logged "configuration reloaded from $CFG (4 rules)"
check "SIGHUP, a drop-in that shadows: one warning naming both rules ($(n_shadow))" \
	[ "$(n_shadow)" -eq 1 ]
check "SIGHUP, a drop-in that shadows: no other rule warned about" \
	[ "$(grep -c 'never applies' "$LOG")" -eq 1 ]
hup
check "SIGHUP again, same files: reloaded" reloaded $((r0 + 2))
check "SIGHUP again, same files: the warning once more, 2 in all ($(n_shadow))" \
	[ "$(n_shadow)" -eq 2 ]
run "$T/o" "$CTL" --socket "$SOCK" reload
check "reclaimctl reload: exit 0 (was $?)" [ $? -eq 0 ]
check "reclaimctl reload: reloaded" reloaded $((r0 + 3))
check "reclaimctl reload: the warning once more, 3 in all ($(n_shadow))" [ "$(n_shadow)" -eq 3 ]
rm "$D/30-c.json"
hup
check "SIGHUP, the shadowing drop-in gone: reloaded" reloaded $((r0 + 4))
check "SIGHUP, the shadowing drop-in gone: no new warning ($(n_shadow))" [ "$(n_shadow)" -eq 3 ]
a=$(pgrep -P "$AGENT_PID" | head -n 1)
kill -TERM "${a:-$AGENT_PID}"
wait "$AGENT_PID"
check "the agent stops with 0" [ $? -eq 0 ]
AGENT_PID=
finish
