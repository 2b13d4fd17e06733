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

# vm_part LOG ARGS...: runs tests/vm/run-tests.sh ARGS, which prints each scenario's lines as it
# ends (kept in LOG), and sets vp, vf, vs from its "vm:" total line (missing: one failure).
vm_part() {
	local log=$1 rc out
	shift
	tests/vm/run-tests.sh "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	out=$(cat "$log")
	vp=$(printf '%s\n' "$out" | field vm 1)
	vf=$(printf '%s\n' "$out" | field vm 2)
	vs=$(printf '%s\n' "$out" | field vm 3)
	[ -n "$vp" ] || { vp=0 vf=1 vs=0; }
	[ "$rc" -ne 0 ] && [ "$vf" -eq 0 ] && vf=1
	return 0
}

# The VM suite on the default kernel (about 16 minutes in all).
vm_log=$(mktemp "${TMPDIR:-/tmp}/reclaimd-check.XXXXXX")
trap 'rm -f "$vm_log"' EXIT
vm_part "$vm_log"
# The matrix subset on the other kernels (tests/vm/run-tests.sh --matrix: smoke, lifecycle,
# reclaim and features on 6.1 and 7.3, about 10 minutes). RECLAIMD_CHECK_MATRIX=0 leaves it out.
if [ "${RECLAIMD_CHECK_MATRIX:-1}" = 1 ]; then
	p0=$vp f0=$vf s0=$vs
	vm_part "$vm_log" --matrix
	vp=$((p0 + vp)) vf=$((f0 + vf)) vs=$((s0 + vs))
fi

took=$(($(date +%s) - start_s))
echo "make check: $((took / 60)) min $((took % 60)) s"
echo "$((up + vp)) passed, $((uf + vf)) failed, $((us + vs)) skipped"
[ $((uf + vf)) -eq 0 ]
