#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qpu: the debug kernel's build and cache. Owns turning Debian's
# linux-source-6.1 and selftests/debug/debug.config into a bzImage and a
# kernel build directory that qpu.ko can be built against (make -C <kdir>
# M=...), cached outside the repository under
#   ${QPU_CACHE:-${XDG_CACHE_HOME:-~/.cache}/qpu}/debug-kernel/<key>/
# where <key> is the sha256 of debug.config and the source tarball's name
# and size: the kernel is rebuilt only when one of them changes. Without
# HOME (cron, a bare `env -i`), ~ is the user's home in the passwd database.
#
# Usage: build-kernel.sh dir      print the kernel build directory (no build)
#        build-kernel.sh build    build unless cached; print the paths
#        build-kernel.sh image    print the bzImage path (after build)
# Environment: JOBS (default 2), NICE (default 10), KERNEL_TARBALL.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/debug.config
tarball=${KERNEL_TARBALL:-$(find /usr/src -maxdepth 1 -name 'linux-source-6.1.tar.*' | sort | tail -n 1)}
jobs=${JOBS:-2}
niceness=${NICE:-10}

die() {
	echo "build-kernel.sh: $*" >&2
	exit 1
}

[ -n "$tarball" ] || tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] ||
	die "no $tarball: install package linux-source-6.1"
[ -r "$fragment" ] || die "no $fragment"

home=${HOME:-}
[ -n "$home" ] || home=$(getent passwd "$(id -u)" | cut -d: -f6) || home=
if [ -z "${QPU_CACHE:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ] && [ -z "$home" ]; then
	die "no home directory for the kernel cache: set QPU_CACHE=<dir>"
fi
cache_root=${QPU_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/qpu}/debug-kernel
key=$({
	cat "$fragment"
	printf '%s %s\n' "${tarball##*/}" "$(stat -c %s "$tarball")"
} | sha256sum | cut -c1-16)
dir=$cache_root/$key
src=$dir/linux
image=$src/arch/x86/boot/bzImage

report() {
	echo "debug kernel: $(cat "$src/include/config/kernel.release")"
	echo "  image $image"
	echo "  kdir  $src"
	echo "  log   $dir/build.log"
}

build() {
	mkdir -p "$dir"
	exec 9>"$dir/.lock"
	flock 9
	if [ -e "$dir/.done" ] && [ -r "$image" ]; then
		report
		return 0
	fi
	local start
	start=$(date +%s)
	echo "build-kernel.sh: building the debug kernel in $dir (log $dir/build.log; ~tens of minutes on 2 cores)"
	if [ ! -e "$src/.extracted" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		nice -n "$niceness" tar -xf "$tarball" -C "$src" --strip-components=1
		touch "$src/.extracted"
	fi
	local mk=(nice -n "$niceness" make -C "$src" ARCH=x86_64 -j"$jobs")
	{
		"${mk[@]}" tinyconfig
		(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m .config "$fragment")
		"${mk[@]}" olddefconfig
	} >"$dir/build.log" 2>&1 || die "configuration failed: see $dir/build.log"
	# Every option the fragment sets must have survived olddefconfig.
	local missing=0 line
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$src/.config" || {
				echo "build-kernel.sh: $line did not survive olddefconfig (a dependency is missing)" >&2
				missing=1
			}
			;;
		esac
	done <"$fragment"
	[ "$missing" = 0 ] || die "fix $fragment"
	# "all": vmlinux, bzImage, (no) modules and Module.symvers, which an
	# external module build (M=) needs for modpost.
	"${mk[@]}" all >>"$dir/build.log" 2>&1 ||
		die "the kernel build failed: see the end of $dir/build.log"
	[ -r "$image" ] || die "no $image after the build"
	touch "$dir/.done"
	echo "build-kernel.sh: built in $(($(date +%s) - start)) s"
	report
}

case "${1:-}" in
dir) echo "$src" ;;
image) echo "$image" ;;
build) build ;;
*) die "usage: build-kernel.sh dir|image|build" ;;
esac
