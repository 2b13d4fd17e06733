#!/bin/sh
# vm-options: --append psi=0 --timeout 300
# A kernel booted with psi=0 (docs/operating.md "Safety"): /proc/pressure and every cgroup's
# memory.pressure are gone, and reclaimd decides from memory pressure, so it must not reclaim blind.
#   psi-off-exit      the agent exits 3 within 10 s with one error naming /proc/pressure/memory
#                     and the cause;
#   psi-off-no-write  nothing was reclaimed from a managed cgroup meanwhile (pgsteal unchanged).
# The unit does not restart on exit 3 (RestartPreventExitStatus), so it does not loop either.
set -u
. "$VMTEST_LIB"

[ -x "$AGENT" ] || { fail psi-off-setup "no agent in the VM"; exit 0; }
if [ -e /proc/pressure/memory ]; then
	fail psi-off-setup "/proc/pressure/memory exists although the kernel was booted with psi=0 ($(cat /proc/cmdline))"
	exit 0
fi
cg=$(cg_create test)
echo "+memory" >"$cg/cgroup.subtree_control"
mkdir -p "$cg/work"
cg_run "$cg/work" memhog --anon 128M --hot-pct 5 --rate 1000 --duration 0 --report-interval 30 \
	--ready-file /tmp/work.ready >"$RESULTS/memhog.log" 2>&1
work_pid=$!
wait_for_file /tmp/work.ready 60 || fail psi-off-setup "memhog did not start"
steal0=$(memstat "$cg/work" pgsteal)
t0=$(uptime_s)
agent_start /etc/reclaimd/test.json "$RESULTS/agent.log"
n=0
while kill -0 "$AGENT_PID" 2>/dev/null && [ $n -lt 300 ]; do
	n=$((n + 1))
	sleep 0.1
done
if kill -0 "$AGENT_PID" 2>/dev/null; then
	rc=running
	agent_stop >/dev/null
else
	wait "$AGENT_PID" && rc=0 || rc=$?
fi
secs=$(fsub "$(uptime_s)" "$t0")
sleep 4 # what a running agent would have reclaimed in two ticks
steal1=$(memstat "$cg/work" pgsteal)
errors=$(grep -c 'reclaimd\[error\]' "$RESULTS/agent.log" || true)
msg=$(grep -m1 'pressure/memory does not exist' "$RESULTS/agent.log" | sed 's/.*reclaimd\[error\]: //; s/ |.*//')
echo "agent: rc=$rc after $secs s; $errors error lines: $msg"
if [ "$rc" = 3 ] && [ "$errors" -eq 1 ] && echo "$msg" | grep -q '^/proc/pressure/memory does not exist: .*psi=0' &&
	awk -v s="$secs" 'BEGIN { exit !(s < 10) }'; then
	pass psi-off-exit "exit 3 after $secs s: $msg"
else
	fail psi-off-exit "rc=$rc after $secs s, $errors error lines: $(tail -3 "$RESULTS/agent.log" | tr '\n' ' ')"
fi
if [ -n "$steal0" ] && [ "$steal0" = "$steal1" ]; then
	pass psi-off-no-write "pgsteal $steal0 -> $steal1"
else
	fail psi-off-no-write "pgsteal $steal0 -> $steal1: something was reclaimed"
fi
kill "$work_pid" 2>/dev/null
wait "$work_pid" 2>/dev/null
