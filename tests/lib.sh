# shellcheck shell=bash
# lib.sh - the pass/fail/skip counters the shell tests share; sourced, after setting TEST_NAME:
#   TEST_NAME=check-deb; . tests/lib.sh
# summary prints "$TEST_NAME: N passed, N failed, N skipped", the line tests/run-unit.sh and
# tests/check.sh count, and exits 1 when a check failed, else 0. A skip is never a pass.
#   pass TEXT          a passed check, "PASS TEXT" on stdout
#   fail TEXT          a failed check, "FAIL TEXT" on stdout
#   ok                 a passed check, nothing printed
#   bad TEXT           a failed check, "$TEST_FAIL TEXT" on stderr (TEST_FAIL: "FAIL" unless set)
#   skip TEXT          a skipped check, "SKIP TEXT" on stdout
#   check TEXT CMD...  ok when CMD succeeds, else bad TEXT
#   summary            the summary line, then exit
# (tests/host/ scripts keep counters of their own.) And fake_agent: the agent on a generated
# cgroup tree (below).
passed=0 failed=0 skipped=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "${TEST_FAIL:-FAIL} $*" >&2; }
skip() { echo "SKIP $*"; skipped=$((skipped + 1)); }
check() {
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
summary() {
	echo "$TEST_NAME: $passed passed, $failed failed, $skipped skipped"
	exit $((failed > 0))
}

# ---- the agent on a generated cgroup tree ------------------------------------------------------
# fake_agent PREFIX N CONFIGURE [AGENT-OPTION...]: reclaimd --dry-run on a fake cgroup tree, as
# the host tests and reclaimctl's terminal tests run it. Makes a directory
# ${TMPDIR:-/tmp}/PREFIX.XXXXXX, generates in it (bench/gen_cgroupfs, the recorded files of a
# real 6.12 cgroup) a tree of N managed cgroups, then runs CONFIGURE, a command of the caller's
# (a function), which writes the configuration $CFG (its status.socket $SOCK) and may change the
# tree or run checks before the agent starts. Then starts the agent (fake_agent_run).
#   Takes: AGENT (reclaimd), GEN (gen_cgroupfs), TEMPLATE (the cgroup's recorded files), CTL
#   (reclaimctl; default: next to AGENT); AGENT-OPTIONs go to the agent's command line.
#   Leaves: T the directory (T/tree the cgroup root, T/managed the managed cgroups' paths, one
#   a line, T/run the socket's directory, made), SOCK=T/run/reclaimd.sock, CFG=T/reclaimd.json,
#   LOG=T/agent.log (the agent's stderr), AGENT_PID; and an EXIT trap (fake_agent_cleanup) that
#   calls the caller's fake_agent_on_exit if it defined one, stops the agent (SIGTERM) and
#   removes T (KEEP=1: T is kept).
#   Returns 0 when the agent answers `reclaimctl status` on SOCK (polled up to 20 s); 1 when T
#   or the tree could not be made (then "FAIL gen_cgroupfs failed" is counted and nothing
#   runs), 2 when the agent did not answer (it may still be starting: the caller's own waits
#   and checks say what is wrong).
fake_agent() {
	local prefix=$1 n=$2 configure=$3
	shift 3
	T=$(mktemp -d "${TMPDIR:-/tmp}/$prefix.XXXXXX") || { bad "mktemp"; return 1; }
	AGENT_PID=
	trap fake_agent_cleanup EXIT
	SOCK=$T/run/reclaimd.sock
	CFG=$T/reclaimd.json
	LOG=$T/agent.log
	"$GEN" --cgroups "$n" --template "$TEMPLATE" --list "$T/managed" "$T/tree" >/dev/null 2>&1 ||
		{ bad "gen_cgroupfs failed"; return 1; }
	mkdir -p "$T/run"
	"$configure"
	fake_agent_run "$T/tree" "$LOG" "$@"
}

# fake_agent_run TREE LOG [AGENT-OPTION...]: starts the agent on the configuration $CFG with
# --dry-run --cgroup-root TREE --allow-unsafe-paths (a directory, not a cgroup2 mount) and
# --log-stderr into LOG, in the background; AGENT_PID is its pid. Returns 0 once it answers
# `reclaimctl status` on $SOCK (polled up to 20 s), else 2.
fake_agent_run() {
	local tree=$1 log=$2 ctl=${CTL:-$(dirname "$AGENT")/reclaimctl}
	shift 2
	"$AGENT" --config "$CFG" --dry-run --cgroup-root "$tree" --allow-unsafe-paths --log-stderr \
		"$@" 2>"$log" &
	AGENT_PID=$!
	for _ in $(seq 200); do
		[ -S "$SOCK" ] && "$ctl" --socket "$SOCK" status >/dev/null 2>&1 && return 0
		kill -0 "$AGENT_PID" 2>/dev/null || return 2
		sleep 0.1
	done
	return 2
}

# The EXIT trap of fake_agent.
fake_agent_cleanup() {
	declare -F fake_agent_on_exit >/dev/null && fake_agent_on_exit
	[ -n "${AGENT_PID:-}" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
