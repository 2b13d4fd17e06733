#!/bin/bash
# fetch-kernel.sh - provide a Debian kernel for the test VM: 6.12 (the default), 6.1 or 7.3.
#
# Kernel series and where each comes from (`apt-get download`, nothing is installed):
#   6.12  linux-image-6.12.*+deb12-amd64-unsigned   the machine's apt sources (bookworm-backports
#                                                   or -security); the default, `current`
#   6.1   linux-image-6.1.0-*-amd64-unsigned        the machine's apt sources (Debian 12's own)
#   7.3   linux-binary-7.3.*+deb13-amd64            trixie-backports through a private apt
#         + linux-modules-* + linux-base-*          configuration (below)
# The generic amd64 flavour every time: the cloud flavour has no zswap.
#
# Each is unpacked into tests/vm/.cache/kernel/<version>/:
#   vmlinux        ELF kernel, extracted from the zstd (6.12, 7.3) or xz (6.1) payload of vmlinuz
#                  (qemu boots an ELF through its PVH entry point)
#   config         the kernel's .config
#   modules/*.ko   the modules the VM needs, decompressed, with what they depend on
#   modules.order  module names in load order (dependencies first)
# and tests/vm/.cache/kernel/<series> (e.g. 6.1) points at it; for 6.12 `current` does too.
#
# Which modules: the VM needs the features in NEEDED below (virtio PCI transport and disks,
# ext4, zram, the compressors). For each, `modprobe --show-depends` on the unpacked tree (after
# `depmod -b`) gives the modules to load in order, including dependencies and soft dependencies
# (ext4's crc32c), or says the feature is built in, which differs from kernel to kernel (6.1 has
# virtio and virtio_pci as modules, 7.3 has lz4 built in and crc32c as crc32c-cryptoapi).
#
# trixie-backports is not in this machine's sources and they are never edited: an apt
# configuration of its own in tests/vm/.cache/apt-trixie-backports/ (sources.list, apt.conf,
# lists and cache directories), used through APT_CONFIG for `apt-get update` and
# `apt-get download` only. Its mirror is the Debian mirror the machine's sources name
# (RECLAIMD_VM_DEBIAN_MIRROR overrides it), signed by debian-archive-keyring.
#
# Idempotent: once a series is unpacked it is reused without asking apt, unless --update is
# given (then the newest available version of that series is used). As root it also installs
# the Debian packages in packages.txt that are missing (apt-get install); otherwise it only says
# what is missing.
#
# Usage: fetch-kernel.sh [--kernel SERIES] [--update] [--print-dir]
#   --kernel SERIES  6.1, 6.12 or 7.3 (default: $RECLAIMD_VM_KERNEL, else 6.12)
#   --print-dir      print the kernel's directory on stdout
# Environment:
#   RECLAIMD_VM_KERNEL      the series when --kernel is not given
#   RECLAIMD_VM_KERNEL_PKG  exact package to use for the series, e.g.
#                           linux-image-6.12.117+deb12-amd64-unsigned (7.3: the linux-binary-*
#                           package; its -modules- and -base- packages come along)
#   RECLAIMD_VM_MODULES     extra module names to include (space separated)
#   RECLAIMD_VM_DEBIAN_MIRROR  Debian mirror for trixie-backports (default: from /etc/apt)
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=$HERE/.cache
KDIR_ROOT=$CACHE/kernel
DEFAULT_SERIES=6.12

# What the VM needs, as module names that modprobe resolves (built in on some kernels):
# virtio_pci (the disks' PCI transport) and virtio_blk (swap, results and data disks); ext4,
# which also mounts ext2, for the data disk; zram; lz4 (zram's and zswap's compressor), lz4hc
# and zstd (crypto API compressors zswap can be switched to); virtio_net, for run.sh --hostfwd
# (make demo's Prometheus scrapes the agent through it).
NEEDED="virtio_pci virtio_blk ext4 zram lz4 lz4hc zstd virtio_net ${RECLAIMD_VM_MODULES:-}"

series=${RECLAIMD_VM_KERNEL:-}
update=0
print_dir=0
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=1 ;;
	--print-dir) print_dir=1 ;;
	--kernel)
		[ $# -ge 2 ] || { echo "fetch-kernel.sh: --kernel needs a value" >&2; exit 2; }
		series=$2
		shift
		;;
	--kernel=*) series=${1#*=} ;;
	-h | --help)
		sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "fetch-kernel.sh: unknown argument '$1'" >&2
		exit 2
		;;
	esac
	shift
done
series=${series:-$DEFAULT_SERIES}

log() { echo "fetch-kernel: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# Per series: the package name pattern (an extended regexp for apt-cache search) and the apt
# suite it comes from ("" = the machine's own sources).
case $series in
6.1)
	pkg_re='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$'
	suite=
	;;
6.12)
	pkg_re='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$'
	suite=
	;;
7.3)
	pkg_re='^linux-binary-7\.3\.[0-9]+\+deb13-amd64$'
	suite=trixie-backports
	;;
*) die "unknown kernel series '$series' (known: 6.1 6.12 7.3)" ;;
esac

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

# --- apt: the machine's sources, or a private configuration for another suite ---------------
# apt's download sandbox user (_apt) cannot write to our directories; root can.
apt_opts=()
[ "$(id -u)" -eq 0 ] && apt_opts=(-o APT::Sandbox::User=root)

# The Debian mirror the machine's sources name (deb822 URIs: or one-line deb entries).
debian_mirror() {
	local m=${RECLAIMD_VM_DEBIAN_MIRROR:-}
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
			grep -oE '(https?)://[^ ]+/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ')
	fi
	echo "${m:-http://deb.debian.org/debian}"
}

# Writes the private apt configuration for $suite and exports APT_CONFIG (call it in the main
# shell, not in $(...)); runs `apt-get update` on it when its lists are empty or $1 is 1.
private_apt() {
	local refresh=$1 dir=$CACHE/apt-$suite
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) $suite main" \
		>"$dir/sources.list"
	cat >"$dir/apt.conf" <<-EOF
		Dir::Etc::SourceList "$dir/sources.list";
		Dir::Etc::SourceParts "/dev/null";
		Dir::State::Lists "$dir/lists";
		Dir::Cache "$dir/cache";
		APT::Architectures { "amd64"; };
		Acquire::Languages "none";
	EOF
	export APT_CONFIG=$dir/apt.conf
	if [ "$refresh" -eq 1 ] || ! ls "$dir"/lists/*_Packages >/dev/null 2>&1; then
		log "apt-get update for $suite (private configuration $dir/apt.conf)"
		apt-get update -q "${apt_opts[@]}" >&2 || die "apt-get update of $suite failed"
	fi
}

has_candidate() {
	local c
	c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

# Newest package of the series that apt can download.
newest_kernel_pkg() {
	local pkg
	for pkg in $(apt-cache search --names-only "$pkg_re" | cut -d' ' -f1 | sort -rV); do
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
			if [ -n "$suite" ]; then
				private_apt 1
			elif [ "$(id -u)" -eq 0 ]; then
				apt-get update >&2
			fi
			has_candidate "$pkg" || die "apt has no package $pkg"
		}
		echo "$pkg"
		return 0
	fi
	newest_kernel_pkg && return 0
	if [ -n "$suite" ]; then
		private_apt 1
		newest_kernel_pkg || die "$suite has no package matching $pkg_re"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "apt knows no package matching $pkg_re (run apt-get update)"
	log "no $series kernel in the apt lists; running apt-get update"
	apt-get update >&2
	newest_kernel_pkg || die "apt has no package matching $pkg_re (is bookworm-security or bookworm-backports in sources?)"
}

# The packages to download for image package $1: itself, and from trixie on the modules and
# the base files (config, System.map, modules.builtin) of the same version.
pkgs_of() {
	case $1 in
	linux-binary-*) echo "$1 linux-modules-${1#linux-binary-} linux-base-${1#linux-binary-}" ;;
	*) echo "$1" ;;
	esac
}

# --- Unpacking ----------------------------------------------------------------

# Writes the ELF kernel inside bzImage $1 to $2. The payload is a zstd frame (6.12, 7.3) or an
# xz stream (6.1); the decompressor exits non-zero because of the bytes after it, so success is
# judged by the ELF magic of the output.
extract_vmlinux() {
	local bz=$1 out=$2 off magic fmt re
	for fmt in zstd xz; do
		case $fmt in
		zstd) re='\x28\xb5\x2f\xfd' ;;
		xz) re='\xfd\x37\x7a\x58\x5a\x00' ;;
		esac
		# Only the offsets reach `read`: the matched bytes are not valid UTF-8 and
		# bash's read can swallow the newline after them in a UTF-8 locale.
		while read -r off; do
			tail -c +$((off + 1)) "$bz" | "$fmt" -d -c 2>/dev/null >"$out" || true
			magic=$(head -c 4 "$out" | od -An -tx1 | tr -d ' \n')
			if [ "$magic" = 7f454c46 ]; then
				log "vmlinux: $fmt payload at offset $off"
				return 0
			fi
		done < <(LC_ALL=C grep -obUaP "$re" "$bz" | cut -d: -f1)
	done
	rm -f "$out"
	die "no zstd- or xz-compressed ELF found in $bz"
}

# Module name as the kernel sees it: basename without .ko*, '-' -> '_'.
modname() {
	local b=${1##*/}
	b=${b%%.ko*}
	echo "${b//-/_}"
}

# Resolves $NEEDED against the unpacked modules of kernel $kver under $base (which holds
# lib/modules/$kver): depmod, then modprobe --show-depends for each, which lists the modules to
# insmod in order (dependencies and soft dependencies first) or says "builtin". Decompresses
# them into $dest/modules and writes $dest/modules.order (each name once, in load order).
install_modules() {
	local base=$1 kver=$2 dest=$3 name line f m out
	declare -A seen=()
	local order=() builtin=()
	depmod -b "$base" "$kver" 2>/dev/null || die "depmod -b $base $kver failed"
	mkdir -p "$dest/modules"
	for name in $NEEDED; do
		out=$(modprobe -d "$base" -S "$kver" --show-depends "$name" 2>&1) ||
			die "module $name: $out"
		while read -r line; do
			case $line in
			"builtin "*)
				builtin+=("${line#builtin }")
				;;
			"insmod "*)
				f=${line#insmod }
				f=${f%% *}
				m=$(modname "$f")
				[ -n "${seen[$m]:-}" ] && continue
				seen[$m]=1
				case $f in
				*.xz) xz -dc "$f" >"$dest/modules/$m.ko" ;;
				*.zst) zstd -dcq "$f" >"$dest/modules/$m.ko" ;;
				*) cp "$f" "$dest/modules/$m.ko" ;;
				esac
				order+=("$m")
				;;
			esac
		done <<<"$out"
	done
	[ ${#builtin[@]} -gt 0 ] && log "built in: ${builtin[*]}"
	printf '%s\n' "${order[@]}" >"$dest/modules.order"
}

# --- Main ---------------------------------------------------------------------
ensure_packages

stamp_want="modules=$(echo "$NEEDED" | tr -s ' ' | sed 's/^ //; s/ $//')"
link=$KDIR_ROOT/$series
# The default series keeps its historical name: `current` is the 6.12 kernel.
[ "$series" = "$DEFAULT_SERIES" ] && [ ! -e "$link" ] && [ -e "$KDIR_ROOT/current" ] &&
	ln -sfn "$(readlink "$KDIR_ROOT/current")" "$link"
if [ "$update" -eq 0 ] && [ -z "${RECLAIMD_VM_KERNEL_PKG:-}" ] && [ -f "$link/STAMP" ] &&
	grep -qxF "$stamp_want" "$link/STAMP"; then
	[ "$print_dir" -eq 1 ] && readlink -f "$link"
	exit 0
fi

# set_links VERSION: points the series (and, for the default series, `current`) at VERSION.
set_links() {
	ln -sfn "$1" "$link"
	[ "$series" = "$DEFAULT_SERIES" ] && ln -sfn "$1" "$KDIR_ROOT/current"
	return 0
}

# In this shell, so that APT_CONFIG holds for the download too.
[ -n "$suite" ] && private_apt "$update"
pkg=$(choose_pkg)
ver=${pkg#linux-image-}
ver=${ver#linux-binary-}
ver=${ver%-unsigned}
kdir=$KDIR_ROOT/$ver
if [ -f "$kdir/STAMP" ] && grep -qxF "$stamp_want" "$kdir/STAMP"; then
	set_links "$ver"
	log "using cached $pkg"
	[ "$print_dir" -eq 1 ] && echo "$kdir"
	exit 0
fi

mkdir -p "$KDIR_ROOT"
tmp=$(mktemp -d "$CACHE/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046 # one word per package
set -- $(pkgs_of "$pkg")
log "downloading $*"
(cd "$tmp" && apt-get download -q "${apt_opts[@]}" "$@" >&2)
debs=()
for d in "$tmp"/*.deb; do
	log "unpacking $(basename "$d")"
	dpkg-deb -x "$d" "$tmp/root"
	debs+=("$(basename "$d")")
done

# Up to 6.12 the image lives in /boot and the modules in /lib/modules; from trixie on all of it
# is under /usr/lib/modules/<version>/.
if [ -d "$tmp/root/lib/modules/$ver" ]; then
	base=$tmp/root
	vmlinuz=$tmp/root/boot/vmlinuz-$ver
	config=$tmp/root/boot/config-$ver
else
	base=$tmp/root/usr
	vmlinuz=$base/lib/modules/$ver/vmlinuz
	config=$base/lib/modules/$ver/config
fi
[ -d "$base/lib/modules/$ver" ] || die "no modules for $ver in $*"
[ -f "$vmlinuz" ] || die "no vmlinuz for $ver in $*"
[ -f "$config" ] || die "no config for $ver in $*"

new=$tmp/kernel
mkdir -p "$new"
extract_vmlinux "$vmlinuz" "$new/vmlinux"
cp "$config" "$new/config"
install_modules "$base" "$ver" "$new"
{
	echo "series=$series"
	echo "package=$pkg"
	echo "deb=${debs[*]}"
	echo "$stamp_want"
} >"$new/STAMP"

rm -rf "$kdir"
mv "$new" "$kdir"
set_links "$ver"
log "kernel $ver ready in $kdir (modules: $(paste -sd' ' "$kdir/modules.order"))"
[ "$print_dir" -eq 1 ] && echo "$kdir"
exit 0
