#!/bin/sh
# vm-prepare: make -s deb && tests/vm/build-rootfs.sh
# vm-options: --systemd --zram-size 0 --no-disk-swap --data-size 256M --timeout 420 --file build/reclaimd.deb:/root/reclaimd.deb
# VM test of reclaimd under a real systemd (PID 1 of a Debian bookworm rootfs, run.sh --systemd),
# installed from its package (make deb), with the hardened unit as shipped plus one drop-in.
#
#   deb-install          dpkg -i of the .deb (its dependencies are in the rootfs) succeeds, and
#   deb-enables-nothing  the unit is left disabled and inactive (docs/operating.md "Installing")
#   notify-active        systemctl start returns once READY=1 came (Type=notify): active/running
#   status-text          systemctl status shows the agent's STATUS= line
#   security-exposure    systemd-analyze security: overall exposure <= 3.9 ("OK")
#   hardened-swap-tiers  a zram device and a swap file swapped on with their priorities
#                        (swapon(2) under the capability set, the system-call filter and
#                        ProtectSystem=strict with the drop-in's ReadWritePaths=/data)
#   hardened-zswap-params  max_pool_percent written to /sys/module/zswap/parameters
#   hardened-lru-gen     debugfs lru_gen opened, and a reclaim evicted through it
#   hardened-zram-writeback  pages written back to zram0's backing device
#   hardened-no-permission-errors  no EACCES/EPERM/EROFS in the agent's journal
#   journal-fields       journalctl -u reclaimd MESSAGE_ID=<reclaim done> CGROUP=test.slice/hog.service
#                        returns entries with their fields
#   reload-good          systemctl reload with a good config applies it (the rule count changes)
#   reload-bad-kept      systemctl reload with a syntax error keeps the agent and its config; the
#                        journal names file, line and column
#   reclaimctl-status    reclaimctl status works as root, is refused for an unprivileged user
#   reclaimctl-commands  cgroups, explain, top -n 1, reload and --json status exit 0
#   metrics-textfile     metrics.textfile set by a reload: the file appears with reclaimd_ samples
#   watchdog-restart     a SIGSTOPped agent is killed by the watchdog and restarted
#   swap-device-after-restart  the restarted agent finds zram0 as configured
#   swap-file-after-restart    ... and the swap file
#   hardened-node-reclaim  (Linux 6.17+, SKIP before) with a headroom goal above the node's free
#                        memory and no managed cgroup, the agent writes nodeN/reclaim under the
#                        unit (ReadWritePaths=-/sys/devices/system/node): its headroom line says
#                        "asked of node<N>/reclaim", status counts writes done, and no
#                        EROFS/EACCES/EPERM line follows
set -u
. "$VMTEST_LIB"

UNIT=reclaimd.service
CONF=/etc/reclaimd/reclaimd.json
CG=test.slice/hog.service
MSGID_RECLAIM_DONE=0c4e2a58d2b94f0c9a6b0b1f4d2e7a08
# The test's drop-in: a short watchdog so the test is quick, and the swap file's directory made
# writable (the drop-in for swap files in docs/operating.md).
WATCHDOG_S=8
ABORT_S=3
RESTART_S=1
DISK=${SWAP_DEV:-/dev/vda}

jlog() { journalctl -u "$UNIT" --no-pager -o cat "$@" 2>/dev/null; }
# jwait SECONDS PATTERN: waits until the unit's journal has a line matching the extended
# regular expression PATTERN; prints it.
jwait() {
	_n=$(($1 * 2))
	while [ "$_n" -gt 0 ]; do
		_l=$(jlog | grep -E -m1 -- "$2") && { echo "$_l"; return 0; }
		sleep 0.5
		_n=$((_n - 1))
	done
	return 1
}
mainpid() { systemctl show -p MainPID --value "$UNIT"; }
now_s() { cut -d' ' -f1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

config() { # RULES_JSON [EXTRA_TOP_LEVEL_JSON]
	cat <<EOF
{
  "interval": 2,
  "log_level": "debug",
  "headroom": false,
  "mglru_aging": true,
  ${2:+$2,}
  "defaults": { "min_bytes": "16M", "cold_age": 4 },
  "swap": {
    "devices": [
      { "path": "/dev/zram0", "priority": 100, "kind": "zram" },
      { "path": "/data/swapfile", "priority": 10, "kind": "file" }
    ],
    "zram_writeback_at_pct": 5,
    "zram_idle_age": 0
  },
  "zswap": { "enabled": false, "max_pool_percent": 15 },
  "rules": [ $1 ]
}
EOF
}

# --- 1. the package ---------------------------------------------------------------------
if dpkg -i /root/reclaimd.deb >"$RESULTS/dpkg.log" 2>&1; then
	pass deb-install "$(dpkg-query -W -f='${Package} ${Version}' reclaimd), $(dpkg -L reclaimd | grep -c .) paths"
else
	fail deb-install "dpkg -i failed: $(tail -n 3 "$RESULTS/dpkg.log" | tr '\n' ' ')"
fi
cat "$RESULTS/dpkg.log"
enabled=$(systemctl is-enabled "$UNIT" 2>&1)
active=$(systemctl is-active "$UNIT" 2>&1)
if [ "$enabled" = disabled ] && [ "$active" = inactive ]; then
	pass deb-enables-nothing "is-enabled: $enabled, is-active: $active"
else
	fail deb-enables-nothing "is-enabled: $enabled, is-active: $active (wanted disabled, inactive)"
fi

# --- the host: zram0 with a backing device, a swap file, a workload ----------------------
echo "$DISK" >/sys/block/zram0/backing_dev || echo "cannot set zram0's backing device"
echo lz4 >/sys/block/zram0/comp_algorithm
echo 128M >/sys/block/zram0/disksize
mkswap /dev/zram0 >/dev/null
dd if=/dev/zero of=/data/swapfile bs=1M count=64 status=none
chmod 0600 /data/swapfile
mkswap /data/swapfile >/dev/null

config '{ "match": "test.slice/*.service" }' >"$CONF"
mkdir -p /etc/systemd/system/reclaimd.service.d
cat >/etc/systemd/system/reclaimd.service.d/test.conf <<EOF
[Service]
WatchdogSec=${WATCHDOG_S}s
TimeoutAbortSec=${ABORT_S}s
RestartSec=${RESTART_S}s
ReadWritePaths=/data
EOF
systemctl daemon-reload

systemd-run --quiet --unit=hog --slice=test -p MemoryAccounting=yes \
	memhog --anon 160M --hot-pct 5 --rate 1000 --tlb-flush-ms 50 --report-interval 30 \
	--ready-file /tmp/hog.ready
wait_for_file /tmp/hog.ready 120 || echo "memhog did not get ready"

# --- 2. Type=notify, STATUS= ------------------------------------------------------------
t0=$(now_s)
if systemctl start "$UNIT"; then
	st=$(systemctl show -p ActiveState,SubState,Type --value "$UNIT" | tr '\n' ' ')
	if [ "$(systemctl is-active "$UNIT")" = active ]; then
		pass notify-active "systemctl start returned in $(elapsed "$t0") s: $st"
	else
		fail notify-active "after start: $st"
	fi
else
	fail notify-active "systemctl start failed: $(systemctl status --no-pager "$UNIT" | tail -n 5 | tr '\n' ' ')"
fi
status=
i=0
while [ $i -lt 40 ]; do
	status=$(systemctl status --no-pager "$UNIT" 2>&1 | grep -m1 'Status: ')
	[ -n "$status" ] && break
	sleep 0.5
	i=$((i + 1))
done
systemctl status --no-pager "$UNIT" >"$RESULTS/systemctl-status.txt" 2>&1
cat "$RESULTS/systemctl-status.txt"
if [ -n "$status" ]; then
	pass status-text "$(echo "$status" | sed 's/^ *//')"
else
	fail status-text "no Status: line in systemctl status"
fi

# --- 3. systemd-analyze security ------------------------------------------------------------
systemd-analyze security --no-pager "$UNIT" >"$RESULTS/security.txt" 2>&1
cat "$RESULTS/security.txt"
exposure=$(sed -n 's/.*Overall exposure level for reclaimd.service: \([0-9.]*\) \(.*\)/\1 \2/p' "$RESULTS/security.txt")
if [ -n "$exposure" ] && awk -v e="${exposure%% *}" 'BEGIN { exit !(e <= 3.9) }'; then
	pass security-exposure "overall exposure $exposure"
else
	fail security-exposure "overall exposure '${exposure:-none}', wanted <= 3.9"
fi

# --- 4. every feature under the hardening ---------------------------------------------------
if jwait 30 '/data/swapfile: (activated|active) at priority 10' >/dev/null &&
	jwait 5 '/dev/zram0: (activated|active) at priority 100' >/dev/null &&
	[ "$(swap_prio /dev/zram0)" = 100 ] && [ "$(swap_prio /data/swapfile)" = 10 ]; then
	pass hardened-swap-tiers "zram0 at $(swap_prio /dev/zram0), /data/swapfile at $(swap_prio /data/swapfile)"
else
	fail hardened-swap-tiers "$(jlog | grep -E 'swap ' | tail -n 3 | tr '\n' ' ')"
fi
cat /proc/swaps
mpp=$(cat /sys/module/zswap/parameters/max_pool_percent)
if [ "$mpp" = 15 ] && jwait 5 'zswap: max_pool_percent [0-9]+ -> 15' >/dev/null; then
	pass hardened-zswap-params "max_pool_percent $mpp ($(jlog | grep -m1 'zswap: max_pool_percent'))"
else
	fail hardened-zswap-params "max_pool_percent is $mpp: $(jlog | grep 'zswap' | tail -n 2 | tr '\n' ' ')"
fi
if need_feature hardened-lru-gen lru-gen lru-gen-debugfs; then
	evict=$(jwait 120 "$CG: reclaim done on node [0-9]+: .* reclaimed [1-9][0-9]* KiB.*evicted through lru_gen")
	if jlog | grep -qE 'MGLRU aging (on|back on): each managed memcg is aged through' && [ -n "$evict" ]; then
		pass hardened-lru-gen "$evict"
	else
		fail hardened-lru-gen "$(jlog | grep -E 'MGLRU|lru_gen' | tail -n 2 | tr '\n' ' ')"
	fi
fi
wb=$(jwait 90 'zram0: wrote back [0-9.]*[1-9][0-9.]* MiB')
bd=$(awk '{ print $1 * 4 }' /sys/block/zram0/bd_stat)
if [ -n "$wb" ] && [ "$bd" -gt 0 ]; then
	pass hardened-zram-writeback "bd_count $bd KiB: $wb"
else
	fail hardened-zram-writeback "bd_count ${bd:-?} KiB; $(jlog | grep 'zram0' | tail -n 2 | tr '\n' ' ')"
fi
denied=$(jlog | grep -iE 'permission denied|operation not permitted|read-only file system')
if [ -z "$denied" ]; then
	pass hardened-no-permission-errors "no EACCES/EPERM/EROFS in $(jlog | grep -c .) journal lines"
else
	fail hardened-no-permission-errors "$(echo "$denied" | head -n 3 | tr '\n' ' ')"
fi

# --- 5. structured journal entries ----------------------------------------------------------
journalctl -u "$UNIT" --no-pager -o verbose MESSAGE_ID=$MSGID_RECLAIM_DONE CGROUP=$CG >"$RESULTS/journal-reclaim-done.txt" 2>&1
n=$(grep -c '^ *MESSAGE_ID=' "$RESULTS/journal-reclaim-done.txt")
sed -n '1,25p' "$RESULTS/journal-reclaim-done.txt"
missing=
for f in CGROUP POLICY NODE RECLAIM_REQUESTED_BYTES RECLAIMED_BYTES REASON; do
	grep -q "^ *$f=" "$RESULTS/journal-reclaim-done.txt" || missing="$missing $f"
done
if [ "$n" -gt 0 ] && [ -z "$missing" ] && ! grep '^ *CGROUP=' "$RESULTS/journal-reclaim-done.txt" | grep -qv "CGROUP=$CG\$"; then
	pass journal-fields "$n entries for CGROUP=$CG, largest RECLAIMED_BYTES=$(sed -n 's/^ *RECLAIMED_BYTES=//p' "$RESULTS/journal-reclaim-done.txt" | sort -n | tail -n 1)"
else
	fail journal-fields "$n entries; missing fields:${missing:- none}"
fi

# --- 6. reload: a good config, then a bad one ----------------------------------------------
pid=$(mainpid)
config '{ "match": "other.slice/*.service", "policy": "none" }, { "match": "test.slice/*.service" }' >"$CONF"
systemctl reload "$UNIT"
if line=$(jwait 30 "configuration reloaded from $CONF \\(2 rules\\)") && [ "$(mainpid)" = "$pid" ]; then
	pass reload-good "$line (PID $pid kept)"
else
	fail reload-good "no 'configuration reloaded ... (2 rules)' line; PID $pid -> $(mainpid)"
fi
cp "$CONF" /tmp/good.json
printf '{\n  "interval": 2,\n  "rules": [ { "match": "test.slice/*.service" ]\n}\n' >"$CONF"
systemctl reload "$UNIT"
line=$(jwait 30 "configuration not reloaded, keeping the previous one: $CONF:[0-9]+:[0-9]+:")
if [ -n "$line" ] && [ "$(systemctl is-active "$UNIT")" = active ] && [ "$(mainpid)" = "$pid" ] &&
	[ "$(jlog | grep -c 'configuration reloaded from')" = 1 ]; then
	pass reload-bad-kept "$line (still active, PID $pid)"
else
	fail reload-bad-kept "line '${line:-none}', $(systemctl is-active "$UNIT"), PID $pid -> $(mainpid)"
fi
cp /tmp/good.json "$CONF"

# --- 7. reclaimctl and the textfile metrics --------------------------------------------
if command -v reclaimctl >/dev/null; then
	out=$(reclaimctl status 2>&1)
	rc=$?
	uout=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$(command -v reclaimctl)" status 2>&1)
	urc=$?
	echo "$out" >"$RESULTS/reclaimctl-status.txt"
	if [ "$rc" -eq 0 ] && [ "$urc" -ne 0 ]; then
		pass reclaimctl-status "root: exit 0 ($(echo "$out" | head -n 1)); nobody: exit $urc ($(echo "$uout" | head -n 1))"
	else
		fail reclaimctl-status "root: exit $rc ($(echo "$out" | head -n 1)); nobody: exit $urc ($(echo "$uout" | head -n 1))"
	fi
	# The other commands as an operator runs them, under the hardened unit; kept for the record.
	# A reload re-matches the rules at the next tick, and until then Cgroups lists none
	# (docs/operating.md "Status socket and reclaimctl"): the reloads above were less than an
	# interval ago.
	n=0
	until reclaimctl cgroups 2>/dev/null | grep -qF "$CG" || [ $n -ge 20 ]; do
		n=$((n + 1)); sleep 0.5
	done
	bad=
	for c in "cgroups" "explain $CG" "top -n 1 -d 1" "reload" "--json status"; do
		# shellcheck disable=SC2086
		if ! reclaimctl $c >"$RESULTS/reclaimctl-${c%% *}.txt" 2>&1; then
			bad="$bad '$c' (exit $?: $(head -n 1 "$RESULTS/reclaimctl-${c%% *}.txt"))"
		fi
	done
	if [ -z "$bad" ] && grep -qF "$CG" "$RESULTS/reclaimctl-cgroups.txt"; then
		pass reclaimctl-commands "cgroups, explain, top, reload and --json exit 0; cgroups lists $CG"
	else
		fail reclaimctl-commands "failed:${bad:- none, but cgroups does not list $CG}"
	fi
else
	fail reclaimctl-status "no reclaimctl in the package"
fi
PROM=/run/reclaimd/reclaimd.prom
config '{ "match": "test.slice/*.service" }' "\"metrics\": { \"textfile\": \"$PROM\" }" >/tmp/metrics.json
if reclaimd --check-config -c /tmp/metrics.json >/tmp/metrics-check.txt 2>&1; then
	cp /tmp/metrics.json "$CONF"
	systemctl reload "$UNIT"
	if wait_for_file "$PROM" 30 && grep -q '^reclaimd_' "$PROM"; then
		pass metrics-textfile "$PROM: $(grep -c '^reclaimd_' "$PROM") samples"
	else
		fail metrics-textfile "no $PROM with reclaimd_ samples within 30 s"
	fi
	cp /tmp/good.json "$CONF"
	systemctl reload "$UNIT"
else
	fail metrics-textfile "--check-config refused metrics.textfile: $(head -n 1 /tmp/metrics-check.txt)"
fi

# --- 8. the watchdog --------------------------------------------------------------------
pid=$(mainpid)
t0=$(now_s)
kill -STOP "$pid"
newpid=$pid
i=0
limit=$((WATCHDOG_S + ABORT_S + RESTART_S + 30))
while [ $i -lt $((limit * 2)) ]; do
	newpid=$(mainpid)
	[ "$newpid" != "$pid" ] && [ "$newpid" != 0 ] && [ "$(systemctl is-active "$UNIT")" = active ] && break
	sleep 0.5
	i=$((i + 1))
done
took=$(elapsed "$t0")
# When the watchdog fired, from systemd's own line (seconds since boot, -o short-monotonic).
wd=$(journalctl --no-pager -o short-monotonic -u "$UNIT" | grep -m1 'Watchdog timeout')
wd_s=$(echo "$wd" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
fired=$(awk -v a="$t0" -v b="${wd_s:-0}" 'BEGIN { printf "%.1f", b - a }')
if [ -n "$wd" ] && [ "$newpid" != "$pid" ] &&
	awk -v f="$fired" -v w="$WATCHDOG_S" 'BEGIN { exit !(f <= w + 2) }'; then
	pass watchdog-restart "WatchdogSec=${WATCHDOG_S}s fired $fired s after SIGSTOP; PID $pid -> $newpid active after $took s (TimeoutAbortSec=${ABORT_S}s, RestartSec=${RESTART_S}s)"
else
	fail watchdog-restart "watchdog line '${wd:-none}' ($fired s); PID $pid -> $newpid after $took s"
fi
kill -CONT "$pid" 2>/dev/null

# The restarted agent must find the swap areas its predecessor swapped on. swapon(2) in the
# unit's private mount namespace records them through that namespace's mounts; once it is gone
# they are detached and /proc/swaps shows "/zram0" and "/swapfile" (docs/operating.md, "Swap devices
# and the unit's mount namespace"). The agent gives each its configured name back.
jwait 30 "^started: .*" >/dev/null
after=$(jlog | sed -n '/Watchdog timeout/,$p' | grep -E '^swap ')
echo "$after"
for d in /dev/zram0:swap-device-after-restart /data/swapfile:swap-file-after-restart; do
	line=$(echo "$after" | grep -E "^swap ${d%%:*}: active at priority [0-9]+ .*as configured")
	if [ -n "$line" ]; then
		pass "${d#*:}" "$line"
	else
		fail "${d#*:}" "the restarted agent says: $(echo "$after" | tr '\n' ' ')/proc/swaps: $(awk 'NR > 1 { printf "%s ", $1 }' /proc/swaps)"
	fi
done

# --- 9. nodeN/reclaim under the hardened unit --------------------------------------------
# ProtectKernelTunables=yes makes /sys read-only; the unit's ReadWritePaths= opens the node
# directory again. Page cache in a cgroup no rule manages is what only the kernel's per-node
# reclaim can take back, so a headroom goal above the node's free memory is all uncovered.
if need_feature hardened-node-reclaim node-reclaim; then
	dd if=/dev/zero of=/data/fill bs=1M count=120 status=none && sync
	echo 3 >/proc/sys/vm/drop_caches
	# The unit's own stdout is the journal: the read's output goes to /dev/null inside it.
	systemd-run --quiet --wait --slice=other -p MemoryAccounting=yes \
		sh -c 'cat /data/fill >/dev/null'
	free_mib=$(awk '$3 == "MemFree:" { print int($4 / 1024) }' /sys/devices/system/node/node0/meminfo)
	config '{ "match": "nothing.slice/*.service" }' |
		sed "s/\"headroom\": false/\"headroom\": \"$((free_mib + 64))M\"/" >"$CONF"
	mark=$(jlog | grep -c .)
	systemctl reload "$UNIT"
	line=$(jwait 60 'asked of node[0-9]+/reclaim')
	sleep 3
	reclaimctl --json status >"$RESULTS/status-node-reclaim.json" 2>&1
	done_n=$(sed -n '/"headroom_node_reclaim"/,/}/s/.*"done": \([0-9]*\).*/\1/p' "$RESULTS/status-node-reclaim.json")
	failed_n=$(sed -n '/"headroom_node_reclaim"/,/}/s/.*"failed": \([0-9]*\).*/\1/p' "$RESULTS/status-node-reclaim.json")
	denied=$(jlog | tail -n +"$((mark + 1))" | grep -iE 'permission denied|operation not permitted|read-only file system')
	echo "node0 free ${free_mib} MiB before; nodeN/reclaim writes done: ${done_n:-?}, failed: ${failed_n:-?}"
	if [ -n "$line" ] && [ "${done_n:-0}" -gt 0 ] && [ "${failed_n:-1}" = 0 ] && [ -z "$denied" ]; then
		pass hardened-node-reclaim "${done_n} writes done, 0 failed; $line"
	else
		fail hardened-node-reclaim "line '${line:-none}', writes done ${done_n:-none}, failed ${failed_n:-none}; ${denied:-no permission error}"
	fi
	cp /tmp/good.json "$CONF"
	systemctl reload "$UNIT"
	rm -f /data/fill
fi

systemctl show -p NRestarts --value "$UNIT"
jlog >"$RESULTS/reclaimd-journal.txt"
systemctl stop hog.service "$UNIT"
exit 0
