#!/usr/bin/env bash
# safety.sh - what reclaimd refuses (docs/operating.md "Safety"), with the real binaries on the
# host:   - a configuration file others can write (0666), one in a group-writable directory, one
# owned     by another user, one reached through another user's symlink: exit 2 at start, and from
#     --check-config, with one line naming the component, its owner (uid) and its mode (octal);
#   - a ConfigMap-shaped directory (0777, ..data symlinks) refused; as a read-only bind mount (a
#     private mount namespace; skipped where mounts are not allowed) refused too, and accepted
#     with --trust-read-only-mounts, which does not let a writable file through;
#   - --cgroup-root /etc (no cgroup2 mount): exit 2 naming the path and its file system;
#   - a rule's "match" of "../../etc/*": exit 2 naming rules[0].match and the component;
#   - a procfs root without pressure/memory (a kernel booted with psi=0): exit 3 at once,
#     naming the file and the likely cause;
#   - SIGHUP and `reclaimctl reload` (both loop_reload()) of a file made unsafe keep the running
#     configuration (its interval, read back through the status socket) and name the component;
#     the same file made safe again is loaded. The agent runs --dry-run on a cgroup2 mount of
#     this host (the first in /proc/self/mounts) with a rule that matches nothing: it writes
#     nothing. Skipped without a cgroup2 mount or without /proc/pressure/memory.
# None of these runs passes --allow-unsafe-paths except where a test says so.
#
# Run by `make check-unit` (through tests/run-unit.sh); BUILD names the build directory (default
# build/gcc). Needs root (files owned by root, chown, mounts); otherwise it is skipped. Its files
# are in a directory made under /tmp, which must be root's and sticky, or the checks that need
# an accepted file are skipped with the reason. Ends with "safety: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=$BUILD/reclaimd
CTL=$BUILD/reclaimctl
FIX=tests/fixtures/real-6.12
NAME=safety

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
skip() { skipped=$((skipped + 1)); echo "SKIP $NAME: $*"; }
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
# has FILE TEXT: the file holds TEXT (fixed string); shows the file when not.
not_has() {
	! grep -qF -- "$2" "$1" && return 0
	echo "--- \"$2\" in $1:" >&2
	cat "$1" >&2
	return 1
}
has() {
	grep -qF -- "$2" "$1" && return 0
	echo "--- no \"$2\" in $1:" >&2
	cat "$1" >&2
	return 1
}

if [ "$(id -u)" -ne 0 ]; then
	skip "needs root (files owned by root, chown, mounts)"
	finish
fi
for f in "$AGENT" "$CTL"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; finish; }
done
T=$(mktemp -d /tmp/reclaimd-safety.XXXXXX) || { bad "mktemp"; finish; }
AGENT_PID=
cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
umask 022

# run OUT COMMAND...: stdout and stderr to OUT; returns the command's status.
run() {
	local out=$1
	shift
	"$@" >"$out" 2>&1
}
# A configuration: interval $2 seconds, a rule that matches no cgroup, no headroom (it would
# read the host's PSI trigger), the status socket in $T/run.
conf() { # FILE INTERVAL
	cat >"$1" <<EOF
{ "interval": $2, "headroom": false, "mglru_aging": false,
  "status": { "socket": "$T/run/reclaimd.sock" },
  "rules": [ { "match": "reclaimd-safety-test-matches-nothing" } ] }
EOF
}

# The starting point: a safe file is accepted.
conf "$T/ok.json" 1
if ! run "$T/o" "$AGENT" --check-config -c "$T/ok.json"; then
	skip "a file in $T is refused ($(grep refused "$T/o" | head -n 1)): /tmp must be root's and sticky"
	finish
fi
ok
# The host's cgroup layout: a valid file exits 0 either way, with a warning on a host where the
# agent would not start (the memory controller on a cgroup-v1 hierarchy, as on this build host).
if awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { f = 1 } END { exit !f }' /proc/self/mounts; then
	check "cgroup-v1 memory controller: --check-config warns" \
		has "$T/o" "reclaimd: warning: on this host the memory controller is on a cgroup-v1 hierarchy"
elif awk '$3 == "cgroup2" { f = 1 } END { exit !f }' /proc/self/mounts; then
	check "cgroup v2: no cgroup-v1 warning" not_has "$T/o" "cgroup-v1 hierarchy"
else
	check "no cgroup mount: --check-config warns" \
		has "$T/o" "reclaimd: warning: no cgroup-v2 hierarchy with the memory controller found"
fi

# ---- the file and its directories ---------------------------------------------------------
conf "$T/c666.json" 1
chmod 0666 "$T/c666.json"
run "$T/o" "$AGENT" -c "$T/c666.json" --dry-run --once --log-stderr
check "0666 file: exit 2 at start (was $?)" [ $? -eq 2 ]
check "0666 file: names path, owner and mode" \
	has "$T/o" "$T/c666.json: refused: $T/c666.json is writable by others (owner uid 0, mode 0666)"
run "$T/o" "$AGENT" --check-config -c "$T/c666.json"
check "0666 file: --check-config exit 2" [ $? -eq 2 ]
check "0666 file: --check-config says so" has "$T/o" "$T/c666.json is writable by others (owner uid 0, mode 0666)"
run "$T/o" "$AGENT" --check-config --allow-unsafe-paths -c "$T/c666.json"
check "0666 file: --allow-unsafe-paths reads it" [ $? -eq 0 ]

mkdir -m 0775 "$T/gw"
conf "$T/gw/c.json" 1
run "$T/o" "$AGENT" -c "$T/gw/c.json" --dry-run --once --log-stderr
check "group-writable parent: exit 2 at start" [ $? -eq 2 ]
check "group-writable parent: names it, owner and mode" \
	has "$T/o" "$T/gw/c.json: refused: $T/gw is writable by its group (owner uid 0, mode 0775)"
run "$T/o" "$AGENT" --check-config -c "$T/gw/c.json"
check "group-writable parent: --check-config exit 2" [ $? -eq 2 ]
check "group-writable parent: --check-config says so" has "$T/o" "$T/gw is writable by its group (owner uid 0, mode 0775)"

mkdir -m 0755 "$T/sticky"
chmod 1777 "$T/sticky"
conf "$T/sticky/c.json" 1
run "$T/o" "$AGENT" --check-config -c "$T/sticky/c.json"
check "root's file in a root-owned sticky directory: accepted" [ $? -eq 0 ]

conf "$T/nobody.json" 1
chown 65534 "$T/nobody.json"
run "$T/o" "$AGENT" --check-config -c "$T/nobody.json"
check "another owner: exit 2" [ $? -eq 2 ]
check "another owner: says so" has "$T/o" "$T/nobody.json is not owned by root (owner uid 65534, mode 0644)"

ln -s ok.json "$T/link.json"
run "$T/o" "$AGENT" --check-config -c "$T/link.json"
check "root's symlink to a safe file: accepted" [ $? -eq 0 ]
chown -h 65534 "$T/link.json"
run "$T/o" "$AGENT" --check-config -c "$T/link.json"
check "another user's symlink: exit 2" [ $? -eq 2 ]
check "another user's symlink: names the link" has "$T/o" "$T/link.json is not owned by root (owner uid 65534"

# A ConfigMap volume as the kubelet makes it: the top directory 0777, the file behind ..data.
mkdir -p "$T/cm/..2025_01_01_00_00_00.1" "$T/cmro"
chmod 0777 "$T/cm"
conf "$T/cm/..2025_01_01_00_00_00.1/reclaimd.json" 1
ln -s ..2025_01_01_00_00_00.1 "$T/cm/..data"
ln -s ..data/reclaimd.json "$T/cm/reclaimd.json"
run "$T/o" "$AGENT" --check-config -c "$T/cm/reclaimd.json"
check "ConfigMap layout, writable: exit 2" [ $? -eq 2 ]
check "ConfigMap layout, writable: names the 0777 directory" has "$T/o" "$T/cm is writable by others (owner uid 0, mode 0777)"
# ro_mount ARGS...: --check-config of the same tree bind-mounted read-only at $T/cmro.
ro_mount() {
	unshare -m sh -c 'mount --make-rprivate / 2>/dev/null; mount --bind "$1" "$2" &&
		mount -o remount,bind,ro "$2" && shift 3 && exec "$@"' \
		sh "$T/cm" "$T/cmro" "$AGENT" "$AGENT" --check-config -c "$T/cmro/reclaimd.json" "$@"
}
if unshare -m true 2>/dev/null; then
	run "$T/o" ro_mount
	check "ConfigMap layout on a read-only mount: refused by default" [ $? -eq 2 ]
	check "ConfigMap layout on a read-only mount: names the directory" \
		has "$T/o" "$T/cmro is writable by others (owner uid 0, mode 0777)"
	run "$T/o" ro_mount --trust-read-only-mounts
	check "ConfigMap layout on a read-only mount: accepted with --trust-read-only-mounts" [ $? -eq 0 ]
	chmod 0646 "$T/cm/..2025_01_01_00_00_00.1/reclaimd.json"
	run "$T/o" ro_mount --trust-read-only-mounts
	check "ConfigMap layout on a read-only mount, 0646 file: still refused" [ $? -eq 2 ]
	check "ConfigMap layout on a read-only mount, 0646 file: names the file" \
		has "$T/o" "$T/cmro/..2025_01_01_00_00_00.1/reclaimd.json is writable by others (owner uid 0, mode 0646)"
	chmod 0644 "$T/cm/..2025_01_01_00_00_00.1/reclaimd.json"
	run "$T/o" "$AGENT" --check-config --trust-read-only-mounts -c "$T/cm/reclaimd.json"
	check "ConfigMap layout, writable mount: refused with --trust-read-only-mounts too" [ $? -eq 2 ]
	check "ConfigMap layout, writable mount: names the directory" \
		has "$T/o" "$T/cm is writable by others (owner uid 0, mode 0777)"
else
	skip "ConfigMap layout on a read-only mount: no private mount namespace here (unshare -m)"
fi

# ---- the cgroup root, the rules, PSI --------------------------------------------------------
run "$T/o" "$AGENT" -c "$T/ok.json" --cgroup-root /etc --dry-run --once --log-stderr
check "--cgroup-root /etc: exit 2" [ $? -eq 2 ]
check "--cgroup-root /etc: names the path and what it is" has "$T/o" "cgroup root /etc is not a cgroup2 mount: it is on "

printf '{ "rules": [ { "match": "../../etc/*" } ] }\n' >"$T/dots.json"
run "$T/o" "$AGENT" -c "$T/dots.json" --dry-run --once --log-stderr
check "match ../../etc/*: exit 2" [ $? -eq 2 ]
check "match ../../etc/*: names rules[0].match, its line and column, and the component" \
	has "$T/o" "$T/dots.json:1:16: rules[0].match: the component \"..\" (at offset 0) is not allowed"

mkdir -p "$T/proc" "$T/tree"
cp "$FIX/proc/meminfo" "$FIX/proc/vmstat" "$FIX/proc/swaps" "$T/proc/"
start=$(date +%s)
run "$T/o" timeout 20 "$AGENT" -c "$T/ok.json" --proc-root "$T/proc" --cgroup-root "$T/tree" \
	--allow-unsafe-paths --dry-run --log-stderr
rc=$?
check "no PSI: exit 3 at start, without --once (was $rc)" [ "$rc" -eq 3 ]
check "no PSI: within seconds, no retrying" [ $(($(date +%s) - start)) -le 10 ]
check "no PSI: names the file and the cause" \
	has "$T/o" "$T/proc/pressure/memory does not exist: this kernel has no PSI (booted with psi=0"

# ---- reload keeps the running configuration ------------------------------------------------
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$cg" ]; then
	skip "reload: no cgroup2 mount on this host"
	finish
fi
if [ ! -e /proc/pressure/memory ]; then
	skip "reload: this kernel has no PSI"
	finish
fi
mkdir -m 0755 "$T/live" "$T/run"
CFG=$T/live/reclaimd.json
conf "$CFG" 1
# The interval in use, in seconds, from the agent's Status ("config" comes before "tick").
interval() { "$CTL" --socket "$T/run/reclaimd.sock" --json status 2>/dev/null |
	sed -n 's/^ *"interval_s": *\([0-9.]*\).*/\1/p' | head -n 1 | awk '{ print $1 + 0 }'; }
LOG=$T/agent.log
"$AGENT" -c "$CFG" --cgroup-root "$cg" --dry-run --log-stderr 2>"$LOG" &
AGENT_PID=$!
for _ in $(seq 100); do
	[ -n "$(interval)" ] && break
	sleep 0.1
done
check "reload: the agent runs on $cg with interval 1" [ "$(interval)" = 1 ]

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

conf "$CFG" 2
chmod 0666 "$CFG"
kill -HUP "$AGENT_PID"
check "SIGHUP, 0666 file: rejected, naming path, owner and mode" \
	logged "configuration not reloaded, keeping the previous one: $CFG: refused: $CFG is writable by others (owner uid 0, mode 0666)"
check "SIGHUP, 0666 file: the agent runs on" kill -0 "$AGENT_PID"
check "SIGHUP, 0666 file: the interval in use is still 1" [ "$(interval)" = 1 ]

chmod 0644 "$CFG"
chmod 0775 "$T/live"
run "$T/o" "$CTL" --socket "$T/run/reclaimd.sock" reload
check "reclaimctl reload, group-writable directory: exit 7 (was $?)" [ $? -eq 7 ]
check "reclaimctl reload, group-writable directory: names it" has "$T/o" "$T/live is writable by its group (owner uid 0, mode 0775)"
check "reclaimctl reload, group-writable directory: the interval in use is still 1" [ "$(interval)" = 1 ]

chmod 0755 "$T/live"
kill -HUP "$AGENT_PID"
check "SIGHUP, the file safe again: loaded" logged "configuration reloaded from $CFG"
check "SIGHUP, the file safe again: interval 2" [ "$(interval)" = 2 ]
kill -TERM "$AGENT_PID"
wait "$AGENT_PID"
check "the agent stops with 0" [ $? -eq 0 ]
AGENT_PID=
finish
