#!/usr/bin/env bash
# The VM tests: each scenario in tests/vm/scenarios/test-*.sh boots Debian's Linux 6.12 in qemu
# with the agent, runs, and reports PASS/FAIL/SKIP lines. Prints them and ends with
# "vm: N passed, N failed, N skipped". A scenario that does not complete, times out or exits
# non-zero without a FAIL line counts as one failure;
# a SKIP line (a check the VM could not run) is counted apart, never as a pass.
#
# Usage: tests/vm/run-tests.sh [NAME...]   (NAME: test-numa or numa; default: every test-*.sh)
#
# A scenario asks for a different VM with one header comment line (among its first 30 lines)
#   # vm-options: --cpus-per-node 2 --node-mem 512M
# whose words are passed to tests/vm/run.sh after the defaults (--timeout 600 and every
# tests/vm/configs/*.json as /etc/reclaimd/<name>.json), so they can override them (e.g.
# --timeout 900). Words are split on blanks; no quoting. A line
#   # vm-prepare: make -s deb
# is a command run (from the repository root) before the scenario boots; if it fails, the
# scenario counts as one failure.
set -u
cd "$(dirname "$0")/../.."
out=tests/vm/out
mkdir -p "$out"
passed=0 failed=0 skipped=0

files=()
for f in tests/vm/configs/*.json; do files+=(--file "$f:/etc/reclaimd/$(basename "$f")"); done

scenarios=()
if [ $# -eq 0 ]; then
	scenarios=(tests/vm/scenarios/test-*.sh)
else
	for n in "$@"; do
		n=${n##*/}
		n=${n%.sh}
		n=test-${n#test-}
		[ -f "tests/vm/scenarios/$n.sh" ] || { echo "run-tests.sh: no scenario tests/vm/scenarios/$n.sh" >&2; exit 2; }
		scenarios+=("tests/vm/scenarios/$n.sh")
	done
fi

for scenario in "${scenarios[@]}"; do
	name=$(basename "$scenario" .sh)
	# shellcheck disable=SC2207 # word splitting is the point
	vm_opts=($(head -n 30 "$scenario" | sed -n 's/^# vm-options:[[:space:]]*//p' | head -n 1))
	prepare=$(head -n 30 "$scenario" | sed -n 's/^# vm-prepare:[[:space:]]*//p' | head -n 1)
	echo "== $name${vm_opts[*]:+ (${vm_opts[*]})}"
	if [ -n "$prepare" ] && ! bash -c "$prepare" >"$out/$name.prepare.log" 2>&1; then
		echo "FAIL $name: '$prepare' failed (see $out/$name.prepare.log)"
		failed=$((failed + 1))
		continue
	fi
	start_s=$(date +%s)
	if ! tests/vm/run.sh "${files[@]}" --timeout 600 "${vm_opts[@]}" "$scenario" "$out/$name" >"$out/$name.run.log" 2>&1; then
		echo "FAIL $name: the VM run did not complete (see $out/$name.run.log, $out/$name/console.log)"
		failed=$((failed + 1))
		continue
	fi
	if [ ! -s "$out/$name/results.txt" ]; then
		echo "FAIL $name: no results (see $out/$name/scenario.log)"
		failed=$((failed + 1))
		continue
	fi
	sed 's/^/  /' "$out/$name/results.txt"
	echo "  ($name: $(($(date +%s) - start_s)) s)"
	p=$(grep -c '^PASS ' "$out/$name/results.txt" || true)
	f=$(grep -c '^FAIL ' "$out/$name/results.txt" || true)
	s=$(grep -c '^SKIP ' "$out/$name/results.txt" || true)
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	# Results of a scenario that was killed or stopped by an error are incomplete: the checks it
	# did not reach must not disappear from the count.
	if [ -f "$out/$name/scenario.timeout" ]; then
		echo "FAIL $name: the scenario timed out (see $out/$name/scenario.log)"
		failed=$((failed + 1))
	elif [ "$(cat "$out/$name/scenario.rc" 2>/dev/null)" != 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: the scenario exited $(cat "$out/$name/scenario.rc" 2>/dev/null || echo '?') (see $out/$name/scenario.log)"
		failed=$((failed + 1))
	fi
done
echo "vm: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
