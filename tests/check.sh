#!/usr/bin/env bash
# make check: unit tests, then the VM tests on a real kernel; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
unit_out=$(tests/run-unit.sh "$@")
unit_rc=$?
printf '%s\n' "$unit_out"
up=$(printf '%s\n' "$unit_out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
uf=$(printf '%s\n' "$unit_out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
up=${up:-0}; uf=${uf:-1}
[ "$unit_rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1

vm_out=$(tests/vm/run-tests.sh 2>&1)
vm_rc=$?
printf '%s\n' "$vm_out"
vp=$(printf '%s\n' "$vm_out" | sed -n 's/^vm: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
vf=$(printf '%s\n' "$vm_out" | sed -n 's/^vm: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
vp=${vp:-0}; vf=${vf:-1}
[ "$vm_rc" -ne 0 ] && [ "$vf" -eq 0 ] && vf=1

echo "$((up + vp)) passed, $((uf + vf)) failed"
[ $((uf + vf)) -eq 0 ]
