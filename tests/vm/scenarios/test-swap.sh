#!/bin/sh
# vm-options: --zram-size 128M --data-size 256M
# VM tests of swap tiers (issue tests 1, 2 and 5). zram0 is small (128M) so that it fills.
#
# 1. Tiers. The disk is swapped off and on again without a priority (automatic, negative) while
#    empty; reclaimd with configs/swap-tiers.json (zram0 at 100, the disk at 10, "empty-only")
#    must move it to 10 within a few seconds and log "re-prioritised". Then anonymous memory of a
#    memhog is pushed out with memory.reclaim in 16 MiB steps while /proc/swaps is sampled:
#    zram0 must be (nearly) full before the disk gets pages. With pages on the disk, the agent is
#    restarted with the disk configured at 20 (swap-tiers-moved.json): it must leave the device
#    alone (priority still 10) and say so ("left alone").
# 2. Two devices of one kind. A second zram device (zram-control/hot_add) configured at another
#    priority than zram0 (swap-stripe-warn.json): the "both zram" warning, and it is activated at
#    its priority; a configured file without a swap signature (/data/noswap) is "skipped". At the
#    same priority (swap-stripe.json): the agent moves the (empty) device to 100 and pushed-out
#    memory lands on both, with both still at 100 and at least 64 MiB in swap (up to 6.12,
#    rotated in batches of slots: each at least a quarter; after 6.12 at least 256 KiB each, see
#    the check).
# 5. A swap file on /data swapped on (and off) while the agent runs: "swap device added" /
#    "swap device removed" within one tick (interval 2 s: 3 s allowed).
# 6. A kubelet node: with a kubepods.slice cgroup in the tree, a configured swap file that is off
#    is not swapped on ("kubelet node (kubepods.slice found): not swapping on ..."), and
#    "reclaimctl status" says so; with swap.allow_on_kubelet_node it is swapped on.
# Every /proc/swaps sample is in $RESULTS/swap-fill-*.txt.
set -u
. "$VMTEST_LIB"

MiB=1048576
DISK=${SWAP_DEV:-/dev/vda}
ZRAM=/dev/zram0
LOG=$RESULTS/agent-start.log

# cfg NAME: the config from /etc/reclaimd with the disk's real name, as a file in /tmp.
cfg() {
	sed "s#/dev/vda#$DISK#g" "/etc/reclaimd/$1" >"/tmp/$1"
	echo "/tmp/$1"
}

# mark PHASE: the agent's log from here on is $RESULTS/agent-PHASE.log.
mark() { LOG=$RESULTS/agent-$1.log; : >>"$LOG"; }

# wait_prio DEV PRIO SECONDS: until DEV is active at PRIO; prints the seconds it took.
wait_prio() {
	_t0=$(uptime_s)
	_n=$(($3 * 10))
	while [ "$(swap_prio "$1")" != "$2" ]; do
		_n=$((_n - 1))
		[ "$_n" -le 0 ] && return 1
		sleep 0.1
	done
	fsub "$(uptime_s)" "$_t0"
}

# push CGROUP_PATH MAX_MIB OUT: memory.reclaim in 16 MiB steps until MAX_MIB were asked for or
# the disk holds 32 MiB; after each step a line "asked_mib zram0_used_kib zram1_used_kib
# disk_used_kib" in OUT.
push() {
	_asked=0
	echo "# asked_mib zram0_used_kib zram1_used_kib disk_used_kib" >"$3"
	while [ "$_asked" -lt "$2" ]; do
		cg_reclaim "$1" 16M
		_asked=$((_asked + 16))
		_d=$(swap_used_kib "$DISK")
		_z1=$(swap_used_kib /dev/zram1)
		echo "$_asked $(swap_used_kib $ZRAM) ${_z1:-0} ${_d:-0}" >>"$3"
		[ "${_d:-0}" -ge $((32 * 1024)) ] && break
	done
}

have_agent=1
[ -x "$AGENT" ] || have_agent=0
echo "swaps at start:"
cat /proc/swaps

# ---- 1. tiers ---------------------------------------------------------------------------------
swapoff "$DISK"
swapon "$DISK" # no -p: an automatic priority
auto_prio=$(swap_prio "$DISK")
echo "disk swapped on again without a priority: $auto_prio"
if [ -z "$auto_prio" ] || [ "$auto_prio" -ge 0 ]; then
	fail swap-auto-priority "the disk is at '$auto_prio' after swapon without -p (want < 0)"
fi
mark tiers
if [ "$have_agent" = 0 ]; then
	# Still check the kernel's fill order (and the scenario) with the disk put at 10 by hand.
	fail swap-reprioritized-empty "no agent in the VM"
	swapoff "$DISK" && swapon-prio "$DISK" 10
else
	agent_start "$(cfg swap-tiers.json)" "$LOG"
fi
if [ "$have_agent" = 0 ]; then
	:
elif took=$(wait_prio "$DISK" 10 8); then
	line=$(log_wait "$LOG" "swap $DISK: re-prioriti[sz]ed from $auto_prio to 10" 3) || line=
	if [ -n "$line" ]; then
		pass swap-reprioritized-empty "$DISK $auto_prio -> 10 in ${took} s; log: $(echo "$line" | log_message)"
	else
		fail swap-reprioritized-empty "$DISK at 10 after ${took} s but no 're-prioritised from $auto_prio to 10' line"
	fi
else
	fail swap-reprioritized-empty "$DISK still at $(swap_prio "$DISK") 8 s after the start (configured 10)"
fi

# Fill: zram0 (128M) first, the disk only once zram0 is (nearly) full.
top=$(cg_create swaptest)
echo "+memory" >"$top/cgroup.subtree_control"
mkdir -p "$top/fill"
cg_run "$top/fill" memhog --anon 320M --hot-pct 1 --rate 100 --report-interval 30 \
	--ready-file /tmp/fill.ready >"$RESULTS/memhog-fill.log" 2>&1
fill_pid=$!
wait_for_file /tmp/fill.ready 120 || fail swap-fill "memhog did not get ready"
zram_size=$(swap_size_kib $ZRAM)
push "$top/fill" 320 "$RESULTS/swap-fill-tiers.txt"
cat "$RESULTS/swap-fill-tiers.txt"
# The first sample with pages on the disk; zram0's use then, and whether zram0 ever shrank.
first=$(awk '!/^#/ && $4 > 0 { print; exit }' "$RESULTS/swap-fill-tiers.txt")
if [ -z "$first" ]; then
	fail swap-tiers-order "the disk got no pages (last sample: $(tail -n 1 "$RESULTS/swap-fill-tiers.txt"))"
else
	zused=$(echo "$first" | awk '{ print $2 }')
	pct=$((zused * 100 / zram_size))
	if [ "$pct" -ge 85 ]; then
		pass swap-tiers-order "the disk's first pages came after $(echo "$first" | awk '{ print $1 }') MiB asked, with zram0 ${pct} % full ($((zused / 1024)) of $((zram_size / 1024)) MiB)"
	else
		fail swap-tiers-order "the disk got pages while zram0 was only ${pct} % full ($first)"
	fi
fi

if [ "$have_agent" = 0 ]; then
	echo "no agent: the rest needs it"
	exit 1
fi

# Not empty + empty-only: a different configured priority is only reported.
agent_stop >/dev/null
disk_used=$(swap_used_kib "$DISK")
mark moved
agent_start "$(cfg swap-tiers-moved.json)" "$LOG"
line=$(log_wait "$LOG" "swap $DISK: active at priority 10, configured 20: left alone" 8) || line=
sleep 1
prio=$(swap_prio "$DISK")
if [ "${disk_used:-0}" -eq 0 ]; then
	fail swap-not-empty-left-alone "the disk had no pages, so this checks nothing"
elif [ "$prio" = 10 ] && [ -n "$line" ]; then
	pass swap-not-empty-left-alone "$DISK with $((disk_used / 1024)) MiB used stays at 10 (configured 20); log: $(echo "$line" | log_message)"
else
	fail swap-not-empty-left-alone "$DISK at '$prio' with $((disk_used / 1024)) MiB used; left-alone line: '${line:-none}'"
fi
agent_stop >/dev/null
kill "$fill_pid" 2>/dev/null
wait "$fill_pid" 2>/dev/null
sleep 1
echo "after the fill memhog exited:"
cat /proc/swaps

# ---- 2. two zram devices ----------------------------------------------------------------------
if [ -r /sys/class/zram-control/hot_add ]; then
	id=$(cat /sys/class/zram-control/hot_add)
	Z1=/dev/zram$id
else
	Z1=
fi
if [ "$Z1" != /dev/zram1 ]; then
	fail swap-stripe-setup "no second zram device (hot_add gave '${Z1:-nothing}')"
else
	echo lz4 >/sys/block/zram1/comp_algorithm
	echo 128M >/sys/block/zram1/disksize
	mkswap "$Z1" >/dev/null
	# A file without a swap signature, also configured: skipped.
	dd if=/dev/zero of=/data/noswap bs=1M count=1 2>/dev/null
	# Different priorities for one kind: the warning; zram1 is activated at its 50.
	mark stripe-warn
	agent_start "$(cfg swap-stripe-warn.json)" "$LOG"
	w=$(log_wait "$LOG" "swap: $ZRAM and $Z1 are both zram but have priorities 100 and 50" 6) || w=
	s=$(log_wait "$LOG" "swap /data/noswap: skipped" 4) || s=
	if took=$(wait_prio "$Z1" 50 6) &&
		a=$(log_wait "$LOG" "swap $Z1: activated at priority 50 \(zram\)" 3); then
		pass swap-activated "$Z1 active at 50; log: $(echo "$a" | log_message)"
	else
		fail swap-activated "$Z1 at '$(swap_prio "$Z1")' (configured 50), or no 'activated at priority 50 (zram)' line"
	fi
	agent_stop >/dev/null
	if [ -n "$w" ]; then
		pass swap-kind-priority-warning "$(echo "$w" | log_message)"
	else
		fail swap-kind-priority-warning "no 'both zram but have priorities 100 and 50' line"
	fi
	if [ -n "$s" ] && [ -z "$(swap_prio /data/noswap)" ]; then
		pass swap-no-signature-skipped "$(echo "$s" | log_message)"
	else
		fail swap-no-signature-skipped "'${s:-no skipped line}', /data/noswap active: '$(swap_prio /data/noswap)'"
	fi

	# The same priority: zram1 (empty) moved to 100, no warning, both fill.
	mark stripe
	agent_start "$(cfg swap-stripe.json)" "$LOG"
	if took=$(wait_prio "$Z1" 100 8); then
		a=$(log_wait "$LOG" "swap $Z1: (re-prioriti[sz]ed from 50 to 100|activated at priority 100)" 3) || a=
		if [ -n "$a" ]; then
			pass swap-equal-priority-set "$Z1 at 100 after ${took} s; log: $(echo "$a" | log_message)"
		else
			fail swap-equal-priority-set "$Z1 at 100 but no 're-prioritised from 50 to 100' line"
		fi
	else
		fail swap-equal-priority-set "$Z1 not at 100 8 s after the start ($(swap_prio "$Z1"))"
	fi
	if grep -q "are both zram but" "$LOG"; then
		fail swap-equal-no-warning "a 'both zram' warning with equal priorities"
	fi
	z0=$(swap_used_kib $ZRAM)
	z1=$(swap_used_kib "$Z1")
	mkdir -p "$top/stripe"
	cg_run "$top/stripe" memhog --anon 160M --hot-pct 1 --rate 100 --report-interval 30 \
		--ready-file /tmp/stripe.ready >"$RESULTS/memhog-stripe.log" 2>&1
	stripe_pid=$!
	wait_for_file /tmp/stripe.ready 120 || fail swap-stripe "memhog did not get ready"
	push "$top/stripe" 96 "$RESULTS/swap-fill-stripe.txt"
	cat "$RESULTS/swap-fill-stripe.txt"
	d0=$(($(swap_used_kib $ZRAM) - z0))
	d1=$(($(swap_used_kib "$Z1") - ${z1:-0}))
	tot=$((d0 + d1))
	# How one writer's swap-outs spread over equal priorities depends on the kernel (the probe
	# scenario swap-stripe.sh). 6.1 and 6.12 rotate the devices after each batch of slots, so
	# each gets at least a quarter. 7.3 allocates from per-CPU clusters and rotates rarely: the
	# device swapped on last (zram1 here) takes nearly all of it. Kernels after 6.12 get the 7.3
	# check, since the allocator rewrite came between the two and no kernel in between is
	# measured. There both must stay at 100 and each must still get pages (at least 64 pages,
	# 256 KiB; the fewest measured was 1 MiB); with zram1 left at 50 it gets none until zram0 is
	# full.
	split="zram0 +$d0 KiB, $Z1 +$d1 KiB"
	p0=$(swap_prio $ZRAM)
	p1=$(swap_prio "$Z1")
	if [ "$p0" != 100 ] || [ "$p1" != 100 ]; then
		fail swap-equal-priority-striped "$split, but priorities $ZRAM '$p0' and $Z1 '$p1' after the push (want 100 and 100)"
	elif [ "$tot" -lt $((64 * 1024)) ]; then
		fail swap-equal-priority-striped "$split: less than 64 MiB of the 96 MiB push reached swap"
	elif ! kver_le 6 12; then
		if [ "$d0" -ge 256 ] && [ "$d1" -ge 256 ]; then
			pass swap-equal-priority-striped "$split (after 6.12: per-CPU clusters, each >= 256 KiB)"
		else
			fail swap-equal-priority-striped "$split (want each >= 256 KiB after 6.12)"
		fi
	elif [ $((d0 * 4)) -ge "$tot" ] && [ $((d1 * 4)) -ge "$tot" ]; then
		pass swap-equal-priority-striped "$split"
	else
		fail swap-equal-priority-striped "$split (want each >= 25 % up to 6.12)"
	fi
fi

# ---- 5. a swap file added and removed while the agent runs ------------------------------------
if ! kill -0 "$AGENT_PID" 2>/dev/null; then
	mark hotplug
	agent_start "$(cfg swap-tiers.json)" "$LOG"
	sleep 3
fi
if [ ! -d /data ]; then
	fail swap-device-added "no /data disk"
else
	dd if=/dev/zero of=/data/swapfile bs=1M count=64 2>/dev/null && sync
	chmod 600 /data/swapfile
	mkswap /data/swapfile >/dev/null
	t0=$(uptime_s)
	if swapon /data/swapfile; then
		fprio=$(swap_prio /data/swapfile)
		if line=$(log_wait "$LOG" "swap device added: /data/swapfile" 6); then
			dt=$(fsub "$(echo "$line" | log_time)" "$t0")
			if awk -v d="$dt" 'BEGIN { exit !(d <= 3.0) }'; then
				pass swap-device-added "noticed ${dt} s after swapon; log: $(echo "$line" | log_message)"
			else
				fail swap-device-added "noticed only ${dt} s after swapon (interval 2 s)"
			fi
		else
			fail swap-device-added "no 'swap device added: /data/swapfile' line within 6 s"
		fi
		sleep 2
		if [ "$(swap_prio /data/swapfile)" != "$fprio" ]; then
			fail swap-unconfigured-untouched "/data/swapfile moved from $fprio to $(swap_prio /data/swapfile)"
		else
			pass swap-unconfigured-untouched "/data/swapfile (not configured) stays at $fprio"
		fi
		t0=$(uptime_s)
		swapoff /data/swapfile
		if line=$(log_wait "$LOG" "swap device removed: /data/swapfile" 6); then
			dt=$(fsub "$(echo "$line" | log_time)" "$t0")
			if awk -v d="$dt" 'BEGIN { exit !(d <= 3.0) }'; then
				pass swap-device-removed "noticed ${dt} s after swapoff"
			else
				fail swap-device-removed "noticed only ${dt} s after swapoff"
			fi
		else
			fail swap-device-removed "no 'swap device removed: /data/swapfile' line within 6 s"
		fi
	else
		fail swap-device-added "swapon /data/swapfile failed"
	fi
fi
agent_stop >/dev/null

# ---- 6. a kubelet node: no swapon without swap.allow_on_kubelet_node --------------------------
# kubelet.service is not needed: the kubepods cgroup is what says a kubelet runs here.
kube_cfg() { # ALLOW (true/false): a config with the swap file of part 5, written to /tmp
	cat >"/tmp/swap-kubelet-$1.json" <<-EOF
	{ "mglru_aging": false, "interval": 2, "log_level": "info", "headroom": false,
	  "swap": { "allow_on_kubelet_node": $1,
	            "devices": [ { "path": "/data/swapfile", "priority": 5, "kind": "file" } ] },
	  "rules": [ { "match": "reclaimd", "policy": "none" } ] }
	EOF
	echo "/tmp/swap-kubelet-$1.json"
}
if [ ! -f /data/swapfile ]; then
	fail swap-kubelet-hold "no /data/swapfile from part 5"
else
	swapoff /data/swapfile 2>/dev/null
	mkdir -p "$CGROOT/kubepods.slice"
	mark kubelet-hold
	agent_start "$(kube_cfg false)" "$LOG"
	line=$(log_wait "$LOG" "kubelet node \(kubepods.slice found\): not swapping on /data/swapfile at priority 5" 8) || line=
	sleep 2
	st=$(reclaimctl status 2>&1) || st="reclaimctl status failed: $st"
	if [ -n "$line" ] && [ -z "$(swap_prio /data/swapfile)" ]; then
		pass swap-kubelet-hold "/data/swapfile stays off; log: $(echo "$line" | log_message)"
	else
		fail swap-kubelet-hold "/data/swapfile at '$(swap_prio /data/swapfile)'; hold line: '${line:-none}'"
	fi
	if echo "$st" | grep -q "kubelet node (kubepods.slice found): no swapon; 1 configured device left off"; then
		pass swap-kubelet-status "$(echo "$st" | grep "kubelet node")"
	else
		fail swap-kubelet-status "reclaimctl status has no kubelet line: $(echo "$st" | grep -A2 '^swap:')"
	fi
	agent_stop >/dev/null
	mark kubelet-allow
	agent_start "$(kube_cfg true)" "$LOG"
	if took=$(wait_prio /data/swapfile 5 8) &&
		a=$(log_wait "$LOG" "swap /data/swapfile: activated at priority 5 \(file\) on a kubelet node" 3); then
		pass swap-kubelet-allowed "swapped on after ${took} s; log: $(echo "$a" | log_message)"
	else
		fail swap-kubelet-allowed "/data/swapfile at '$(swap_prio /data/swapfile)' with allow_on_kubelet_node, or no 'activated ... on a kubelet node' line"
	fi
	agent_stop >/dev/null
	swapoff /data/swapfile 2>/dev/null
	rmdir "$CGROOT/kubepods.slice"
fi
kill "${stripe_pid:-}" 2>/dev/null
cat "$RESULTS"/agent-*.log | grep -E 'reclaimd\[(warning|err|crit)\]' | log_message | sort | uniq -c | sed 's/^/agent warning: /'
echo "swaps at the end:"
cat /proc/swaps
