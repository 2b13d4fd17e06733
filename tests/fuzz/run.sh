#!/usr/bin/env bash
# Runs the libFuzzer targets given as arguments (build/fuzz/fuzz_<name>, built by `make fuzz`),
# one after the other, each for FUZZ_SECONDS seconds (default 10) or, when FUZZ_RUNS is set, for
# that many inputs; then prints a table (target, executions, exec/s, corpus, result) and writes
# it to FUZZ_SUMMARY (default build/fuzz/summary.txt).
#
# Corpus: FUZZ_CORPUS/<name>/ (default tests/fuzz/corpus/, git-ignored and kept by make clean),
# seeded before each run from the recorded kernel files in tests/fixtures/ (and tests/vm/configs/,
# config/ for the loader) and from the hand-written inputs in tests/fuzz/seeds/<name>/, as
# seed-<path> files; libFuzzer adds the inputs that reach new code under their SHA-1 names.
# A crash, a leak, undefined behaviour, a failed FUZZ_CHECK, a timeout (FUZZ_TIMEOUT seconds on
# one input, default 10) or running out of memory fails the target: its log is build/fuzz/logs/
# <name>.log, the input build/fuzz/artifacts/<name>-crash-<sha1> (or leak-, timeout-, oom-);
# rerun it with build/fuzz/fuzz_<name> <that file>. Exit status: 0 when every target passed.
set -u
cd "$(dirname "$0")/../.." || exit 2

seconds=${FUZZ_SECONDS:-10}
runs=${FUZZ_RUNS:-}
timeout=${FUZZ_TIMEOUT:-10}
corpus_root=${FUZZ_CORPUS:-tests/fuzz/corpus}
summary=${FUZZ_SUMMARY:-build/fuzz/summary.txt}
logs=build/fuzz/logs
artifacts=build/fuzz/artifacts
fx=tests/fixtures

[ $# -gt 0 ] || { echo "usage: $0 build/fuzz/fuzz_<name>..." >&2; exit 2; }
mkdir -p "$logs" "$artifacts" "$(dirname "$summary")"

# The fixture files that seed each target: every recorded file of the kind it parses.
fixture_seeds() {
	case $1 in
	psi) find $fx \( -path '*/proc/pressure/*' -o -name memory.pressure -o -name io.pressure \
		-o -name cpu.pressure \) -type f ;;
	memory_stat) find $fx -name memory.stat ;;
	numa_stat) find $fx -name memory.numa_stat ;;
	memory_events) find $fx \( -name 'memory.events*' -o -name memory.swap.events \) ;;
	u64_or_max) find $fx \( -name memory.current -o -name memory.min -o -name memory.low \
		-o -name memory.high -o -name memory.max -o -name memory.peak -o -name 'memory.swap.*' \
		-o -name 'memory.zswap.*' -o -name disksize \) -type f ;;
	meminfo) find $fx -path '*/proc/meminfo' ;;
	vmstat) find $fx \( -path '*/proc/vmstat' -o -path '*/node/node*/vmstat' \) ;;
	zoneinfo) find $fx -name zoneinfo ;;
	proc_stat) find $fx -path '*/proc/stat' ;;
	swaps) find $fx -path '*/proc/swaps' ;;
	zswap) find $fx \( -path '*/debug/zswap/*' -o -path '*/zswap/parameters/*' \
		-o -path '*/proc/sys/vm/*' -o -name memory.zswap.writeback \) -type f ;;
	zram) find $fx -path '*/block/zram*/*' -type f ;;
	lru_gen) find $fx -path '*/debug/lru_gen' ;;
	cpulist) find $fx \( -path '*/system/node/online' -o -path '*/system/node/possible' \
		-o -path '*/system/cpu/online' -o -name cpulist -o -name nodelist -o -name 'cpuset.cpus*' \
		-o -name 'cpuset.mems*' -o -name demotion_enabled \) -type f ;;
	node_meminfo) find $fx -path '*/node/node*/meminfo' ;;
	config) find $fx/config tests/vm/configs config -maxdepth 1 -name '*.json' ;;
	esac | LC_ALL=C sort
}

# Seeds corpus directory $2 for target $1.
seed() {
	local t=$1 dir=$2 f online node
	while IFS= read -r f; do
		cp -f "$f" "$dir/seed-$(printf '%s' "${f#tests/}" | tr '/' '_')"
	done < <(fixture_seeds "$t")
	if [ -d "tests/fuzz/seeds/$t" ]; then
		for f in "tests/fuzz/seeds/$t"/*; do
			cp -f "$f" "$dir/seed-fuzz_$(basename "$f")"
		done
	fi
	# fuzz_distance's input is node/online followed by one node<N>/distance of the same tree.
	if [ "$t" = distance ]; then
		while IFS= read -r online; do
			for node in "$(dirname "$online")"/node*/distance; do
				[ -f "$node" ] || continue
				cat "$online" "$node" >"$dir/seed-$(printf '%s' "${node#tests/}" | tr '/' '_')"
			done
		done < <(find $fx -path '*/system/node/online' | LC_ALL=C sort)
	fi
}

# What the log of a failed run says went wrong.
failure_kind() {
	local log=$1 kind
	if grep -q 'ERROR: LeakSanitizer' "$log"; then echo leak
	elif grep -q 'runtime error:' "$log"; then echo "UB: $(grep -m1 -o 'runtime error: [^,]*' "$log" | cut -c16-60)"
	elif kind=$(grep -m1 -o 'ERROR: AddressSanitizer: [a-z-]*' "$log"); then echo "ASan: ${kind##* }"
	elif grep -q 'fuzz check failed' "$log"; then echo "check: $(grep -m1 -o 'fuzz_[a-z_0-9]*\.c:[0-9]*' "$log")"
	elif grep -q 'ERROR: libFuzzer: timeout' "$log"; then echo timeout
	elif grep -q 'out-of-memory' "$log"; then echo out-of-memory
	elif grep -q 'deadly signal' "$log"; then echo crash
	else echo "exit status $2"
	fi
}

stat_of() {
	sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -n 1
}

if [ -n "$runs" ]; then limit=(-runs="$runs"); how="$runs inputs each"
else limit=(-max_total_time="$seconds"); how="$seconds s each"; fi

export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

TIMEFORMAT='%R %U %S'
table=$(mktemp)
trap 'rm -f "$table"' EXIT
failed=0 total_execs=0 start=$SECONDS
printf '%-15s %12s %9s %11s %8s %8s  %s\n' target executions exec/s "exec/CPU-s" corpus corpus \
	result >"$table"
printf '%-15s %12s %9s %11s %8s %8s  %s\n' "" "" "" "" files KiB "" >>"$table"
for bin in "$@"; do
	t=$(basename "$bin"); t=${t#fuzz_}
	dir=$corpus_root/$t log=$logs/$t.log
	mkdir -p "$dir"
	seed "$t" "$dir"
	echo "fuzz: $t ($how)" >&2
	# The CPU time it used, besides the wall clock: on a busy machine exec/s says how much CPU
	# the target got, executions per CPU second what a campaign on an idle core would do.
	{ time "$bin" "${limit[@]}" -timeout="$timeout" -print_final_stats=1 \
		-artifact_prefix="$artifacts/$t-" "$dir" >"$log" 2>&1; } 2>"$logs/$t.cpu"
	rc=$?
	read -r wall user sys <"$logs/$t.cpu"
	execs=$(stat_of number_of_executed_units "$log")
	if [ -z "$execs" ]; then # no final stats: the last status line "#N ..."
		execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	fi
	execs=${execs:-0}
	rate=$(awk -v e="$execs" -v t="$wall" 'BEGIN { printf "%d", (t > 0) ? e / t : 0 }')
	per_cpu=$(awk -v e="$execs" -v c="$user" -v s="$sys" \
		'BEGIN { printf "%d", (c + s > 0) ? e / (c + s) : 0 }')
	files=$(find "$dir" -type f | wc -l)
	kib=$(find "$dir" -type f -printf '%s\n' | awk '{ b += $1 } END { printf "%d", (b + 1023) / 1024 }')
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		result="FAIL ($(failure_kind "$log" "$rc")) $(sed -n 's/.*Test unit written to //p' "$log" | head -n 1)"
		failed=$((failed + 1))
		tail -n 40 "$log" >&2
	fi
	total_execs=$((total_execs + execs))
	printf '%-15s %12s %9s %11s %8s %8s  %s\n' "$t" "$execs" "$rate" "$per_cpu" "$files" "$kib" \
		"$result" >>"$table"
done
printf '%-15s %12s %9s %11s %8s %8s  %s\n' total "$total_execs" "" "" "" "" \
	"$(($# - failed)) passed, $failed failed, $((SECONDS - start)) s" >>"$table"

{
	echo "# make fuzz, $(date -u +%Y-%m-%dT%H:%MZ), $how, $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(${FUZZ_CC:-clang} --version | head -n 1)"
	cat "$table"
} >"$summary"
cat "$table"
echo "fuzz: table in $summary, logs in $logs/, corpus in $corpus_root/" >&2
[ "$failed" -eq 0 ]
