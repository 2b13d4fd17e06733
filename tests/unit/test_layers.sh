#!/usr/bin/env bash
# test_layers.sh - the layering the loop and its observers keep (agent/loop/tick_report.h):
#   - no file of agent/obs/ includes loop/loop.h (struct daemon);
#   - no object of agent/obs/ uses a symbol an object of agent/loop/ defines (nm): the loop calls
#     the observers, never the other way round, so there is no call cycle between the two;
#   - no file of agent/ outside config/ compares a policy's name with "none" (the rule lookup
#     sets cgroup_node.rule_manages).
# BUILD names the build directory (make check-unit sets it; default build/gcc). Ends
# "test_layers.sh: N passed, N failed, N skipped", like the C unit tests.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/gcc}
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*" >&2; }
summary() { echo "test_layers.sh: $passed passed, $failed failed, $skipped skipped"; exit $((failed > 0)); }

hits=$(grep -ln '#include "loop/loop.h"' agent/obs/*.[ch] 2>/dev/null)
if [ -z "$hits" ]; then ok; else bad "agent/obs/ includes loop/loop.h: $hits"; fi

loop_objs=$(ls "$BUILD"/agent/loop/*.o 2>/dev/null)
obs_objs=$(ls "$BUILD"/agent/obs/*.o 2>/dev/null)
if [ -z "$loop_objs" ] || [ -z "$obs_objs" ] || ! command -v nm >/dev/null; then
	echo "SKIP the objects of $BUILD/agent/loop and agent/obs (or nm) are missing"
	skipped=$((skipped + 1))
else
	# shellcheck disable=SC2086
	defined=$(nm -g --defined-only $loop_objs | awk 'NF == 3 { print $3 }' | sort -u)
	# shellcheck disable=SC2086
	used=$(nm -u $obs_objs | awk '{ print $NF }' | sort -u)
	cycle=$(comm -12 <(printf '%s\n' "$defined") <(printf '%s\n' "$used"))
	if [ -z "$cycle" ]; then ok; else bad "agent/obs/ calls agent/loop/:" $cycle; fi
	# The check above can fail: the loop does call the observers.
	# shellcheck disable=SC2086
	back=$(comm -12 <(nm -g --defined-only $obs_objs | awk 'NF == 3 { print $3 }' | sort -u) \
			<(nm -u $loop_objs | awk '{ print $NF }' | sort -u) | grep -c '^report_summary$')
	if [ "$back" -eq 1 ]; then ok; else bad "the loop no longer calls report_summary() in agent/obs/"; fi
fi

hits=$(grep -rn 'name, "none"' agent/ --include='*.c' --include='*.h' | grep -v '^agent/config/')
if [ -z "$hits" ]; then ok; else bad "a policy name compared with \"none\": $hits"; fi
summary
