#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the demo need (tests/packages.txt and
# tests/vm/packages.txt). As root it runs apt-get; otherwise it prints the exact command.
set -eu
cd "$(dirname "$0")/.."

mapfile -t wanted < <(cat tests/packages.txt tests/vm/packages.txt 2>/dev/null | sed 's/#.*//' | awk 'NF' | sort -u)
missing=()
for p in "${wanted[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "reclaimd needs these Debian packages; as root run:" >&2
	echo "  apt-get update && $cmd" >&2
	exit 1
fi
echo "make deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends ${missing[*]} >/dev/null
