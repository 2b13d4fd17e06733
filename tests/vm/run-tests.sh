#!/usr/bin/env bash
# The VM tests: each scenario in tests/vm/scenarios/test-*.sh boots a Debian kernel in qemu with
# the agent, runs, and reports PASS/FAIL/SKIP lines. Prints them, each prefixed with the kernel
# series it ran on ("  [6.1] PASS name ..."), and ends with
# "vm: N passed, N failed, N skipped" over every kernel (one "vm [SERIES]: ..." line per kernel
# before it when there are several). A scenario that does not complete, times out or exits
# non-zero without a FAIL line counts as one failure;
# a SKIP line (a check the VM could not run) is counted apart, never as a pass.
#
# Usage: tests/vm/run-tests.sh [--kernel SERIES[,SERIES...]] [--matrix] [--agent PATH] [NAME...]
#   NAME      test-numa or numa (scenarios/test-NAME.sh), or another scenario such as smoke
#             (scenarios/NAME.sh); default: every test-*.sh
#   --kernel  Debian kernel series to run on, in turn: 6.1, 6.12, 7.3 (repeatable; default:
#             $RECLAIMD_VM_KERNEL, else the default kernel of fetch-kernel.sh, 6.12). Results go
#             to tests/vm/out/kernel-SERIES/NAME (tests/vm/out/NAME without --kernel).
#   --matrix  the matrix subset: $MATRIX_SCENARIOS on $MATRIX_KERNELS (below), which is
#             what `make check-matrix` runs; `make check-kernels` runs everything on all three
#   --agent   the agent binary to put in the VM (default ./reclaimd; reclaimctl comes from the
#             same directory), e.g. build/gcc-asan-static/reclaimd from
#             `make reclaimd reclaimctl SAN=asan SAN_STATIC=1`; results then go to
#             tests/vm/out/agent-DIR/... (DIR: the binary's directory name), labelled [SERIES DIR]
#
# After each scenario its results are searched for sanitizer reports (AddressSanitizer,
# LeakSanitizer, UBSan's "runtime error:", ThreadSanitizer) in the agent's logs, the scenario's
# output and the console: a scenario with one counts one failure, with the report's first line.
#
# A VM run whose emulated kernel died on a stray int3 before the scenario ended (an emulator
# hazard, below) is run once more: a "RETRY" line says so, the first console is kept as
# NAME.int3-console.log, and the total says how many were retried.
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
start_dir=$PWD
cd "$(dirname "$0")/../.."
out=tests/vm/out
mkdir -p "$out"
passed=0 failed=0 skipped=0 retried=0

files=()
for f in tests/vm/configs/*.json; do files+=(--file "$f:/etc/reclaimd/$(basename "$f")"); done

# The matrix subset for the kernels other than the default: the agent's life cycle and reclaim
# on the oldest and the newest Debian kernel, the smoke test, which also records the kernel's
# features (kernel-features.txt), test-features (the agent's feature table against them;
# about 1.5 min on 7.3, less where checks are skipped), and test-pages-back (the pages-back
# signal where the kernels differ: 6.1's zram reads bypass io.stat; about 30 s).
MATRIX_KERNELS="6.1 7.3"
MATRIX_SCENARIOS="smoke lifecycle reclaim features pages-back"

kernels=()
names=()
agent=
# What a sanitizer report starts with: ASan and LSan ("==PID==ERROR: AddressSanitizer: ...",
# "ERROR: LeakSanitizer: detected memory leaks"), UBSan ("file.c:12:3: runtime error: ..."),
# TSan ("WARNING: ThreadSanitizer: ...").
SANITIZER_ERE='ERROR: (Address|Leak)Sanitizer|^[^ ]+:[0-9]+:[0-9]+: runtime error: |WARNING: ThreadSanitizer|SUMMARY: (Address|Leak|Thread|UndefinedBehavior)Sanitizer'
add_kernels() { # "6.1,7.3" or "6.1 7.3"
	local k
	for k in ${1//,/ }; do kernels+=("$k"); done
}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel)
		[ $# -ge 2 ] || { echo "run-tests.sh: --kernel needs a value" >&2; exit 2; }
		add_kernels "$2"
		shift
		;;
	--kernel=*) add_kernels "${1#*=}" ;;
	--agent)
		[ $# -ge 2 ] || { echo "run-tests.sh: --agent needs a value" >&2; exit 2; }
		case $2 in /*) agent=$2 ;; *) agent=$start_dir/$2 ;; esac
		[ -x "$agent" ] || { echo "run-tests.sh: --agent $2 is not an executable file" >&2; exit 2; }
		shift
		;;
	--matrix)
		add_kernels "$MATRIX_KERNELS"
		# shellcheck disable=SC2206 # word splitting is the point
		names+=($MATRIX_SCENARIOS)
		;;
	-h | --help)
		sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) names+=("$1") ;;
	esac
	shift
done
[ ${#kernels[@]} -eq 0 ] && [ -n "${RECLAIMD_VM_KERNEL:-}" ] && add_kernels "$RECLAIMD_VM_KERNEL"
# One pass with fetch-kernel.sh's default when no kernel is named ("" below).
[ ${#kernels[@]} -eq 0 ] && kernels=("")

scenarios=()
if [ ${#names[@]} -eq 0 ]; then
	scenarios=(tests/vm/scenarios/test-*.sh)
else
	for n in "${names[@]}"; do
		n=${n##*/}
		n=${n%.sh}
		if [ -f "tests/vm/scenarios/test-${n#test-}.sh" ]; then
			scenarios+=("tests/vm/scenarios/test-${n#test-}.sh")
		elif [ -f "tests/vm/scenarios/$n.sh" ]; then
			scenarios+=("tests/vm/scenarios/$n.sh")
		else
			echo "run-tests.sh: no scenario tests/vm/scenarios/test-${n#test-}.sh or $n.sh" >&2
			exit 2
		fi
	done
fi

# Fetch every kernel first: a kernel that cannot be had is one failure, not one per scenario.
kernel_ok=()
for k in "${kernels[@]}"; do
	if tests/vm/fetch-kernel.sh ${k:+--kernel "$k"} >"$out/fetch-kernel${k:+-$k}.log" 2>&1; then
		kernel_ok+=(1)
	else
		kernel_ok+=(0)
	fi
done

summaries=()
for i in "${!kernels[@]}"; do
	k=${kernels[$i]}
	label=${k:-$(sed -n 's/^series=//p' tests/vm/.cache/kernel/current/STAMP 2>/dev/null)}
	label=${label:-default}
	agent_tag=
	if [ -n "$agent" ]; then
		agent_tag=$(basename "$(dirname "$(realpath "$agent")")")
		label="$label $agent_tag"
	fi
	kp=0 kf=0 ks=0
	kstart_s=$(date +%s)
	if [ "${kernel_ok[$i]}" -eq 0 ]; then
		echo "FAIL kernel $label: fetch-kernel.sh failed (see $out/fetch-kernel${k:+-$k}.log)"
		kf=1
	fi
	for scenario in "${scenarios[@]}"; do
		[ "${kernel_ok[$i]}" -eq 1 ] || break
		name=$(basename "$scenario" .sh)
		odir=$out/${agent_tag:+agent-$agent_tag/}${k:+kernel-$k/}$name
		mkdir -p "$(dirname "$odir")"
		# shellcheck disable=SC2207 # word splitting is the point
		vm_opts=($(head -n 30 "$scenario" | sed -n 's/^# vm-options:[[:space:]]*//p' | head -n 1))
		prepare=$(head -n 30 "$scenario" | sed -n 's/^# vm-prepare:[[:space:]]*//p' | head -n 1)
		echo "== $name on $label${vm_opts[*]:+ (${vm_opts[*]})}"
		if [ -n "$prepare" ] && ! bash -c "$prepare" >"$odir.prepare.log" 2>&1; then
			echo "FAIL $name on $label: '$prepare' failed (see $odir.prepare.log)"
			kf=$((kf + 1))
			continue
		fi
		start_s=$(date +%s)
		run_ok=1
		tests/vm/run.sh ${k:+--kernel "$k"} ${agent:+--agent "$agent"} "${files[@]}" --timeout 600 "${vm_opts[@]}" \
			"$scenario" "$odir" >"$odir.run.log" 2>&1 || run_ok=0
		# One known hazard of the emulator, not of the kernel or the agent: qemu's multi-threaded
		# TCG can let a vCPU run a stale translation of kernel text that another vCPU is
		# patching (a static key flipped through text_poke_bp's int3, e.g. when the first memcg
		# comes online), and the kernel dies on an int3 it did not place ("Oops: int3", seen on
		# 7.3 in the idle task before the scenario ended). Such a run is run once more, said.
		if [ "$run_ok" -eq 0 ] && [ ! -f "$odir/scenario.rc" ] &&
			grep -q 'Oops: int3' "$odir/console.log" 2>/dev/null; then
			echo "RETRY $name on $label: the emulated kernel died on a stray int3 ($(grep -m1 'RIP: ' "$odir/console.log" | sed 's/^\[[^]]*\] *//')); once more"
			mv "$odir/console.log" "$odir.int3-console.log"
			retried=$((retried + 1))
			run_ok=1
			tests/vm/run.sh ${k:+--kernel "$k"} ${agent:+--agent "$agent"} "${files[@]}" --timeout 600 "${vm_opts[@]}" \
				"$scenario" "$odir" >"$odir.run.log" 2>&1 || run_ok=0
		fi
		# Sanitizer reports (an agent built with SAN=asan or SAN=tsan writes them to its stderr,
		# which the scenario keeps in its agent log; the same report may also be in the scenario's
		# log and the console): one failure per scenario, naming the first file and line.
		san_file=$(grep -l -r -E "$SANITIZER_ERE" "$odir" --include='*.log' --include='*.txt' 2>/dev/null | head -n 1)
		if [ -n "$san_file" ]; then
			echo "FAIL $name on $label: sanitizer report in ${san_file#"$odir"/}: $(grep -m1 -E "$SANITIZER_ERE" "$san_file")"
			kf=$((kf + 1))
		fi
		if [ "$run_ok" -eq 0 ]; then
			echo "FAIL $name on $label: the VM run did not complete (see $odir.run.log, $odir/console.log)"
			kf=$((kf + 1))
			continue
		fi
		if [ ! -s "$odir/results.txt" ]; then
			echo "FAIL $name on $label: no results (see $odir/scenario.log)"
			kf=$((kf + 1))
			continue
		fi
		sed "s/^/  [$label] /" "$odir/results.txt"
		uname_r=$(sed -n 's/^kernel=//p' "$odir/vm-info.txt" 2>/dev/null)
		echo "  ($name on $label${uname_r:+, $uname_r}: $(($(date +%s) - start_s)) s)"
		p=$(grep -c '^PASS ' "$odir/results.txt" || true)
		f=$(grep -c '^FAIL ' "$odir/results.txt" || true)
		s=$(grep -c '^SKIP ' "$odir/results.txt" || true)
		kp=$((kp + p)); kf=$((kf + f)); ks=$((ks + s))
		# Results of a scenario that was killed or stopped by an error are incomplete: the checks it
		# did not reach must not disappear from the count.
		if [ -f "$odir/scenario.timeout" ]; then
			echo "FAIL $name on $label: the scenario timed out (see $odir/scenario.log)"
			kf=$((kf + 1))
		elif [ "$(cat "$odir/scenario.rc" 2>/dev/null)" != 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL $name on $label: the scenario exited $(cat "$odir/scenario.rc" 2>/dev/null || echo '?') (see $odir/scenario.log)"
			kf=$((kf + 1))
		fi
	done
	passed=$((passed + kp)); failed=$((failed + kf)); skipped=$((skipped + ks))
	summaries+=("vm [$label]: $kp passed, $kf failed, $ks skipped ($(($(date +%s) - kstart_s)) s)")
done
if [ ${#kernels[@]} -gt 1 ]; then
	printf '%s\n' "${summaries[@]}"
fi
[ "$retried" -gt 0 ] && echo "vm: $retried VM runs retried after a stray int3 in the emulated kernel"
echo "vm: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
