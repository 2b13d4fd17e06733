#!/usr/bin/env bash
# make check-san: the unit tests and the host tests again, built with sanitizers, each variant in
# a build directory of its own (`make CC=<cc> SAN=<san>`: build/<cc>-<san>, -O1):
#   gcc-asan    gcc, AddressSanitizer (with LeakSanitizer) and UBSan
#   clang-asan  clang, the same
#   gcc-tsan    gcc, ThreadSanitizer
# Each runs every C unit test (tests/unit/test_*.c; the threaded ones: the worker pool, the
# node_reclaim writer in test_features, the zram writeback thread in test_zram_ctl), then
# tests/unit/test_explain_path.sh, tests/metrics-e2e.sh and tests/host/status-socket.sh with that
# variant's reclaimd, reclaimctl and status_probe (the daemon's socket server, HTTP metrics,
# configuration errors and SIGHUP reloads under the sanitizer).
#
# Not run here: tests/pkg/ (the .deb, lintian, the documented keys: no code path the tests above
# do not take) and test_plot.sh (gnuplot scripts, no C). `make check-unit` does not run this (it
# stays at about a minute); `make check` does, as a part of its own.
#
# Every error is fatal (-fno-sanitize-recover=all, halt_on_error) and goes to a report file
# (log_path, one per process, in a temporary directory), so one in a daemon a script started is
# seen too: a test with a report counts as failed, whatever its own checks said, and the report
# is printed. Leaks are errors (detect_leaks=1, at every exit of a sanitized program).
# No suppression file: every finding was fixed in the code.
#
# Prints each test's line ("  san gcc-asan test_parse  N passed, ..."), the build and run time of
# each variant, and ends "san: N passed, N failed, N skipped". A variant that does not build
# counts as one failure; a compiler that is not installed as one skipped check.
# Environment: SAN_VARIANTS (default "gcc-asan clang-asan gcc-tsan"), SAN_JOBS (make -j,
# default 2).
set -u
cd "$(dirname "$0")/.."
variants=${SAN_VARIANTS:-gcc-asan clang-asan gcc-tsan}
jobs=${SAN_JOBS:-2}
summary='^unit: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$'
passed=0 failed=0 skipped=0
start_s=$(date +%s)

rep=$(mktemp -d "${TMPDIR:-/tmp}/reclaimd-san.XXXXXX") || { echo "san: 0 passed, 1 failed, 0 skipped"; exit 1; }
trap 'rm -rf "$rep"' EXIT
# status-socket.sh runs reclaimctl as nobody too: its reports must be writable.
chmod 1777 "$rep"
common="halt_on_error=1:log_path=$rep/report:log_exe_name=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:$common"
export UBSAN_OPTIONS="print_stacktrace=1:$common"
export TSAN_OPTIONS="second_deadlock_stack=1:$common"

for v in $variants; do
	cc=${v%-*} san=${v#*-}
	build=build/$v
	if ! command -v "$cc" >/dev/null; then
		echo "SKIP $v: $cc is not installed (make deps installs it)"
		skipped=$((skipped + 1))
		continue
	fi
	tests=()
	for src in tests/unit/test_*.c; do
		t=${src##*/}
		tests+=("$build/tests/${t%.c}")
	done
	v_start=$(date +%s)
	# A make of its own (not the caller's jobserver, nor its command-line variables).
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j"$jobs" CC="$cc" SAN="$san" \
		"${tests[@]}" "$build/reclaimd" "$build/reclaimctl" "$build/tests/status_probe" \
		"$build/tests/gen_cgroupfs" >"$rep/build.log" 2>&1; then
		tail -n 30 "$rep/build.log"
		echo "FAIL $v: make CC=$cc SAN=$san failed"
		failed=$((failed + 1))
		continue
	fi
	built_s=$(date +%s)
	# TSan maps its shadow at fixed addresses, which a kernel with more mmap randomisation
	# (vm.mmap_rnd_bits 32) can collide with ("unexpected memory mapping"): its tests run without
	# address randomisation (personality ADDR_NO_RANDOMIZE, inherited by the daemon the scripts
	# start).
	runner=()
	[ "$san" = tsan ] && runner=(setarch "$(uname -m)" -R)
	for t in "${tests[@]}" tests/unit/test_explain_path.sh tests/metrics-e2e.sh tests/host/status-socket.sh; do
		rm -f "$rep"/report.*
		out=$(BUILD=$build RECLAIMD=$build/reclaimd "${runner[@]}" tests/run-unit.sh "$t" 2>&1)
		p=$(printf '%s\n' "$out" | sed -n "s/$summary/\1/p")
		f=$(printf '%s\n' "$out" | sed -n "s/$summary/\2/p")
		s=$(printf '%s\n' "$out" | sed -n "s/$summary/\3/p")
		[ -n "$p" ] || { p=0 f=1 s=0; }
		printf '%s\n' "$out" | grep -v "$summary" | sed "s/^  unit /  san $v /"
		# The first three reports in full (one per process: a daemon, reclaimctl, a probe).
		n=0
		for r in "$rep"/report.*; do
			[ -e "$r" ] || continue
			n=$((n + 1))
			[ "$n" -le 3 ] || continue
			echo "    sanitizer report ${r##*/report.} (${t##*/}):"
			head -n 60 "$r" | sed 's/^/      /'
		done
		[ "$n" -gt 3 ] && echo "    ... and $((n - 3)) more sanitizer reports (${t##*/})"
		[ "$n" -gt 0 ] && [ "$f" -eq 0 ] && f=1
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	done
	echo "  $v: build $((built_s - v_start)) s, tests $(($(date +%s) - built_s)) s"
done
took=$(($(date +%s) - start_s))
echo "  san: $((took / 60)) min $((took % 60)) s"
echo "san: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
