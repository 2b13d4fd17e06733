#!/bin/sh
# soak.sh - 30 minutes of workloads, cgroup churn, reloads and swap changes around an agent built
# with ASan+UBSan, in the VM on a real kernel; prints what a long run shows and short tests miss.
#
# Usage: bench/soak.sh [--minutes N] [run.sh options...]
#        bench/soak.sh --report
#   --minutes N   how long the guest runs the load (default 30; SOAK_MINUTES too)
#   --report      no build and no run: the table and plot again from what the last run left
#   other options go to tests/vm/run.sh (e.g. --kernel 7.3), in any order with these
# Builds `make reclaimd reclaimctl SAN=asan SAN_STATIC=1` (build/gcc-asan-static/, the sanitizer
# runtime linked in so the busybox guest needs nothing), boots tests/vm/run.sh with
# bench/soak-vm.sh (what runs there is described at its top) and reads what it leaves in
# bench/out/soak/: soak-samples.tsv (a sample about every 2 s), soak-quiet.txt (the two quiet
# points), agent.log, reclaimctl.err, soak-exit.txt.
#
# The table (bench/out/soak/soak-table.txt), each line with the goal it is held to:
#   crashes            the agent died (restarted by the guest, counted), sanitizer reports in its
#                      log and in reclaimctl's stderr (ASan, LSan at exit, UBSan), its exit
#                      status after SIGTERM: goal 0, 0, 0 (a missing agent log is not met)
#   fds                open fds at the two quiet points (after the warm-up and at the end: only
#                      the four workloads managed, no job in flight; soak-vm.sh's header), and
#                      the cgroups known there: goal both at the end not above after the
#                      warm-up. Runs under 10 minutes are not judged (not met): their warm-up
#                      has not covered every path once.
#   RSS                VmRSS (KiB) after the first minute, at half time, at the end, and the
#                      growth per 10 minutes over the second half (least squares): goal < 256 KiB
#   log lines/min      lines of the agent's log per whole minute after the first (each minute
#                      from the last sample before its start to the last before its end): mean
#                      and max
#   tick lateness      how late each tick began (status tick.late_last_us, each tick once): p50,
#                      p99 and the largest any tick had (tick.late_max_us)
#   reclaimed          bytes the agent's jobs reclaimed (status totals.reclaimed_bytes)
# and soak.png: RSS, fds and tick lateness over time, one panel each. Exits 1 when a goal is not met
# or the run failed. Takes the run time plus about 3 minutes.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
out=$REPO/bench/out/soak
minutes=${SOAK_MINUTES:-30}
report_only=0
# --minutes and --report anywhere; every other argument goes to run.sh, in its order.
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	--minutes)
		[ "$n" -gt 0 ] || { echo "soak.sh: --minutes wants a number of minutes" >&2; exit 2; }
		minutes=$1
		shift
		n=$((n - 1))
		;;
	--report) report_only=1 ;;
	*) set -- "$@" "$a" ;;
	esac
done
case $minutes in '' | *[!0-9]*) echo "soak.sh: --minutes wants a whole number, not '$minutes'" >&2; exit 2 ;; esac
seconds=$((minutes * 60))
vm_rc=0
if [ "$report_only" = 0 ]; then
	mkdir -p "$out"
	rm -f "$out"/soak-* "$out"/agent.log "$out"/reclaimctl.err "$out"/results.txt

	echo "soak.sh: building the ASan+UBSan agent (build/gcc-asan-static/)" >&2
	make -C "$REPO" -s reclaimd reclaimctl SAN=asan SAN_STATIC=1 >&2 || exit 1
	agent=$REPO/build/gcc-asan-static/reclaimd

	echo "soak.sh: $minutes min in the VM (results in $out)" >&2
	# shellcheck disable=SC2086 # one word per option
	"$REPO/tests/vm/run.sh" --agent "$agent" --zram-size 256M --timeout $((seconds + 900)) \
		--env SOAK_SECONDS=$seconds "$@" "$HERE/soak-vm.sh" "$out" >&2
	vm_rc=$?
fi
if [ ! -s "$out/soak-samples.tsv" ]; then
	echo "soak.sh: no samples (VM exit $vm_rc); see $out/console.log and $out/scenario.log" >&2
	exit 1
fi

if [ -f "$out/agent.log" ]; then
	san=$(cat "$out/agent.log" "$out/reclaimctl.err" 2>/dev/null |
		grep -c -E 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:')
else
	san="no agent log"
fi
quiet1=$(grep '^after-warm-up ' "$out/soak-quiet.txt" 2>/dev/null | head -1)
quiet2=$(grep '^at-end ' "$out/soak-quiet.txt" 2>/dev/null | head -1)
exit_line=$(head -1 "$out/soak-exit.txt" 2>/dev/null)
exit_rc=$(echo "$exit_line" | sed -n 's/^exit status \([0-9]*\).*/\1/p')
load_s=$(sed -n 's/^load seconds \([0-9]*\)$/\1/p' "$out/soak-exit.txt" 2>/dev/null | head -1)
kernel=$(sed -n "s/^kernel=linux-[a-z]*-//p" "$out/run-info.txt" 2>/dev/null | head -1)

awk -v san="${san:-0}" -v q1="$quiet1" -v q2="$quiet2" -v exit_rc="${exit_rc:-none}" -v load_s="${load_s:-0}" \
	-v extra="$(sed '1d; /^load seconds /d' "$out/soak-exit.txt" 2>/dev/null | tr '\n' ';')" \
	-v kernel="${kernel:-?}" -v png="$out" '
function pct(a, n, p,    i) { if (n < 1) return "-"; i = int(n * p / 100 + 0.999999); if (i < 1) i = 1; if (i > n) i = n; return a[i] }
function isort(a, n,    i, j, v) { for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v } }
/^#/ { next }
NF < 13 { short++; next }
{
	t = $1 + 0; n++
	T[n] = t; FD[n] = $3 + 0; RSS[n] = $4 + 0; LL[n] = $8 + 0; if ($10 + 0 > crashes) crashes = $10 + 0
	if ($5 != "-" && $5 != lasttick) { lasttick = $5; if ($6 != "-") late[++nl] = $6 + 0 }
	if ($7 != "-") latemax = $7 + 0
	if ($9 != "-") recl = $9 + 0
	print "RSS\t" t / 60 "\t" ($4 / 1024) > (png "/soak-rss.dat")
	print "open fds\t" t / 60 "\t" ($3 + 0) > (png "/soak-fds.dat")
	if ($6 != "-") print "tick began late (ms)\t" t / 60 "\t" ($6 / 1000) > (png "/soak-late.dat")
}
END {
	crash_ok = (crashes == 0 && san == 0 && exit_rc == "0")
	crashm = sprintf("%d died, %s sanitizer reports, exit status %s after SIGTERM", crashes, san, exit_rc)
	if (n < 2) {
		printf "soak: %d samples (%s)\n%-16s %-60s %s\n", n, extra, "crashes", crashm, (crash_ok ? "0, 0, 0: met" : "0, 0, 0: NOT met")
		print "fds, RSS         not judged: no samples"
		exit 1
	}
	# after the first minute
	for (i = 1; i <= n && T[i] < 60; i++) ; first = (i <= n) ? i : n
	half = first; for (i = first; i <= n && T[i] < T[n] / 2; i++) half = i
	# the quiet points: label t_s fds rss_kib managed known calm
	split(q1, A, " "); split(q2, B, " ")
	why = ""
	if (load_s + 0 < 600) why = sprintf("a %d s run (10 minutes at least are judged)", load_s)
	else if (A[3] !~ /^[0-9]+$/ || A[6] !~ /^[0-9]+$/) why = "no after-warm-up quiet point (\"" q1 "\")"
	else if (B[3] !~ /^[0-9]+$/ || B[6] !~ /^[0-9]+$/) why = "no at-end quiet point (\"" q2 "\")"
	else if (A[7] != "1" || B[7] != "1") why = "the quiet state was not reached (\"" q1 "\", \"" q2 "\")"
	else if (A[5] != "4" || B[5] != "4") why = "not the four workloads managed at a quiet point (" A[5] ", " B[5] ")"
	judged = (why == "")
	# RSS slope over the second half, least squares, KiB per 10 min
	sx = sy = sxx = sxy = m = 0
	for (i = half; i <= n; i++) { x = T[i]; y = RSS[i]; sx += x; sy += y; sxx += x * x; sxy += x * y; m++ }
	slope = (m * sxx - sx * sx) ? (m * sxy - sx * sy) / (m * sxx - sx * sx) * 600 : 0
	# log lines per whole minute after the first
	mins = 0; lmax = 0; ltot = 0
	for (k = 1; (k + 1) * 60 <= T[n]; k++) {
		a = b = -1
		for (i = 1; i <= n; i++) { if (T[i] < k * 60) a = LL[i]; if (T[i] < (k + 1) * 60) b = LL[i] }
		if (a < 0 || b < 0) continue
		d = b - a; mins++; ltot += d; if (d > lmax) lmax = d
	}
	isort(late, nl)
	fmin = fmax = FD[first]; for (i = first; i <= n; i++) { if (FD[i] < fmin) fmin = FD[i]; if (FD[i] > fmax) fmax = FD[i] }
	fd_ok = judged && B[3] + 0 <= A[3] + 0 && B[6] + 0 <= A[6] + 0
	rss_ok = (load_s + 0 >= 600 && slope < 256)
	printf "soak: %.1f min on Linux %s, %d samples%s, %d ticks seen (%s)\n", T[n] / 60, kernel, n, (short ? sprintf(" (%d short lines skipped)", short) : ""), nl, extra
	printf "%-16s %-60s %s\n", "what", "measured", "goal"
	printf "%-16s %-60s %s\n", "crashes", crashm, (crash_ok ? "0, 0, 0: met" : "0, 0, 0: NOT met")
	if (judged)
		fdm = sprintf("quiet (%s managed): %d fds, %d cgroups known at %.1f min; %d and %d at the end (%.1f min); %d to %d under load", A[5], A[3], A[6], A[2] / 60, B[3], B[6], B[2] / 60, fmin, fmax)
	else
		fdm = "not judged: " why
	printf "%-16s %-60s %s\n", "fds", fdm, (fd_ok ? "end <= after warm-up: met" : "end <= after warm-up: NOT met")
	printf "%-16s %-60s %s\n", "RSS (KiB)", sprintf("%d at 1 min, %d at half time, %d at the end; %+.0f per 10 min over the second half; quiet: %s, %s", RSS[first], RSS[half], RSS[n], slope, (A[4] != "" ? A[4] : "-"), (B[4] != "" ? B[4] : "-")), (rss_ok ? "< 256 per 10 min: met" : (load_s + 0 < 600 ? "< 256 per 10 min: not judged (under 10 minutes)" : "< 256 per 10 min: NOT met"))
	printf "%-16s %-60s %s\n", "log lines/min", sprintf("%.1f mean, %d max over %d minutes", mins ? ltot / mins : 0, lmax, mins), "(reported)"
	printf "%-16s %-60s %s\n", "tick late (ms)", (nl ? sprintf("p50 %.2f, p99 %.2f, max %.2f (late_max_us)", pct(late, nl, 50) / 1000, pct(late, nl, 99) / 1000, latemax / 1000) : "no tick seen"), "(reported)"
	printf "%-16s %-60s %s\n", "reclaimed", sprintf("%.1f MiB by the agent'"'"'s jobs", recl / 1048576), "(reported)"
	exit (crash_ok && fd_ok && rss_ok) ? 0 : 1
}' "$out/soak-samples.tsv" >"$out/soak-table.txt"
rc=$?
cat "$out/soak-table.txt"
"$HERE/plot.sh" -o "$out/soak.png" -t "reclaimd soak ($minutes min, ASan+UBSan agent)" \
	-x "minutes" -y "MiB" -p "agent RSS (VmRSS)" "$out/soak-rss.dat" \
	-y "fds" -p "agent open fds" "$out/soak-fds.dat" \
	-y "ms" -p "how late each tick began" "$out/soak-late.dat" 2>/dev/null >/dev/null &&
	echo "plot: $out/soak.png"
[ "$vm_rc" -eq 0 ] || { echo "soak.sh: the VM run exited $vm_rc" >&2; rc=1; }
exit "$rc"
