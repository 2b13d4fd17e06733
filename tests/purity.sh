#!/usr/bin/env bash
# The purity check: decisions (policies/) do no I/O, take no clocks, allocate nothing and log
# nothing. Every symbol an object built from policies/ leaves undefined (nm -u) must be defined
# by another policies/ object or be on the allow-list below: pure libc string and sort routines,
# libm, compiler helpers, and sanitizer instrumentation. Prints one line per offending symbol
# and "purity: N objects, N violations"; exit status 1 on any violation.
set -u
[ $# -gt 0 ] || { echo "purity: no objects given" >&2; exit 2; }
allow='^(memcmp|memcpy|memmove|memset|qsort|bsearch|strcmp|strncmp|strlen|strnlen|strchr|strrchr|sqrt|pow|exp|log|log2|fabs|floor|ceil|round|lround|llround|fmin|fmax|__udivti3|__umodti3|__divti3|__modti3|__stack_chk_fail|__isnan|__isnanf|__isinf)$|^(__asan_|__ubsan_|__tsan_|__sanitizer_|__gcov_)'
defined=$(nm --defined-only "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
violations=0
for o in "$@"; do
	for sym in $(nm -u "$o" | awk '{ print $NF }'); do
		if printf '%s\n' "$sym" | grep -Eq "$allow"; then
			continue
		fi
		if printf '%s\n' "$defined" | grep -qx -- "$sym"; then
			continue
		fi
		echo "purity: $o uses $sym, which is neither a policies/ function nor on the allow-list (tests/purity.sh)"
		violations=$((violations + 1))
	done
done
echo "purity: $# objects, $violations violations"
[ "$violations" -eq 0 ]
