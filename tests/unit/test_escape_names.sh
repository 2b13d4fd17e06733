#!/usr/bin/env bash
# test_escape_names.sh - a cgroup named with ESC, BEL, CR, a newline and a backslash, on a fake
# cgroup tree (bench/gen_cgroupfs, as tests/host/ runs the agent with --dry-run): reclaimctl's
# cgroups, top and explain and the agent's stderr log show the name escaped ("\x1b", "\\",
# escape.h), with no raw control byte; reclaimctl --json keeps the exact name in JSON escapes.
# Any container can name its own cgroups, and these outputs reach terminals (kubectl logs).
# The agent runs through tests/lib.sh's fake_agent. BUILD names the build directory (default
# build/gcc; make check-unit sets it). Ends with
# "test_escape_names.sh: N passed, N failed, N skipped". As root the socket is root's; as
# another user status.read_group is that user's group.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
AGENT=${RECLAIMD:-$BUILD/reclaimd}
CTL=$(dirname "$AGENT")/reclaimctl
GEN=$BUILD/tests/gen_cgroupfs
TEMPLATE=tests/fixtures/real-6.12/sys/fs/cgroup/fixture

TEST_NAME=test_escape_names.sh
. tests/lib.sh
for f in "$AGENT" "$CTL" "$GEN"; do
	[ -x "$f" ] || { bad "$f is not built (make check-unit builds it)"; summary; }
done

# The configuration, and the hostile cgroup: a copy of a generated service, named with ESC [31m,
# BEL, CR, LF and "\".
EVIL=$'evil\e[31m\a\r\nname\\x.service'
SHOWN='evil\x1b[31m\x07\x0d\x0aname\\x.service'     # what a terminal must show
configure() {
	cp -r "$T/tree/system.slice/svc0.service" "$T/tree/system.slice/$EVIL" ||
		{ bad "cannot create the hostile cgroup"; summary; }
	local group=
	[ "$(id -u)" -ne 0 ] && group=", \"read_group\": \"$(id -gn)\""
	cat >"$CFG" <<EOF2
{
  "interval": 0.5,
  "log_level": "info",
  "mglru_aging": false,
  "status": { "socket": "$SOCK" $group },
  "rules": [ { "match": "system.slice/*.service" } ]
}
EOF2
}
fake_agent reclaimd-escape 4 configure
[ $? -eq 1 ] && summary
ctl() { "$CTL" --socket "$SOCK" "$@"; }
# Up, and two ticks for a decision.
for _ in $(seq 100); do
	[ -S "$SOCK" ] && ctl cgroups 2>/dev/null | grep -qF 'evil' && break
	sleep 0.1
done
sleep 1.2

# no_raw FILE: the file has no ESC, BEL or CR byte.
no_raw() { ! LC_ALL=C grep -q $'[\e\a\r]' "$1"; }
# shown FILE: a line of the file holds the escaped name, and no line begins with what follows
# the newline in the name (the name was not split in two).
shown() { grep -qF -- "$SHOWN" "$1" && ! grep -q '^name' "$1"; }

ctl cgroups >"$T/cgroups" 2>&1
check "cgroups: exit 0" [ $? -eq 0 ]
check "cgroups: no raw control byte" no_raw "$T/cgroups"
check "cgroups: the name escaped" shown "$T/cgroups"

ctl top -n 1 >"$T/top" 2>&1
check "top: exit 0" [ $? -eq 0 ]
check "top: no raw control byte" no_raw "$T/top"
check "top: the name escaped" shown "$T/top"

ctl explain "system.slice/$EVIL" >"$T/explain" 2>&1
check "explain: exit 0" [ $? -eq 0 ]
check "explain: no raw control byte" no_raw "$T/explain"
check "explain: the name escaped, first line" [ "$(head -n 1 "$T/explain")" = "system.slice/$SHOWN" ]

# An error message quoting the name (a cgroup that does not exist) is escaped too.
ctl explain "system.slice/$EVIL.gone" >"$T/explain-gone" 2>&1
check "explain, unknown: exit 6" [ $? -eq 6 ]
check "explain, unknown: no raw control byte" no_raw "$T/explain-gone"
check "explain, unknown: the name escaped" grep -qF -- "$SHOWN.gone" "$T/explain-gone"

# JSON keeps the exact name, in JSON's escapes (jansson writes \u001B: either case).
ctl --json cgroups >"$T/json" 2>&1
check "cgroups --json: the exact name" \
	grep -qiF -- '"system.slice/evil\u001b[31m\u0007\r\nname\\x.service"' "$T/json"

kill "$AGENT_PID" && wait "$AGENT_PID" 2>/dev/null
AGENT_PID=
check "agent log: no raw control byte" no_raw "$LOG"
check "agent log: the name escaped" shown "$LOG"
summary
