#!/bin/sh
# vm-prepare: make -s deb && tests/vm/build-rootfs.sh --variant containers
# vm-options: --rootfs-variant containers --node-mem 1536M --zram-size 512M --data-size 512M --timeout 900 --file build/reclaimd.deb:/root/reclaimd.deb
# VM test of reclaimd on a kubelet-shaped host with real container runtimes (Debian 12's docker.io,
# containerd, runc, podman, crun), installed from its package under systemd (run.sh
# --rootfs-variant containers). No kubelet and no registry: the containers run from a busybox-static
# rootfs with the workloads copied in, imported into each runtime, and are placed in the cgroups
# kubelet's systemd driver gives pods:
#   pod A  Burstable,  cri-dockerd layout: docker --cgroup-parent=kubepods-burstable-pod<uid_>.slice,
#          a pause-like container and an application container with Memory QoS's memory.min,
#          memory.low and memory.high written on its scope (as kubelet does);
#   pod B  BestEffort, containerd CRI layout: ctr run --runc-systemd-cgroup
#          --cgroup "<pod>.slice:cri-containerd:<id>", a pause-like container, a mostly cold
#          application container and one held at its memory.high;
#   pod C  Guaranteed (kubepods-pod<uid_>.slice), containerd;
#   pod D  Burstable, docker, NoSwap (memory.swap.max 0 on the container) with anon and page cache;
#   and a plain Podman container (machine.slice/libpod-<id>.scope).
# The agent's rules: BestEffort at the container level, Burstable at the pod level, Podman by
# runtime at the container level; Guaranteed matches nothing.
#
#   deb-install            dpkg -i of the .deb succeeds
#   runtimes-started       containerd, dockerd and podman work offline (start times in the detail)
#   images-imported        the busybox rootfs imported by docker import, podman import and
#                          ctr images import (of docker save's archive)
#   containers-placed      every container's cgroup is where kubelet's systemd driver puts it
#   recognised-explain     --check-config --explain-path: kind, QoS, pod UID, runtime and id of each
#   recognised-journal     the journal's POD_UID=, QOS_CLASS=, CONTAINER_ID=, CONTAINER_RUNTIME=
#                          of every managed cgroup
#   qos-selects            the BestEffort rule takes pod B's containers, never Guaranteed pod C
#                          (no journal entry for it, its pgsteal unchanged)
#   level-pod              requests on Burstable pod slices, none on their docker scopes
#   level-container        requests on BestEffort container scopes, none on the pod slice
#   sandbox-untouched      the pause-like containers get no request (below every floor)
#   besteffort-cold-reclaimed  half of pod B's cold memory gone within 180 s, its hot set kept
#   kubelet-files-unchanged  every writable cgroup file under kubepods.slice (memory.min/low/high/
#                          max/swap.max/oom.group/zswap.*, cpu.*, cpuset.*, pids.max, io.*,
#                          cgroup.subtree_control, ...) the same before and after the agent ran
#   memory-qos-floor       pod A's application container never below its memory.min and memory.low
#                          while the agent reclaims the pod (its floor counts them)
#   stand-back-at-high     no request on the container at its memory.high, an at-high entry instead
#   noswap-file-only       pod D: swap.current stays 0, anon kept, page cache reclaimed
#   swap-kubelet-node      the swap section does not swapon a swap file on this kubepods host and the
#                          journal says what it would have done
set -u
. "$VMTEST_LIB"

MiB=1048576
UNIT=reclaimd.service
CONF=/etc/reclaimd/reclaimd.json
MSGID_MANAGED=0c4e2a58d2b94f0c9a6b0b1f4d2e7a05
MSGID_REQUESTED=0c4e2a58d2b94f0c9a6b0b1f4d2e7a07
MSGID_SKIPPED=0c4e2a58d2b94f0c9a6b0b1f4d2e7a09
SHARED=/tmp/ctr-shared
IMG=vmtest/busybox:1
# ctr talks to containerd's k8s.io namespace, where the CRI plugin keeps kubelet's containers.
CTR="ctr -n k8s.io"

UID_A=3f8b2c1a-7d4e-4b9f-8a6c-1e2d3c4b5a61
UID_B=9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d
UID_C=c0ffee00-1234-4abc-9def-0123456789ab
UID_D=5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9
us() { echo "$1" | tr - _; }
KP=kubepods.slice
POD_A=$KP/kubepods-burstable.slice/kubepods-burstable-pod$(us $UID_A).slice
POD_B=$KP/kubepods-besteffort.slice/kubepods-besteffort-pod$(us $UID_B).slice
POD_C=$KP/kubepods-pod$(us $UID_C).slice
POD_D=$KP/kubepods-burstable.slice/kubepods-burstable-pod$(us $UID_D).slice

now_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "[$(now_s)] $*"; }
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }
hexid() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# wait_cmd SECONDS COMMAND...: polls COMMAND every 0.5 s until it succeeds.
wait_cmd() {
	_n=$(($1 * 2))
	shift
	while ! "$@" >/dev/null 2>&1; do
		_n=$((_n - 1))
		[ "$_n" -le 0 ] && return 1
		sleep 0.5
	done
}
# cgfile CGROUP FILE: the file's content; 0 when it cannot be read (a container that did not start
# fails its own check, not the arithmetic of the others).
cgfile() { cat "$CGROOT/$1/$2" 2>/dev/null || echo 0; }

# jentries MSGID: the agent's journal entries with MESSAGE_ID MSGID, one JSON object a line
# (journalctl writes '"KEY" : "value"'; made '"KEY":"value"').
jentries() {
	journalctl -u "$UNIT" --no-pager -o json MESSAGE_ID="$1" 2>/dev/null | sed 's/" : "/":"/g'
}
# jget FIELD: reads JSON lines on stdin, prints FIELD's string value of each (empty if absent).
jget() {
	sed "s/.*\"$1\":\"\([^\"]*\)\".*/\1/; t; s/.*//"
}

# ---- the package, the runtimes -------------------------------------------------------------
if dpkg -i /root/reclaimd.deb >"$RESULTS/dpkg.log" 2>&1; then
	pass deb-install "$(dpkg-query -W -f='${Package} ${Version}' reclaimd)"
else
	fail deb-install "dpkg -i failed: $(tail -n 3 "$RESULTS/dpkg.log" | tr '\n' ' ')"
fi

# The initramfs root cannot be pivot_root'ed (pivot_root(2): EINVAL on the rootfs mount), so every
# runtime runs its containers without pivot_root. Storage is vfs/native: the image is 3 MB and
# these drivers need nothing from the file system.
mkdir -p /etc/docker /etc/containers /etc/systemd/system/docker.service.d "$SHARED" /data/podD
cat >/etc/docker/daemon.json <<'EOF'
{ "exec-opts": ["native.cgroupdriver=systemd"], "storage-driver": "vfs",
  "iptables": false, "ip-masq": false, "ip-forward": false, "bridge": "none" }
EOF
printf '[Service]\nEnvironment=DOCKER_RAMDISK=true\nTimeoutStartSec=300\n' \
	>/etc/systemd/system/docker.service.d/vmtest.conf
cat >/etc/containers/containers.conf <<'EOF'
[engine]
cgroup_manager = "systemd"
no_pivot_root = true
events_logger = "file"
runtime = "crun"
EOF
printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' \
	>/etc/containers/storage.conf
# ctr's --no-pivot sends task options of its own that replace the container's runtime options,
# --runc-systemd-cgroup with them (runc then puts the container under containerd's cgroup by path):
# the no-pivot comes from a runc wrapper instead (--runc-binary), a runtime option beside
# SystemdCgroup.
cat >/usr/local/sbin/runc-nopivot <<'EOF'
#!/bin/sh
# runc with --no-pivot added to its create and run commands (the first such word).
added=0
for a; do
	shift
	set -- "$@" "$a"
	if [ $added -eq 0 ] && { [ "$a" = create ] || [ "$a" = run ]; }; then
		set -- "$@" --no-pivot
		added=1
	fi
done
exec /usr/sbin/runc "$@"
EOF
chmod 755 /usr/local/sbin/runc-nopivot
systemctl daemon-reload

times=
say "starting containerd"
t0=$(now_s)
timeout 180 systemctl start containerd.service
wait_cmd 120 ctr version
times="containerd $(elapsed "$t0") s"
t0=$(now_s)
say "starting dockerd"
timeout 300 systemctl start docker.service
wait_cmd 120 docker info
times="$times, dockerd $(elapsed "$t0") s"
t0=$(now_s)
timeout 120 podman info >"$RESULTS/podman-info.txt" 2>&1
prc=$?
times="$times, podman info $(elapsed "$t0") s"
docker info >"$RESULTS/docker-info.txt" 2>&1
drv=$(sed -n 's/^ *Cgroup Driver: //p' "$RESULTS/docker-info.txt")
if ctr version >/dev/null 2>&1 && [ "$drv" = systemd ] && [ "$prc" -eq 0 ]; then
	pass runtimes-started "$times; docker cgroup driver $drv"
else
	fail runtimes-started "$times; ctr $(ctr version >/dev/null 2>&1 && echo ok || echo down), docker cgroup driver '${drv:-none}', podman info exit $prc"
	systemctl status --no-pager containerd docker >>"$RESULTS/runtimes-status.txt" 2>&1
fi

# ---- the container image: busybox-static and the workloads ---------------------------------
R=/tmp/ctr-rootfs
mkdir -p $R/bin $R/proc $R/sys $R/dev $R/tmp $R/etc $R/shared $R/data
cp /bin/busybox $R/bin/busybox
for a in sh sleep cat true; do ln -s busybox "$R/bin/$a"; done
cp /usr/local/bin/memhog $R/bin/memhog
printf 'root:x:0:0:root:/:/bin/sh\n' >$R/etc/passwd
tar -C $R -cf /tmp/bb.tar .
say "importing the image"
t0=$(now_s)
imp=
timeout 120 docker import /tmp/bb.tar $IMG >"$RESULTS/import.log" 2>&1 && imp="docker"
timeout 120 podman import /tmp/bb.tar $IMG >>"$RESULTS/import.log" 2>&1 && imp="$imp podman"
docker save $IMG -o /tmp/bb-image.tar >>"$RESULTS/import.log" 2>&1 &&
	$CTR images import --snapshotter native /tmp/bb-image.tar >>"$RESULTS/import.log" 2>&1 &&
	imp="$imp containerd"
CTR_IMG=$($CTR images ls -q 2>/dev/null | grep -m1 busybox)
if [ "$imp" = "docker podman containerd" ] && [ -n "$CTR_IMG" ]; then
	pass images-imported "docker import, podman import, ctr images import of docker save ($CTR_IMG) in $(elapsed "$t0") s"
else
	fail images-imported "imported into: ${imp:-none}; $(tail -n 3 "$RESULTS/import.log" | tr '\n' ' ')"
fi

# ---- the pods ----------------------------------------------------------------------------
hog() { # NAME ARGS...: the memhog command line of container NAME
	_n=$1
	shift
	echo "/bin/memhog $* --report-interval 30 --ready-file /shared/$_n.ready"
}
dock() { # NAME POD_UID DOCKER_ARGS... -- COMMAND...: a docker container in a Burstable pod
	_name=$1 _uid=$2
	shift 2
	_args=
	while [ "$1" != -- ]; do _args="$_args $1"; shift; done
	shift
	# shellcheck disable=SC2086
	timeout 120 docker run -d --name "$_name" --network none --security-opt apparmor=unconfined \
		--cgroup-parent="kubepods-burstable-pod$(us "$_uid").slice" \
		-v $SHARED:/shared -v /data/podD:/data $_args $IMG "$@" >"/tmp/$_name.id" 2>>"$RESULTS/containers.log"
}
ctrrun() { # NAME POD_SLICE COMMAND...: a containerd container in the CRI layout
	_name=$1 _slice=$2
	shift 2
	_id=$(hexid)
	echo "$_id" >"/tmp/$_name.id"
	timeout 120 $CTR run -d --null-io --snapshotter native --runc-binary /usr/local/sbin/runc-nopivot \
		--runc-systemd-cgroup \
		--cgroup "$_slice:cri-containerd:$_id" \
		--mount "type=bind,src=$SHARED,dst=/shared,options=rbind:rw" \
		"$CTR_IMG" "$_id" "$@" >>"$RESULTS/containers.log" 2>&1
}
say "starting the containers"
t0=$(now_s)
# The pod slices first, as kubelet creates them (through systemd) before the pod's containers.
timeout 60 systemctl start "kubepods-burstable-pod$(us $UID_A).slice" "kubepods-besteffort-pod$(us $UID_B).slice" \
	"kubepods-pod$(us $UID_C).slice" "kubepods-burstable-pod$(us $UID_D).slice" >>"$RESULTS/containers.log" 2>&1
dock a-pause $UID_A -- /bin/sleep 100000
# shellcheck disable=SC2046
dock a-app $UID_A --memory 400m --memory-reservation 96m -- $(hog a-app --anon 160M --hot-pct 10 --rate 500 --tlb-flush-ms 50)
# shellcheck disable=SC2046
dock d-app $UID_D --memory 400m --memory-swap 400m -- $(hog d-app --anon 96M --file 96M --file-path /data/d-app.file --hot-pct 20 --rate 500 --tlb-flush-ms 50)
ctrrun b-pause "kubepods-besteffort-pod$(us $UID_B).slice" /bin/sleep 100000
# b-app's 3,072 hot pages at 3,600 random accesses a second: a mean idle gap of 0.85 s, hot at the
# 10 s cold age (the arithmetic is in test-reclaim.sh's header).
# shellcheck disable=SC2046
ctrrun b-app "kubepods-besteffort-pod$(us $UID_B).slice" $(hog b-app --anon 240M --hot-pct 5 --rate 3600 --tlb-flush-ms 50)
# shellcheck disable=SC2046
ctrrun b-high "kubepods-besteffort-pod$(us $UID_B).slice" $(hog b-high --anon 64M --hot-pct 100 --rate 4000)
# shellcheck disable=SC2046
ctrrun c-app "kubepods-pod$(us $UID_C).slice" $(hog c-app --anon 120M --hot-pct 5 --rate 500 --tlb-flush-ms 50)
# shellcheck disable=SC2046
timeout 120 podman run -d --network none --log-driver none -v $SHARED:/shared $IMG \
	$(hog p-app --anon 80M --hot-pct 10 --rate 500 --tlb-flush-ms 50) >/tmp/p-app.id 2>>"$RESULTS/containers.log"
# One deadline for all of them: a container that never starts costs 180 s, not 180 s each.
for n in a-app d-app b-app b-high c-app p-app; do
	while [ ! -e "$SHARED/$n.ready" ] && [ "$(elapsed "$t0" | cut -d. -f1)" -lt 180 ]; do sleep 0.5; done
	[ -e "$SHARED/$n.ready" ] || say "$n: memhog not ready after 180 s"
done
echo "containers started and ready in $(elapsed "$t0") s"
# Where every container is, as the runtimes and the kernel say (for a post-mortem).
{
	docker ps -a --no-trunc
	for n in a-pause a-app d-app; do
		echo "--- docker $n: $(docker inspect -f '{{.State.Status}} pid {{.State.Pid}} error "{{.State.Error}}" parent {{.HostConfig.CgroupParent}}' "$n")"
		docker logs "$n" 2>&1 | tail -n 5
	done
	$CTR tasks ls
	podman ps -a --no-trunc
	systemctl list-units --no-pager --all --type=slice,scope
	for p in $(pgrep -x memhog) $(pgrep -x sleep); do echo "pid $p $(tr '\0' ' ' <"/proc/$p/cmdline"): $(cat "/proc/$p/cgroup")"; done
} >"$RESULTS/placement.txt" 2>&1

ID_A_PAUSE=$(docker inspect -f '{{.Id}}' a-pause 2>/dev/null)
ID_A_APP=$(docker inspect -f '{{.Id}}' a-app 2>/dev/null)
ID_D_APP=$(docker inspect -f '{{.Id}}' d-app 2>/dev/null)
ID_B_PAUSE=$(cat /tmp/b-pause.id)
ID_B_APP=$(cat /tmp/b-app.id)
ID_B_HIGH=$(cat /tmp/b-high.id)
ID_C_APP=$(cat /tmp/c-app.id)
ID_P_APP=$(podman inspect -f '{{.Id}}' "$(cat /tmp/p-app.id)" 2>/dev/null)
CG_A_PAUSE=$POD_A/docker-$ID_A_PAUSE.scope
CG_A_APP=$POD_A/docker-$ID_A_APP.scope
CG_D_APP=$POD_D/docker-$ID_D_APP.scope
CG_B_PAUSE=$POD_B/cri-containerd-$ID_B_PAUSE.scope
CG_B_APP=$POD_B/cri-containerd-$ID_B_APP.scope
CG_B_HIGH=$POD_B/cri-containerd-$ID_B_HIGH.scope
CG_C_APP=$POD_C/cri-containerd-$ID_C_APP.scope
CG_P_APP=machine.slice/libpod-$ID_P_APP.scope
ALL="$CG_A_PAUSE $CG_A_APP $CG_D_APP $CG_B_PAUSE $CG_B_APP $CG_B_HIGH $CG_C_APP $CG_P_APP"
missing=
for cg in $ALL; do
	grep -q 'populated 1' "$CGROOT/$cg/cgroup.events" 2>/dev/null || missing="$missing $cg"
done
find "$CGROOT/kubepods.slice" "$CGROOT/machine.slice" -type d 2>/dev/null | sed "s|^$CGROOT/||" >"$RESULTS/cgroup-tree.txt"
if [ -z "$missing" ]; then
	pass containers-placed "8 containers in 4 pods and machine.slice (tree in cgroup-tree.txt)"
else
	fail containers-placed "no such cgroup (or no process in it):$missing"
fi

# What kubelet writes, written the same way. Pod A's application container: Memory QoS's
# memory.min = request (48 MiB), memory.low = request under TieredReservation (96 MiB, here from
# docker's --memory-reservation), memory.high = request + 0.9 x (limit - request); the pod's
# memory.min = the sum of its requests.
echo $((48 * MiB)) >"$CGROOT/$CG_A_APP/memory.min"
[ "$(cgfile "$CG_A_APP" memory.low)" = $((96 * MiB)) ] || echo $((96 * MiB)) >"$CGROOT/$CG_A_APP/memory.low"
echo $(((96 + (400 - 96) * 9 / 10) * MiB)) >"$CGROOT/$CG_A_APP/memory.high"
echo $((48 * MiB)) >"$CGROOT/$POD_A/memory.min"
# Pod B's b-high: held at its memory.high by the kernel (a limit just under what it uses). The
# write reclaims below the limit at once (on 6.1 by up to 10 MiB), and the agent treats a cgroup
# as at its memory.high from high - high/32 up (CGROUP_HIGH_MARGIN_DIV): the agent starts once
# the workload's refaults (all its 64 MiB hot, each page touched about every 4 s) have brought it
# back there, so the kernel's reclaim, not the write's, is what holds it.
cur=$(cgfile "$CG_B_HIGH" memory.current)
high=$((cur - 8 * MiB))
echo "$high" >"$CGROOT/$CG_B_HIGH/memory.high"
sleep 2
high_back=no _n=0
while [ "$_n" -le 120 ]; do
	if [ "$(cgfile "$CG_B_HIGH" memory.current)" -ge $((high - high / 32)) ]; then
		high_back=yes
		break
	fi
	_n=$((_n + 1))
	sleep 0.5
done
echo "b-high back at its memory.high: $high_back, after $((_n / 2)) s more (at most 60)"
echo "memory QoS: $CG_A_APP min $(cgfile "$CG_A_APP" memory.min) low $(cgfile "$CG_A_APP" memory.low) high $(cgfile "$CG_A_APP" memory.high)"
echo "NoSwap: $CG_D_APP swap.max $(cgfile "$CG_D_APP" memory.swap.max)"
echo "at high: $CG_B_HIGH current $(cgfile "$CG_B_HIGH" memory.current) high $(cgfile "$CG_B_HIGH" memory.high)"

# ---- the kubelet-owned files, before -------------------------------------------------------
# Every writable interface file under kubepods.slice, except those written to act rather than to
# set (memory.reclaim, cgroup.procs/threads/kill), the PSI files (writable for triggers, their
# content is statistics) and the peaks (a write resets them).
snapshot_kubelet_files() {
	find "$CGROOT/$KP" -type f -perm -u+w ! -name memory.reclaim ! -name cgroup.procs \
		! -name cgroup.threads ! -name cgroup.kill ! -name '*.pressure' ! -name '*.peak' 2>/dev/null |
		LC_ALL=C sort | while read -r f; do
		# Lines joined by spaces, read by the shell itself: no process per file (448 files).
		v=
		{ while IFS= read -r line; do v="$v$line "; done <"$f"; } 2>/dev/null
		printf '%s\t%s\n' "${f#"$CGROOT"/}" "$v"
	done
}
snapshot_kubelet_files >"$RESULTS/kubelet-files-before.tsv"

# ---- the agent ---------------------------------------------------------------------------
# The default reclaim path: the agent ages every managed memcg, and a pod's containers' memcgs for
# the pod, through lru_gen, and evicts only generations idle for the cold age (10 s, so that the
# 60-180 s windows see eviction), never under a container with memory.min or memory.low. Plain
# memory.reclaim on a young memcg makes the kernel age it twice at once and takes hot pages with
# the cold (docs/policies.md "MGLRU: aging and eviction").
cat >"$CONF" <<'EOF'
{
  "interval": 2,
  "log_level": "debug",
  "headroom": false,
  "mglru_aging": true,
  "defaults": { "min_bytes": "16M", "cold_age": 10 },
  "rules": [
    { "match": "**", "qos": ["besteffort"], "level": "container", "min_bytes": "8M" },
    { "match": "**", "qos": ["burstable"], "level": "pod" },
    { "match": "machine.slice/**", "level": "container", "runtime": ["podman"] }
  ]
}
EOF

# Recognition as the agent itself reports it, for every container and pod (managed or not).
# expect_explain PATH KIND QOS POD_UID RUNTIME ID
bad_explain=
expect_explain() {
	_out=$(reclaimd --check-config -c "$CONF" --explain-path "$1" 2>&1)
	echo "$_out" >>"$RESULTS/explain.txt"
	_f() { echo "$_out" | sed -n "s/^$1 *//p" | head -n 1; }
	_got="$(_f kind)|$(_f qos)|$(_f pod_uid)|$(_f runtime)|$(_f container_id)"
	_want="$2|$3|$4|$5|$6"
	[ "$_got" = "$_want" ] || bad_explain="$bad_explain $1: got $_got, wanted $_want;"
}
expect_explain "$POD_A" pod burstable $UID_A "" ""
expect_explain "$CG_A_PAUSE" container burstable $UID_A docker "$ID_A_PAUSE"
expect_explain "$CG_A_APP" container burstable $UID_A docker "$ID_A_APP"
expect_explain "$POD_B" pod besteffort $UID_B "" ""
expect_explain "$CG_B_PAUSE" container besteffort $UID_B containerd "$ID_B_PAUSE"
expect_explain "$CG_B_APP" container besteffort $UID_B containerd "$ID_B_APP"
expect_explain "$POD_C" pod guaranteed $UID_C "" ""
expect_explain "$CG_C_APP" container guaranteed $UID_C containerd "$ID_C_APP"
expect_explain "$CG_D_APP" container burstable $UID_D docker "$ID_D_APP"
expect_explain "$CG_P_APP" container "" "" podman "$ID_P_APP"
if [ -z "$bad_explain" ]; then
	pass recognised-explain "10 paths: pods A-D and 8 containers of docker, containerd and podman (explain.txt)"
else
	fail recognised-explain "$bad_explain"
fi

# Samples of what the floors are about, every 0.5 s while the agent runs.
sampler "$CGROOT/$CG_A_APP" "$RESULTS/samples-a-app.txt" 0.5
SAMPLER_A=$!
# The sampler holds the runner's output pipe: it must not outlive the script (vmtest-runner waits
# for that pipe to close before it saves the results).
trap 'kill "$SAMPLER_A" 2>/dev/null' EXIT
stat0() { _v=$(memstat "$CGROOT/$1" "$2" 2>/dev/null); echo "${_v:-0}"; }
STEAL_C0=$(stat0 "$POD_C" pgsteal)
B_CUR0=$(cgfile "$CG_B_APP" memory.current)
B_REFAULT0=$(($(stat0 "$CG_B_APP" workingset_refault_anon) + $(stat0 "$CG_B_APP" workingset_refault_file)))
D_ANON0=$(stat0 "$CG_D_APP" anon)
D_FILE0=$(stat0 "$CG_D_APP" file)
echo "start: b-app $(mib "$B_CUR0") MiB, d-app anon $(mib "$D_ANON0") file $(mib "$D_FILE0") MiB"

say "starting the agent"
t_agent=$(now_s)
if ! systemctl start "$UNIT"; then
	fail agent-start "$(systemctl status --no-pager "$UNIT" | tail -n 5 | tr '\n' ' ')"
fi

# Cold memory in the BestEffort container: at least half of it (95 % of 240 MiB) gone.
cold=$((240 * MiB * 95 / 100))
lost=0
while [ "$(elapsed "$t_agent" | cut -d. -f1)" -lt 180 ]; do
	lost=$((B_CUR0 - $(cgfile "$CG_B_APP" memory.current)))
	[ "$lost" -ge $((cold / 2)) ] && break
	sleep 2
done
took=$(elapsed "$t_agent")
# Let every rule run a while longer (the pod-level and podman requests, the at-high window).
while [ "$(elapsed "$t_agent" | cut -d. -f1)" -lt 60 ]; do sleep 2; done
B_REFAULT1=$(($(stat0 "$CG_B_APP" workingset_refault_anon) + $(stat0 "$CG_B_APP" workingset_refault_file)))
hot_pages=$((240 * MiB * 5 / 100 / 4096))
refaults=$((B_REFAULT1 - B_REFAULT0))
if [ "$lost" -ge $((cold / 2)) ] && [ "$refaults" -lt "$hot_pages" ]; then
	pass besteffort-cold-reclaimed "lost $(mib "$lost") MiB of $(mib "$cold") MiB cold in $took s; $refaults refaults (< $hot_pages hot pages)"
else
	fail besteffort-cold-reclaimed "lost $(mib "$lost") MiB of $(mib "$cold") MiB cold in $took s; $refaults refaults (hot set $hot_pages pages)"
fi

# ---- recognition in the journal, QoS and level -------------------------------------------------
jentries $MSGID_MANAGED >"$RESULTS/journal-managed.json"
jentries $MSGID_REQUESTED >"$RESULTS/journal-requested.json"
# expect_journal CGROUP POD_UID QOS RUNTIME ID: the "now managed" entry of CGROUP has these fields.
bad_journal=
expect_journal() {
	_l=$(grep -F "\"CGROUP\":\"$1\"" "$RESULTS/journal-managed.json" | head -n 1)
	if [ -z "$_l" ]; then
		bad_journal="$bad_journal $1: not managed;"
		return
	fi
	# printf, not echo: dash's echo turns the JSON's \n escapes into newlines.
	_got="$(printf '%s\n' "$_l" | jget POD_UID)|$(printf '%s\n' "$_l" | jget QOS_CLASS)|$(printf '%s\n' "$_l" | jget CONTAINER_RUNTIME)|$(printf '%s\n' "$_l" | jget CONTAINER_ID)"
	[ "$_got" = "$2|$3|$4|$5" ] || bad_journal="$bad_journal $1: got $_got, wanted $2|$3|$4|$5;"
}
expect_journal "$POD_A" $UID_A burstable "" ""
expect_journal "$POD_D" $UID_D burstable "" ""
expect_journal "$CG_B_PAUSE" $UID_B besteffort containerd "$ID_B_PAUSE"
expect_journal "$CG_B_APP" $UID_B besteffort containerd "$ID_B_APP"
expect_journal "$CG_P_APP" "" "" podman "$ID_P_APP"
if [ -z "$bad_journal" ]; then
	pass recognised-journal "POD_UID, QOS_CLASS, CONTAINER_RUNTIME, CONTAINER_ID of 5 managed cgroups ($(grep -c . "$RESULTS/journal-managed.json") managed entries)"
else
	fail recognised-journal "$bad_journal"
fi

n_guar=$(grep -c '"QOS_CLASS":"guaranteed"' "$RESULTS/journal-managed.json")
n_c=$(journalctl -u "$UNIT" --no-pager -o json POD_UID=$UID_C 2>/dev/null | grep -c .)
steal_c=$(($(stat0 "$POD_C" pgsteal) - STEAL_C0))
n_be=$(grep -c '"QOS_CLASS":"besteffort"' "$RESULTS/journal-managed.json")
if [ "$n_be" -ge 2 ] && [ "$n_guar" -eq 0 ] && [ "$n_c" -eq 0 ] && [ "$steal_c" -eq 0 ]; then
	pass qos-selects "BestEffort: $n_be containers managed; Guaranteed pod C: no entry, pgsteal +0"
else
	fail qos-selects "BestEffort managed $n_be; guaranteed managed $n_guar, entries for pod C $n_c, its pgsteal +$steal_c"
fi

req() { grep -cF "\"CGROUP\":\"$1\"" "$RESULTS/journal-requested.json"; }
ra=$(req "$POD_A")
rd=$(req "$POD_D")
rin=$(grep -F "\"CGROUP\":\"$KP/kubepods-burstable.slice/" "$RESULTS/journal-requested.json" | grep -c '\.scope"')
if [ "$ra" -gt 0 ] && [ "$rin" -eq 0 ]; then
	pass level-pod "requests on pod A's slice: $ra, pod D's: $rd; on their docker scopes: 0"
else
	fail level-pod "requests on pod A's slice: $ra, pod D's: $rd; on Burstable scopes: $rin"
fi
rb=$(req "$CG_B_APP")
rbpod=$(req "$POD_B")
if [ "$rb" -gt 0 ] && [ "$rbpod" -eq 0 ]; then
	pass level-container "requests on pod B's application scope: $rb; on its pod slice: 0"
else
	fail level-container "requests on pod B's application scope: $rb; on its pod slice: $rbpod"
fi
rp=$(($(req "$CG_B_PAUSE") + $(req "$CG_A_PAUSE")))
pm=$(($(cgfile "$CG_B_PAUSE" memory.current) / 1024))
if [ "$rp" -eq 0 ] && grep -qF "\"CGROUP\":\"$CG_B_PAUSE\"" "$RESULTS/journal-managed.json"; then
	pass sandbox-untouched "pause-like container managed, $pm KiB, no request"
else
	fail sandbox-untouched "$rp requests on the pause-like containers ($pm KiB)"
fi
echo "podman container: $(req "$CG_P_APP") requests"

# ---- Memory QoS floors, memory.high, NoSwap, swap on a kubelet node ---------------------------
# What the agent reports about pod A (its floor: memory.min, memory.low and its containers'
# protection), for the post-mortem.
reclaimctl --json explain "$POD_A" >"$RESULTS/explain-pod-a.json" 2>&1

check_memory_qos_floor() {
	kill "$SAMPLER_A" 2>/dev/null
	_prot=$((96 * MiB))
	_low=$(awk '$2 != "gone" { if (m == "" || $2 < m) m = $2 } END { print m }' "$RESULTS/samples-a-app.txt")
	# The pod's floor as the agent computes it: its containers' protection counted.
	_cp=$(sed -n 's/.*"children_protected_bytes": *\([0-9]*\).*/\1/p' "$RESULTS/explain-pod-a.json" | head -n 1)
	_fl=$(sed -n 's/.*"floor_bytes": *\([0-9]*\).*/\1/p' "$RESULTS/explain-pod-a.json" | head -n 1)
	_detail="lowest memory.current $(mib "${_low:-0}") MiB, memory.min 48 MiB, memory.low 96 MiB, $ra pod-level requests; pod floor $(mib "${_fl:-0}") MiB, containers' protection $(mib "${_cp:-0}") MiB"
	if [ -n "$_low" ] && [ "$_low" -ge $((_prot - 2 * MiB)) ] && [ "$ra" -gt 0 ] &&
		[ "${_cp:-0}" -ge $((_prot - 2 * MiB)) ] && [ "${_fl:-0}" -ge "${_cp:-0}" ]; then
		pass memory-qos-floor "$_detail"
	else
		fail memory-qos-floor "$_detail"
	fi
}

check_stand_back_at_high() {
	_r=$(req "$CG_B_HIGH")
	_s=$(jentries $MSGID_SKIPPED | grep -F "\"CGROUP\":\"$CG_B_HIGH\"" | grep -c '"REASON":"at-high"')
	_detail="$_r requests, $_s at-high entries; memory.current $(mib "$(cgfile "$CG_B_HIGH" memory.current)") MiB, memory.high $(mib "$(cgfile "$CG_B_HIGH" memory.high)") MiB"
	if [ "$_r" -eq 0 ] && [ "$_s" -gt 0 ]; then
		pass stand-back-at-high "$_detail"
	elif [ "$_s" -eq 0 ] && [ "$high_back" = no ]; then
		fail stand-back-at-high "precondition: b-high never came back to its memory.high before the agent started; $_detail"
	else
		fail stand-back-at-high "$_detail"
	fi
}

check_noswap_file_only() {
	_swap=$(cgfile "$CG_D_APP" memory.swap.current)
	_anon=$(stat0 "$CG_D_APP" anon)
	_file=$(stat0 "$CG_D_APP" file)
	_eagain=$(journalctl -u "$UNIT" --no-pager -o json POD_UID=$UID_D 2>/dev/null | sed 's/" : "/":"/g' | grep -c '"REASON":"partial"')
	_detail="swap.current $_swap, anon $(mib "$D_ANON0") -> $(mib "$_anon") MiB, file $(mib "$D_FILE0") -> $(mib "$_file") MiB, $rd requests, $_eagain partial"
	if [ "$_swap" -eq 0 ] && [ "$_anon" -ge $((D_ANON0 - 2 * MiB)) ] && [ "$_file" -lt $((D_FILE0 - 16 * MiB)) ]; then
		pass noswap-file-only "$_detail"
	else
		fail noswap-file-only "$_detail"
	fi
}

check_swap_kubelet_node() {
	# A swap file the swap section would swapon (zram0 is already the VM's swap, as on a host
	# that had it before the kubelet came).
	dd if=/dev/zero of=/data/kswap bs=1M count=64 2>/dev/null && chmod 600 /data/kswap &&
		mkswap /data/kswap >/dev/null
	sed 's|^  "rules"|  "swap": { "devices": [ { "path": "/data/kswap", "priority": 5, "kind": "file" } ] },\n  "rules"|' \
		"$CONF" >/tmp/swap.json
	cp /tmp/swap.json "$CONF"
	systemctl reload "$UNIT"
	_n=60
	_line=
	while [ $_n -gt 0 ]; do
		_line=$(journalctl -u "$UNIT" --no-pager -o cat | grep -m1 'not swapping on /data/kswap') && break
		sleep 0.5
		_n=$((_n - 1))
	done
	sleep 6 # three ticks: nothing may swapon in them
	if [ -n "$_line" ] && [ -z "$(swap_prio /data/kswap)" ]; then
		pass swap-kubelet-node "/data/kswap left off: $_line"
	else
		fail swap-kubelet-node "journal: '${_line:-nothing}'; /proc/swaps: $(awk 'NR > 1 { printf "%s ", $1 }' /proc/swaps)"
	fi
}

check_memory_qos_floor
check_stand_back_at_high
check_noswap_file_only
check_swap_kubelet_node

# ---- the kubelet-owned files, after ----------------------------------------------------------
systemctl stop "$UNIT"
snapshot_kubelet_files >"$RESULTS/kubelet-files-after.tsv"
changed=$(awk -F'\t' 'NR == FNR { v[$1] = $2; next } ($1 in v) && v[$1] != $2 { printf "%s (%s -> %s); ", $1, v[$1], $2 }' \
	"$RESULTS/kubelet-files-before.tsv" "$RESULTS/kubelet-files-after.tsv")
n_files=$(grep -c . "$RESULTS/kubelet-files-before.tsv")
if [ "$n_files" -gt 100 ] && [ -z "$changed" ]; then
	pass kubelet-files-unchanged "$n_files files under $KP compared"
else
	fail kubelet-files-unchanged "$n_files files compared; changed: ${changed:-none}"
fi

journalctl -u "$UNIT" --no-pager -o cat >"$RESULTS/reclaimd-journal.txt"
for cg in $ALL $POD_A $POD_B $POD_C $POD_D; do
	{ echo "--- $cg"; cat "$CGROOT/$cg/memory.stat"; } >>"$RESULTS/memory-stat-end.txt" 2>/dev/null
done
docker rm -f a-pause a-app d-app >/dev/null 2>&1
podman rm -f -a >/dev/null 2>&1
exit 0
