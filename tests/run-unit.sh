#!/usr/bin/env bash
# Runs the unit test programs given as arguments; prints each one's own summary, its SKIP lines,
# and a total "unit: N passed, N failed, N skipped". A program that crashes, exits non-zero
# without a failed check, or prints no summary counts as one failure.
# Exit status: 0 when no check failed (skipped checks do not fail the run, but are shown).
set -u
passed=0 failed=0 skipped=0
summary='.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$'
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	line=$(printf '%s\n' "$out" | tail -n 1)
	p=$(printf '%s' "$line" | sed -n "s/$summary/\1/p")
	f=$(printf '%s' "$line" | sed -n "s/$summary/\2/p")
	s=$(printf '%s' "$line" | sed -n "s/$summary/\3/p")
	if [ -z "$p" ]; then
		# Crashed or printed no summary: count it as one failure and show its output.
		p=0 f=1 s=0
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$f" -gt 0 ]; then
		printf '%s\n' "$out" | tail -n 30
	elif [ "$s" -gt 0 ]; then
		printf '%s\n' "$out" | grep '^SKIP ' | sed 's/^/    /'
	fi
	printf '  unit %-28s %5d passed, %d failed, %d skipped\n' "$(basename "$t")" "$p" "$f" "$s"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "unit: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
