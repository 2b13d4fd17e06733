#!/usr/bin/env bash
# test_explain_path.sh - reclaimd --check-config --explain-path on the shipped configuration:
# exit 0 and what it prints for a pod, a container (path given absolute under /sys/fs/cgroup, or
# under --cgroup-root), conmon and a plain service; --explain-path without --check-config and a
# bad configuration exit 2. Uses $RECLAIMD (make check-unit sets it), else ./reclaimd. Ends
# "test_explain_path.sh: N passed, N failed, N skipped", like the C unit tests. The files are the
# checkout's and a temporary directory's, owned by whoever runs the tests: every run passes
# --allow-unsafe-paths (tests/host/safety.sh checks the refusal without it).
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${RECLAIMD:-$REPO/reclaimd}
CONF=$REPO/config/reclaimd.json
TEST_NAME=test_explain_path.sh
. "$REPO/tests/lib.sh"
[ -x "$BIN" ] || { skip "no $BIN"; summary; }

U_=0f4c6a1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b
U=0f4c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b
C=4340c1a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e
POD=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$U_.slice
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_explain.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# expect NAME PATTERN...: every pattern (grep -F) is in $out
expect() {
	local name=$1 p
	shift
	for p in "$@"; do
		if ! grep -qF -- "$p" <<<"$out"; then bad "$name: no \"$p\" in:"; echo "$out" >&2; return; fi
	done
	ok
}

out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path "$POD" 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok || bad "pod: exit $rc"
expect pod "kind           pod" "qos            burstable" "pod_uid        $U" \
	"kubelet driver systemd" "matches (a pod of a selected QoS class)" "policy psi"

out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path "/sys/fs/cgroup/$POD/cri-containerd-$C.scope" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && ok || bad "container: exit $rc"
expect container "path           $POD/cri-containerd-$C.scope" "kind           container" \
	"runtime        containerd" "container_id   $C" "at the pod level" "no rule: not managed"

out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --cgroup-root /mnt/cg \
	--explain-path "/mnt/cg/kubepods/besteffort/pod$U/crio-conmon-$C" 2>&1)
expect conmon "path           kubepods/besteffort/pod$U/crio-conmon-$C" "kind           conmon" \
	"kubelet driver cgroupfs" "never a target (conmon)"

out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path system.slice/nginx.service 2>&1)
expect service "kind           other (not a pod or container)" "result         rules[3], policy psi"

# As a shell completes or a hand types it: a trailing "/" and a doubled "/" name the same pod.
out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path "/sys/fs/cgroup//$POD/" 2>&1); rc=$?
[ "$rc" -eq 0 ] && ok || bad "trailing slash: exit $rc"
expect trailing-slash "path           $POD"$'\n' "kind           pod" "qos            burstable"
out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path "${POD/\//\/\/}" 2>&1)
expect double-slash "kind           pod" "pod_uid        $U"

# "." and "..": no cgroup is spelt so; refused (exit 2) rather than explained as another path.
out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path "kubepods.slice/../$POD" 2>&1); rc=$?
[ "$rc" -eq 2 ] && ok || bad "dot-dot: exit $rc"
expect dot-dot '--explain-path: a "." or ".." component names no cgroup'
out=$("$BIN" --allow-unsafe-paths -c "$CONF" --check-config --explain-path "$(printf 'a%.0s' $(seq 5000))" 2>&1); rc=$?
[ "$rc" -eq 2 ] && ok || bad "too long: exit $rc"
expect too-long "--explain-path: the path is too long"

out=$("$BIN" --allow-unsafe-paths -c "$CONF" --explain-path x 2>&1); rc=$?
[ "$rc" -eq 2 ] && ok || bad "without --check-config: exit $rc"
expect without-check "--explain-path goes with --check-config"

printf '{"rules": [{"match": "**", "qos": ["gold"]}]}\n' >"$tmp/bad.json"
out=$("$BIN" --allow-unsafe-paths -c "$tmp/bad.json" --check-config --explain-path x 2>&1); rc=$?
[ "$rc" -eq 2 ] && ok || bad "bad config: exit $rc"
expect bad-config "rules[0].qos[0]: \"gold\" is not a QoS class"
summary
