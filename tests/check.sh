#!/usr/bin/env bash
# make check: unit tests, then the VM tests on a real kernel; ends with
# "N passed, N failed, N skipped". A part whose total line is missing (it crashed or was killed)
# counts as one failure, as does a part that exits non-zero with no failure counted.
set -u
cd "$(dirname "$0")/.."
total='\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$'

# field PREFIX N: field N (1 passed, 2 failed, 3 skipped) of stdin's "PREFIX: ..." total line.
field() {
	sed -n "s/^$1: $total/\\$2/p" | tail -n 1
}

start_s=$(date +%s)
unit_out=$(tests/run-unit.sh "$@")
unit_rc=$?
printf '%s\n' "$unit_out"
up=$(printf '%s\n' "$unit_out" | field unit 1)
uf=$(printf '%s\n' "$unit_out" | field unit 2)
us=$(printf '%s\n' "$unit_out" | field unit 3)
[ -n "$up" ] || { up=0 uf=1 us=0; }
[ "$unit_rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1

# The VM part prints each scenario's lines as it ends (about 16 minutes in all), kept for the
# totals below.
vm_log=$(mktemp "${TMPDIR:-/tmp}/reclaimd-check.XXXXXX")
trap 'rm -f "$vm_log"' EXIT
tests/vm/run-tests.sh 2>&1 | tee "$vm_log"
vm_rc=${PIPESTATUS[0]}
vm_out=$(cat "$vm_log")
vp=$(printf '%s\n' "$vm_out" | field vm 1)
vf=$(printf '%s\n' "$vm_out" | field vm 2)
vs=$(printf '%s\n' "$vm_out" | field vm 3)
[ -n "$vp" ] || { vp=0 vf=1 vs=0; }
[ "$vm_rc" -ne 0 ] && [ "$vf" -eq 0 ] && vf=1

took=$(($(date +%s) - start_s))
echo "make check: $((took / 60)) min $((took % 60)) s"
echo "$((up + vp)) passed, $((uf + vf)) failed, $((us + vs)) skipped"
[ $((uf + vf)) -eq 0 ]
