#!/usr/bin/env bash
# The VM tests: each scenario in tests/vm/scenarios/test-*.sh boots Debian's Linux 6.12 in qemu
# with the agent, runs, and reports PASS/FAIL lines. Prints them and ends with
# "vm: N passed, N failed". A scenario that does not complete counts as one failure.
set -u
cd "$(dirname "$0")/../.."
out=tests/vm/out
mkdir -p "$out"
passed=0 failed=0

files=()
for f in tests/vm/configs/*.json; do files+=(--file "$f:/etc/reclaimd/$(basename "$f")"); done

for scenario in tests/vm/scenarios/test-*.sh; do
	name=$(basename "$scenario" .sh)
	echo "== $name"
	if ! tests/vm/run.sh "${files[@]}" --timeout 600 "$scenario" "$out/$name" >"$out/$name.run.log" 2>&1; then
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
	p=$(grep -c '^PASS ' "$out/$name/results.txt" || true)
	f=$(grep -c '^FAIL ' "$out/$name/results.txt" || true)
	passed=$((passed + p)); failed=$((failed + f))
done
echo "vm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
