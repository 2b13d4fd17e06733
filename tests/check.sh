#!/usr/bin/env bash
# make check: unit tests, the sanitizer builds (tests/run-san.sh), then the VM tests on a real
# kernel; ends with
# "N passed, N failed, N skipped". A part whose total line is missing (it crashed or was killed)
# counts as one failure, as does a part that exits non-zero with no failure counted. Before the
# total line it repeats every FAIL line of every part, so the end of the output names what failed.
set -u
cd "$(dirname "$0")/.."
total='\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$'

# field PREFIX N: field N (1 passed, 2 failed, 3 skipped) of stdin's "PREFIX: ..." total line.
field() {
	sed -n "s/^$1: $total/\\$2/p" | tail -n 1
}

# fails: every FAIL line seen so far, in the order the parts ran.
fails=''
note_fails() {
	local f
	# A scenario's or a check's FAIL line, or a program's or part's line with failures, but not
	# a part's total line (printed again below).
	f=$(grep -E '(^|[] ])FAIL| [1-9][0-9]* failed,' | grep -vE '^[a-z]+: [0-9]+ passed' || true)
	[ -n "$f" ] && fails="$fails$f"$'\n'
	return 0
}

start_s=$(date +%s)
unit_out=$(tests/run-unit.sh "$@")
unit_rc=$?
printf '%s\n' "$unit_out"
note_fails <<<"$unit_out"
up=$(printf '%s\n' "$unit_out" | field unit 1)
uf=$(printf '%s\n' "$unit_out" | field unit 2)
us=$(printf '%s\n' "$unit_out" | field unit 3)
[ -n "$up" ] || { up=0 uf=1 us=0; }
[ "$unit_rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1

# The unit and host tests under ASan+UBSan (gcc, clang) and TSan (tests/run-san.sh, 3 to
# 6 minutes on 2 cores). RECLAIMD_CHECK_SAN=0 leaves them out.
sp=0 sf=0 ss=0
if [ "${RECLAIMD_CHECK_SAN:-1}" = 1 ]; then
	san_log=$(mktemp "${TMPDIR:-/tmp}/reclaimd-check-san.XXXXXX")
	tests/run-san.sh 2>&1 | tee "$san_log"
	san_rc=${PIPESTATUS[0]}
	san_out=$(cat "$san_log")
	note_fails <<<"$san_out"
	rm -f "$san_log"
	sp=$(printf '%s\n' "$san_out" | field san 1)
	sf=$(printf '%s\n' "$san_out" | field san 2)
	ss=$(printf '%s\n' "$san_out" | field san 3)
	[ -n "$sp" ] || { sp=0 sf=1 ss=0; }
	[ "$san_rc" -ne 0 ] && [ "$sf" -eq 0 ] && sf=1
fi

# vm_part LOG ARGS...: runs tests/vm/run-tests.sh ARGS, which prints each scenario's lines as it
# ends (kept in LOG), and sets vp, vf, vs from its "vm:" total line (missing: one failure).
vm_part() {
	local log=$1 rc out
	shift
	tests/vm/run-tests.sh "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	out=$(cat "$log")
	note_fails <<<"$out"
	vp=$(printf '%s\n' "$out" | field vm 1)
	vf=$(printf '%s\n' "$out" | field vm 2)
	vs=$(printf '%s\n' "$out" | field vm 3)
	[ -n "$vp" ] || { vp=0 vf=1 vs=0; }
	[ "$rc" -ne 0 ] && [ "$vf" -eq 0 ] && vf=1
	return 0
}

# The VM suite on the default kernel (about 25 minutes in a clean-clone run).
vm_log=$(mktemp "${TMPDIR:-/tmp}/reclaimd-check.XXXXXX")
trap 'rm -f "$vm_log"' EXIT
vm_part "$vm_log"
# The matrix subset on the other kernels (tests/vm/run-tests.sh --matrix: smoke, lifecycle,
# reclaim and features on 6.1 and 7.3, about 5 minutes). RECLAIMD_CHECK_MATRIX=0 leaves it out.
if [ "${RECLAIMD_CHECK_MATRIX:-1}" = 1 ]; then
	p0=$vp f0=$vf s0=$vs
	vm_part "$vm_log" --matrix
	vp=$((p0 + vp)) vf=$((f0 + vf)) vs=$((s0 + vs))
fi

# One pass of the lifecycle, reclaim and zswap scenarios with the agent built with ASan+UBSan
# (the runtime linked in: the guest has no libasan); a sanitizer report in the results is a
# failure (tests/vm/run-tests.sh). About 8 minutes. RECLAIMD_CHECK_VM_SAN=0 leaves it out.
if [ "${RECLAIMD_CHECK_VM_SAN:-1}" = 1 ]; then
	p0=$vp f0=$vf s0=$vs
	san_dir=build/gcc-asan-static
	# Not the caller's make settings (a SANITIZER= or CFLAGS= given to make check): this build's.
	if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s CC=gcc SAN=asan SAN_STATIC=1 \
		"$san_dir/reclaimd" "$san_dir/reclaimctl" >"$vm_log" 2>&1; then
		vm_part "$vm_log" --agent "$san_dir/reclaimd" lifecycle reclaim zswap
	else
		cat "$vm_log"
		msg="FAIL the ASan+UBSan agent did not build"
		echo "$msg"
		note_fails <<<"$msg"
		vp=0 vf=1 vs=0
	fi
	vp=$((p0 + vp)) vf=$((f0 + vf)) vs=$((s0 + vs))
fi

took=$(($(date +%s) - start_s))
echo "make check: $((took / 60)) min $((took % 60)) s"
if [ -n "$fails" ]; then
	echo "what failed:"
	printf '%s' "$fails" | sed 's/^ */  /'
fi
echo "$((up + sp + vp)) passed, $((uf + sf + vf)) failed, $((us + ss + vs)) skipped"
[ $((uf + sf + vf)) -eq 0 ]
