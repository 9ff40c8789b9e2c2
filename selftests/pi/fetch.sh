#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetches and unpacks the Debian packages the Pi targets need, once: the
# kernel headers of the armel `rpi` and the arm64 flavours, the rpi kernel
# image (with its DTBs) and the armel busybox. Everything comes from Debian's
# archive through apt-get download and is unpacked with dpkg -x into a cache
# keyed by the kernel ABI (or the busybox version), so a second run, a
# `make clean` or a fresh clone on the same machine downloads nothing. The
# ABI is the newest 6.1 one apt knows for the architecture; apt-get update
# runs only when the armel/arm64 lists are missing (or PI_REFRESH=1), since
# that is the one step that needs root. The headers use the host's kbuild
# tools, except modpost, which is built for the target (see build_modpost).
#
# usage: fetch.sh CACHE headers rpi-armel|arm64   -> prints the kernel build dir
#        fetch.sh CACHE image ABI                  -> prints the rpi image root
#        fetch.sh CACHE busybox                    -> prints the busybox binary
set -euo pipefail

KSERIES=6.1
KBUILD_HOST=/usr/lib/linux-kbuild-$KSERIES

die() {
	echo "selftests/pi: $*" >&2
	exit 1
}

# flavour -> Debian architecture and kernel flavour name
flavour_arch() {
	case "$1" in
	rpi-armel) echo armel ;;
	arm64) echo arm64 ;;
	*) die "unknown flavour '$1' (rpi-armel or arm64)" ;;
	esac
}

flavour_kflavour() {
	case "$1" in
	rpi-armel) echo rpi ;;
	arm64) echo arm64 ;;
	*) die "unknown flavour '$1' (rpi-armel or arm64)" ;;
	esac
}

# make_args FLAVOUR: kbuild's ARCH and CROSS_COMPILE for the flavour
make_args() {
	case "$1" in
	rpi-armel) echo "ARCH=arm CROSS_COMPILE=arm-linux-gnueabi-" ;;
	arm64) echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;;
	*) die "unknown flavour '$1' (rpi-armel or arm64)" ;;
	esac
}

# has_candidate PKG:ARCH: apt knows an installable version of it
has_candidate() {
	local policy

	policy=$(apt-cache policy "$1" 2>/dev/null)
	[[ $policy == *"Candidate: "[^\(]* ]]
}

# memo KEY FUNC ARGS...: FUNC's output, computed again only when apt's
# lists changed since it was stored (apt-cache takes seconds per call here).
memo() {
	local file=$CACHE/.memo-$1
	shift

	if [ -s "$file" ] &&
		[ -z "$(find /var/lib/apt/lists -maxdepth 1 -newer "$file" -print -quit)" ]; then
		cat "$file"
		return 0
	fi
	"$@" >"$file.new" || { rm -f "$file.new"; return 1; }
	mv "$file.new" "$file"
	cat "$file"
}

# candidate PKG:ARCH: the version apt would install
candidate() {
	apt-cache policy "$1" | sed -n 's/^  Candidate: //p'
}

# The armel and arm64 lists must be there; adding them is the only step
# that needs root.
ensure_lists() {
	local a missing=0

	for a in armel arm64; do
		[[ $'\n'$(dpkg --print-foreign-architectures)$'\n' == *$'\n'$a$'\n'* ]] ||
			missing=1
		compgen -G "/var/lib/apt/lists/*_binary-${a}_Packages*" >/dev/null ||
			missing=1
	done
	[ "$missing" = 0 ] && [ "${PI_REFRESH:-0}" != 1 ] && return 0

	[ "$(id -u)" = 0 ] ||
		die "the armel/arm64 package lists are missing or a refresh was asked for, and that needs root: run 'dpkg --add-architecture armel; dpkg --add-architecture arm64; apt-get update' as root, or this make target as root"
	echo "selftests/pi: adding architectures armel, arm64 and updating apt lists" >&2
	dpkg --add-architecture armel
	dpkg --add-architecture arm64
	apt-get update -q >&2 || die "apt-get update failed"
}

# newest_abi FLAVOUR: newest 6.1 ABI with headers for the flavour's arch
newest_abi() {
	local arch kfl pkg

	arch=$(flavour_arch "$1")
	kfl=$(flavour_kflavour "$1")
	for pkg in $(apt-cache search --names-only \
		"^linux-headers-${KSERIES//./\\.}\\.0-[0-9]+-${kfl}\$" |
		cut -d' ' -f1 | sort -rV); do
		if has_candidate "$pkg:$arch"; then
			echo "${pkg#linux-headers-}"
			return 0
		fi
	done
	die "no linux-headers-$KSERIES.0-*-$kfl:$arch package known to apt"
}

# unpack DEST PKG...: download the packages and dpkg -x them into DEST/root.
# DEST counts only once DEST/.complete exists (the caller's last step), so
# an interrupted run is redone from scratch.
unpack() {
	local dest=$1 debs deb
	shift

	rm -rf "$dest"
	mkdir -p "$dest/root"
	# a scratch dir apt's sandbox user can write (the cache may sit in a
	# home it cannot enter)
	debs=$(mktemp -d "${TMPDIR:-/tmp}/qpu-pi-debs.XXXXXX")
	if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then
		chown _apt "$debs"
	fi
	echo "selftests/pi: downloading $*" >&2
	if ! (cd "$debs" && apt-get download -q "$@" >&2); then
		rm -rf "$debs"
		die "apt-get download $* failed"
	fi
	for deb in "$debs"/*.deb; do
		dpkg -x "$deb" "$dest/root"
	done
	rm -rf "$debs"
}

# build_modpost DIR KDIR FLAVOUR: DIR/kbuild/scripts, the host's kbuild
# scripts with a modpost built for the target. Debian's host modpost reads
# 32-bit objects but knows only the host's device-table layout (sizeof(struct
# of_device_id) is 200 on amd64, 196 on arm), so it rejects any armel module
# with a MODULE_DEVICE_TABLE. Kbuild itself builds the right one from
# linux-source's scripts/mod, taking the offsets from the cross compiler.
build_modpost() {
	local dir=$1 kdir=$2 flavour=$3 tarball=/usr/src/linux-source-$KSERIES.tar.xz
	local work=$dir/modpost-src

	[ -f "$tarball" ] ||
		die "$tarball is missing: apt-get install linux-source-$KSERIES"
	mkdir -p "$work"
	tar -xJf "$tarball" -C "$work" --strip-components=1 \
		"linux-source-$KSERIES/scripts/mod" \
		"linux-source-$KSERIES/include/linux/license.h" \
		"linux-source-$KSERIES/include/linux/mod_devicetable.h"
	# shellcheck disable=SC2046 # the flavour's make arguments are words
	make -s -C "$kdir" M="$work/scripts/mod" $(make_args "$flavour") modules >&2 ||
		die "building modpost for $flavour failed"
	mkdir -p "$dir/kbuild"
	cp -a "$KBUILD_HOST/scripts" "$dir/kbuild/scripts"
	rm -f "$dir"/kbuild/scripts/mod/modpost*
	cp "$work/scripts/mod/modpost" "$dir/kbuild/scripts/mod/modpost"
	rm -rf "$work"
}

fetch_headers() {
	local flavour=$1 arch abi dest kdir src
	abi=$(memo "abi-$flavour" newest_abi "$flavour")
	arch=$(flavour_arch "$flavour")
	dest=$CACHE/headers-$abi
	kdir=$dest/root/usr/src/linux-headers-$abi

	if [ ! -e "$dest/.complete" ]; then
		[ -d "$KBUILD_HOST/scripts" ] ||
			die "$KBUILD_HOST is missing: apt-get install linux-kbuild-$KSERIES"
		unpack "$dest" "linux-headers-$abi:$arch" \
			"linux-headers-${abi%-*}-common"
		src=$dest/root/usr/src
		# the flavour's Makefile includes the common tree by its
		# absolute installed path: point it into the cache instead
		sed -i "s|^include /usr/src/|include $dest/root/usr/src/|" \
			"$src/linux-headers-$abi/Makefile"
		# host-built kbuild tools instead of the target's binaries
		for d in "$src/linux-headers-$abi" "$src/linux-headers-${abi%-*}-common"; do
			ln -sfn "$KBUILD_HOST/scripts" "$d/scripts"
			ln -sfn "$KBUILD_HOST/tools" "$d/tools"
		done
		build_modpost "$dest" "$src/linux-headers-$abi" "$flavour"
		for d in "$src/linux-headers-$abi" "$src/linux-headers-${abi%-*}-common"; do
			ln -sfn "$dest/kbuild/scripts" "$d/scripts"
		done
		touch "$dest/.complete"
	fi
	[ -f "$kdir/include/generated/utsrelease.h" ] || die "$kdir is not a kernel build dir"
	echo "$kdir"
}

fetch_image() {
	local abi=$1 dest

	dest=$CACHE/image-$abi
	if [ ! -e "$dest/.complete" ]; then
		has_candidate "linux-image-$abi:armel" ||
			die "linux-image-$abi:armel is not known to apt (headers and image must share the ABI)"
		unpack "$dest" "linux-image-$abi:armel"
		touch "$dest/.complete"
	fi
	echo "$dest/root"
}

fetch_busybox() {
	local ver dest

	ver=$(memo busybox-version candidate busybox-static:armel)
	case "$ver" in
	"" | "(none)") die "busybox-static:armel is not known to apt" ;;
	esac
	dest=$CACHE/busybox-${ver//[^A-Za-z0-9.+-]/_}
	if [ ! -e "$dest/.complete" ]; then
		unpack "$dest" "busybox-static:armel=$ver"
		touch "$dest/.complete"
	fi
	[ -x "$dest/root/bin/busybox" ] || die "$dest/root/bin/busybox is missing"
	echo "$dest/root/bin/busybox"
}

[ $# -ge 2 ] || die "usage: fetch.sh CACHE headers FLAVOUR | image ABI | busybox"
CACHE=$1
what=$2
mkdir -p "$CACHE"
command -v apt-get >/dev/null || die "apt-get not found (Debian host needed)"

# one fetcher at a time: parallel make jobs share apt and the cache
exec 9>"$CACHE/.lock"
flock 9
ensure_lists

case "$what" in
headers) [ $# = 3 ] || die "usage: fetch.sh CACHE headers FLAVOUR"; fetch_headers "$3" ;;
image) [ $# = 3 ] || die "usage: fetch.sh CACHE image ABI"; fetch_image "$3" ;;
busybox) fetch_busybox ;;
*) die "unknown item '$what'" ;;
esac
