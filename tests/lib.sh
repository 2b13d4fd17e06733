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
# (tests/host/ scripts keep counters of their own.)
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
