#!/bin/bash
# fetch-kernel.sh - provide the Debian 6.12 kernel that the test VM boots.
#
# Downloads linux-image-6.12.*+deb12-amd64-unsigned (the generic amd64 flavour:
# the cloud flavour has no zswap) with `apt-get download`, which needs no
# installation, and unpacks into tests/vm/.cache/kernel/<version>/:
#   vmlinux        ELF kernel, extracted from the zstd payload of vmlinuz
#                  (qemu boots an ELF through its PVH entry point)
#   config         the kernel's .config
#   modules/*.ko   the modules the VM needs, decompressed, plus dependencies
#   modules.order  module names in load order (dependencies first)
# and points tests/vm/.cache/kernel/current at it.
#
# Idempotent: once a kernel is unpacked it is reused without asking apt,
# unless --update is given (then the newest available version is used).
# As root it also installs the Debian packages in packages.txt that are
# missing (apt-get install); otherwise it only says what is missing.
#
# Usage: fetch-kernel.sh [--update] [--print-dir]
# Environment:
#   RECLAIMD_VM_KERNEL_PKG  exact package to use, e.g.
#                           linux-image-6.12.117+deb12-amd64-unsigned
#   RECLAIMD_VM_MODULES     extra module names to include (space separated)
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=$HERE/.cache
KDIR_ROOT=$CACHE/kernel

# zram needs lz4_compress and lz4hc_compress; lz4, lz4hc and zstd are crypto
# API compressors that zswap can be switched to; ext4 (which also mounts
# ext2) serves the data disk; crc32c_generic is ext4's soft dependency.
# Everything virtio except virtio_blk is built in.
MODULES="virtio_blk zram lz4 lz4hc zstd crc32c_generic ext4 ${RECLAIMD_VM_MODULES:-}"

update=0
print_dir=0
for arg in "$@"; do
	case $arg in
	--update) update=1 ;;
	--print-dir) print_dir=1 ;;
	-h | --help)
		sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "fetch-kernel.sh: unknown argument '$arg'" >&2
		exit 2
		;;
	esac
done

log() { echo "fetch-kernel: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# --- Host packages -----------------------------------------------------------
ensure_packages() {
	local missing=() pkg
	while read -r pkg; do
		case $pkg in '' | '#'*) continue ;; esac
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
			missing+=("$pkg")
		fi
	done <"$HERE/packages.txt"
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages: ${missing[*]} (run: sudo apt-get install ${missing[*]})"
	fi
	log "installing ${missing[*]}"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
		apt-get update >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
	fi
}

# --- Which kernel -------------------------------------------------------------
has_candidate() {
	local c
	c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

# Newest linux-image-6.12.N+deb12-amd64-unsigned that apt can download.
newest_kernel_pkg() {
	local pkg
	for pkg in $(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		cut -d' ' -f1 | sort -rV); do
		if has_candidate "$pkg"; then
			echo "$pkg"
			return 0
		fi
	done
	return 1
}

choose_pkg() {
	local pkg=${RECLAIMD_VM_KERNEL_PKG:-}
	if [ -n "$pkg" ]; then
		has_candidate "$pkg" || {
			[ "$(id -u)" -eq 0 ] && apt-get update >&2
			has_candidate "$pkg" || die "apt has no package $pkg"
		}
		echo "$pkg"
		return 0
	fi
	if ! newest_kernel_pkg; then
		[ "$(id -u)" -eq 0 ] || die "apt knows no linux-image-6.12.*+deb12-amd64-unsigned (run apt-get update)"
		log "no 6.12 kernel in the apt lists; running apt-get update"
		apt-get update >&2
		newest_kernel_pkg || die "apt has no linux-image-6.12.*+deb12-amd64-unsigned (is bookworm-security or bookworm-backports in sources?)"
	fi
}

# --- Unpacking ----------------------------------------------------------------

# Writes the ELF kernel inside bzImage $1 to $2. The payload is a zstd frame;
# zstd exits non-zero because of the bytes after the frame, so success is
# judged by the ELF magic of the output.
extract_vmlinux() {
	local bz=$1 out=$2 off magic
	# Only the offsets reach `read`: the matched bytes are not valid UTF-8 and
	# bash's read can swallow the newline after them in a UTF-8 locale.
	while read -r off; do
		tail -c +$((off + 1)) "$bz" | zstd -d -c 2>/dev/null >"$out" || true
		magic=$(head -c 4 "$out" | od -An -tx1 | tr -d ' \n')
		if [ "$magic" = 7f454c46 ]; then
			return 0
		fi
	done < <(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$bz" | cut -d: -f1)
	rm -f "$out"
	die "no zstd-compressed ELF found in $bz"
}

# Module name as the kernel sees it: basename without .ko*, '-' -> '_'.
modname() {
	local b=${1##*/}
	b=${b%%.ko*}
	echo "${b//-/_}"
}

# Resolves $MODULES and their dependencies (depends= in .modinfo) against the
# unpacked tree $1, decompresses them into $2/modules and writes $2/modules.order.
install_modules() {
	local tree=$1 dest=$2 f name
	declare -A path=() seen=()
	local order=()
	while IFS= read -r f; do
		path[$(modname "$f")]=$f
	done < <(find "$tree" -name '*.ko.xz' -o -name '*.ko')

	mkdir -p "$dest/modules"
	add_module() {
		local m=$1 deps d
		[ -n "${seen[$m]:-}" ] && return 0
		if [ -z "${path[$m]:-}" ]; then
			if grep -q "/${m//_/[-_]}\.ko\$" "$tree"/lib/modules/*/modules.builtin 2>/dev/null; then
				log "module $m is built in"
				seen[$m]=builtin
				return 0
			fi
			die "module $m not found in the kernel package"
		fi
		seen[$m]=pending
		case ${path[$m]} in
		*.xz) xz -dc "${path[$m]}" >"$dest/modules/$m.ko" ;;
		*) cp "${path[$m]}" "$dest/modules/$m.ko" ;;
		esac
		deps=$(tr '\0' '\n' <"$dest/modules/$m.ko" | sed -n 's/^depends=//p' | head -n1)
		for d in ${deps//,/ }; do
			add_module "${d//-/_}"
		done
		order+=("$m")
		seen[$m]=yes
	}
	for name in $MODULES; do
		add_module "${name//-/_}"
	done
	printf '%s\n' "${order[@]}" >"$dest/modules.order"
}

# --- Main ---------------------------------------------------------------------
ensure_packages

stamp_want="modules=$(echo "$MODULES" | tr -s ' ' | sed 's/^ //; s/ $//')"
current=$KDIR_ROOT/current
if [ "$update" -eq 0 ] && [ -z "${RECLAIMD_VM_KERNEL_PKG:-}" ] && [ -f "$current/STAMP" ] &&
	grep -qxF "$stamp_want" "$current/STAMP"; then
	[ "$print_dir" -eq 1 ] && readlink -f "$current"
	exit 0
fi

pkg=$(choose_pkg)
ver=${pkg#linux-image-}
ver=${ver%-unsigned}
kdir=$KDIR_ROOT/$ver
if [ -f "$kdir/STAMP" ] && grep -qxF "$stamp_want" "$kdir/STAMP"; then
	ln -sfn "$ver" "$current"
	log "using cached $pkg"
	[ "$print_dir" -eq 1 ] && echo "$kdir"
	exit 0
fi

mkdir -p "$KDIR_ROOT"
tmp=$(mktemp -d "$CACHE/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log "downloading $pkg"
(
	cd "$tmp"
	if [ "$(id -u)" -eq 0 ]; then
		# apt's download sandbox user (_apt) cannot write here; root can.
		apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2
	else
		apt-get download -q "$pkg" >&2
	fi
)
deb=$(ls "$tmp"/*.deb)
log "unpacking $(basename "$deb")"
dpkg-deb -x "$deb" "$tmp/root"

new=$tmp/kernel
mkdir -p "$new"
extract_vmlinux "$(ls "$tmp"/root/boot/vmlinuz-*)" "$new/vmlinux"
cp "$(ls "$tmp"/root/boot/config-*)" "$new/config"
install_modules "$tmp/root" "$new"
{
	echo "package=$pkg"
	echo "deb=$(basename "$deb")"
	echo "$stamp_want"
} >"$new/STAMP"

rm -rf "$kdir"
mv "$new" "$kdir"
ln -sfn "$ver" "$current"
log "kernel $ver ready in $kdir (modules: $(paste -sd' ' "$kdir/modules.order"))"
[ "$print_dir" -eq 1 ] && echo "$kdir"
exit 0
