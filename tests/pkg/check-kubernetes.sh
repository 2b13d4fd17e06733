#!/usr/bin/env bash
# check-kubernetes.sh - the DaemonSet and ConfigMap of config/kubernetes/ are what
# docs/kubernetes.md ("Deploying") says: every YAML parses, the DaemonSet has the
# fields a node agent needs (check-kubernetes.py: rw hostPath /sys/fs/cgroup, only
# CAP_SYS_RESOURCE, system-node-critical, tolerations Exists, requests == limits, the ConfigMap
# and the socket's emptyDir mounted where the configuration says), the ConfigMap's reclaimd.json
# passes `reclaimd --check-config`, leaves swap and zswap alone, and never reclaims the agent's
# own pod (the rule deciding on a Guaranteed pod has a floor above the pod's memory limit), a
# NetworkPolicy lets only the namespace "monitoring" reach the metrics port, and every path
# the container uses (the command, the probe, the config directory) is in the image.
#
# The paths are checked in the image `make image` built (localhost/reclaimd:<version>) when it
# exists, through `podman container mount` of a container created from it, where the ConfigMap's
# file is also checked by the image's own reclaimd (chroot); otherwise in the .deb's file list
# (dpkg-deb -c; `make deb` is run when there is none). The line says which. `make image` is not
# run here: its first run debootstraps a rootfs from the Debian mirror (about 1.5 minutes).
# Run from the repository root (make check-unit); RECLAIMD names the agent (default
# build/gcc/reclaimd). Ends with "check-kubernetes: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 1
TEST_NAME=check-kubernetes
. tests/lib.sh
RECLAIMD=${RECLAIMD:-build/gcc/reclaimd}
DIR=config/kubernetes

if ! python3 -c 'import yaml' 2>/dev/null; then
	skip "yaml-parses: no python3-yaml (make deps installs it)"
	summary
fi
[ -x "$RECLAIMD" ] || { fail "agent: $RECLAIMD is not built"; summary; }
T=$(mktemp -d "${TMPDIR:-/tmp}/check-k8s.XXXXXX")
CTR=
cleanup() {
	[ -n "$CTR" ] && { podman umount "$CTR" >/dev/null 2>&1; podman rm -f "$CTR" >/dev/null 2>&1; }
	rm -rf "$T"
}
trap cleanup EXIT

# The structure (check-kubernetes.py prints its own PASS/FAIL lines).
while IFS= read -r line; do
	case $line in
	"PASS "*) pass "${line#PASS }" ;;
	"FAIL "*) fail "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done < <(python3 tests/pkg/check-kubernetes.py "$DIR" "$T/values" 2>&1)
[ -s "$T/values" ] || { fail "values: check-kubernetes.py wrote none (see above)"; summary; }
val() { sed -n "s/^$1=//p" "$T/values"; }
cfg=$(val CONFIG_FILE) config_path=$(val CONFIG_PATH) binary=$(val BINARY) probe=$(val PROBE)
image=$(val IMAGE) limit=$(val MEMORY_LIMIT_BYTES)
version=$(sed -n 's/^#define RECLAIMD_VERSION "\(.*\)"/\1/p' include/reclaimd/version.h)

# The ConfigMap's file, by the agent itself (written here, by whoever runs the tests: the
# test-only --allow-unsafe-paths; the image's agent below checks it where the DaemonSet has it).
if out=$("$RECLAIMD" --check-config --allow-unsafe-paths --config "$cfg" 2>&1); then
	pass "config-check: reclaimd --check-config accepts the ConfigMap's reclaimd.json ($(printf '%s\n' "$out" | grep -c '^rules\[') rules)"
else
	fail "config-check: reclaimd --check-config: $(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')"
fi
# The agent's own pod (Guaranteed; any UID) is decided by a rule whose floor is above its limit.
pod="kubepods.slice/kubepods-pod0d5c1a52_6f6e_4b0a_9d2e_1a2b3c4d5e6f.slice"
if ! explain=$("$RECLAIMD" --check-config --allow-unsafe-paths --config "$cfg" --explain-path "$pod" 2>&1); then
	fail "own-pod-not-reclaimed: --explain-path $pod: $(printf '%s\n' "$explain" | tail -n 1)"
	rule=-
else
	rule=$(printf '%s\n' "$explain" | sed -n 's/^result *\(rules\[[0-9]*\]\), policy \([a-z]*\).*/\1 \2/p')
fi
if [ "$rule" = - ]; then
	:
elif [ -z "$rule" ]; then
	pass "own-pod-not-reclaimed: no rule takes a Guaranteed pod"
else
	set -- $rule
	floor=$(printf '%s\n' "$out" | awk -v r="$1" '$1 == r { t = 1; next } /^rules\[/ { t = 0 }
		t && $1 == "min_bytes" { print $2; exit }')
	if [ "$2" = none ]; then
		pass "own-pod-not-reclaimed: $1 (policy none) decides on a Guaranteed pod"
	elif [ -n "$floor" ] && [ -n "$limit" ] && [ "$floor" -gt "$limit" ]; then
		pass "own-pod-not-reclaimed: $1 decides on a Guaranteed pod; its min_bytes $floor > the pod's memory limit $limit"
	else
		fail "own-pod-not-reclaimed: $1 decides on a Guaranteed pod with min_bytes '${floor}', not above the pod's memory limit '${limit}'"
	fi
fi
if [ "$image" = "localhost/reclaimd:$version" ]; then
	pass "image-version: $image"
else
	fail "image-version: the DaemonSet runs $image, the tree builds localhost/reclaimd:$version"
fi

# The paths the container uses: the command, the probe's binary, the config file's directory.
files="$binary $probe"
dirs="$(dirname "$config_path")"
if command -v podman >/dev/null && podman image exists "$image" 2>/dev/null &&
	CTR=$(podman create --quiet "$image" 2>/dev/null) && root=$(podman mount "$CTR" 2>/dev/null); then
	missing=
	for f in $files; do [ -x "$root$f" ] && [ -f "$root$f" ] || missing="$missing $f"; done
	for d in $dirs; do [ -d "$root$d" ] || missing="$missing $d/"; done
	id=$(podman image inspect --format '{{.Id}}' "$image" | cut -c1-12)
	if [ -z "$missing" ]; then
		pass "paths-in-image: $files $dirs/ in the image $image ($id)"
	else
		fail "paths-in-image: not in the image $image ($id):$missing"
	fi
	# The image's own agent, on its own libraries, with the ConfigMap's file where the
	# DaemonSet mounts it (the container's writable layer; the container is removed after).
	# chroot, not podman run: a runtime may be unusable where this runs (hybrid cgroups).
	# Root's and writable by root only, as the kubelet makes a ConfigMap's file (defaultMode
	# 0644); the agent refuses anything else (docs/operating.md "Safety").
	mkdir -p "$root$(dirname "$config_path")"
	cp "$cfg" "$root$config_path"
	chmod 0644 "$root$config_path"
	v=$(chroot "$root" "$binary" --version 2>&1)
	if out=$(chroot "$root" "$binary" --check-config --config "$config_path" 2>&1) && [ "$v" = "reclaimd $version" ]; then
		pass "image-runs: the image's $binary ($v) accepts $config_path"
	else
		fail "image-runs: the image's $binary: '$v'; --check-config: $(printf '%s\n' "$out" | tail -n 2 | tr '\n' ' ')"
	fi
else
	deb=build/reclaimd.deb
	[ -s "$deb" ] || make -s deb >/dev/null 2>&1
	if [ ! -s "$deb" ]; then
		fail "paths-in-image: no image $image and no $deb (make deb failed)"
		summary
	fi
	list=$(dpkg-deb -c "$deb" | awk '{ print $1, $NF }' | sed 's| \./| /|; s|/$||')
	missing=
	for f in $files; do printf '%s\n' "$list" | grep -q "^-rwx.* $f\$" || missing="$missing $f"; done
	for d in $dirs; do printf '%s\n' "$list" | grep -q "^d.* $d\$" || missing="$missing $d/"; done
	if [ -z "$missing" ]; then
		pass "paths-in-image: $files $dirs/ in the .deb's file list ($deb; no image $image: make image builds it)"
	else
		fail "paths-in-image: not in $deb:$missing"
	fi
	skip "image-runs: no image $image (make image builds it)"
fi
summary
