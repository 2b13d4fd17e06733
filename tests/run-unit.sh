#!/usr/bin/env bash
# Runs the unit test programs given as arguments; prints each one's own summary and a total.
# Exit status: 0 when every check passed.
set -u
passed=0 failed=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	line=$(printf '%s\n' "$out" | tail -n 1)
	p=$(printf '%s' "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(printf '%s' "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$p" ]; then
		# Crashed or printed no summary: count it as one failure and show its output.
		p=0 f=1
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	[ "$f" -gt 0 ] && printf '%s\n' "$out" | tail -n 30
	printf '  unit %-28s %5d passed, %d failed\n' "$(basename "$t")" "$p" "$f"
	passed=$((passed + p)); failed=$((failed + f))
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
