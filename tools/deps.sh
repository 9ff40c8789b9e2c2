#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs the Debian 12 packages a make target needs, and nothing when they
# are all there already. Usage: deps.sh GROUP... (build lint vm pi python netlink
# xnnpack pyvideocore pyvideocore-v3d man m32 fleet debug all)
# Needs root to install; otherwise it prints the command to run and fails.
set -euo pipefail

declare -A groups=(
	[build]="build-essential pkg-config linux-headers-amd64 libnl-3-dev libnl-genl-3-dev libdrm-dev"
	[lint]="linux-source-6.1 sparse"
	[vm]="qemu-system-x86 busybox-static cpio linux-image-amd64 linux-headers-amd64 linux-source-6.1"
	[pi]="gcc-arm-linux-gnueabi libc6-dev-armel-cross gcc-aarch64-linux-gnu qemu-system-arm cpio device-tree-compiler linux-kbuild-6.1 linux-source-6.1"
	[python]="python3 python3-numpy python3-pytest python3-build python3-setuptools python3-wheel python3-onnx"
	[netlink]="libnl-3-dev libnl-genl-3-dev"
	# make check-thirdparty PYVIDEOCORE_SRC=DIR: PyVideoCore's suite imports
	# nose.tools beside pytest
	[pyvideocore]="python3 python3-numpy python3-pytest python3-nose"
	# py-videocore6/7's suites on the simulated v3d nodes (run by hand,
	# kmod/v3d_sim/README.md): py-videocore7's tests import hypothesis
	[pyvideocore-v3d]="python3 python3-numpy python3-pytest python3-hypothesis"
	# make bench-nn-xnnpack: the CPU backend's layers against XNNPACK (whose
	# header includes pthreadpool's)
	[xnnpack]="libxnnpack-dev libpthreadpool-dev"
	# the man pages' check (selftests/lib/test-man.sh): man --warnings, groff
	[man]="man-db groff"
	# make check-m32: libqpu and its emulator tests built with gcc -m32, run
	# by qemu-user's qemu-i386 where the kernel runs no 32-bit program.
	# gcc-12-multilib, not gcc-multilib: Debian 12's gcc-multilib conflicts
	# with the cross compilers of the pi group, and apt would remove them.
	[m32]="gcc-12-multilib libc6-dev-i386 qemu-user"
	# make deb and check-deb (tools/debian/deb.mk): debhelper and what
	# debian/control's Build-Depends names, for amd64 and the two cross
	# builds (Debian's cross toolchains; the target's libnl and pkgconf,
	# which brings <triplet>-pkg-config, through multiarch); lintian; dkms
	# (check-deb builds qpu-dkms's source with it); qemu-user runs an
	# arm64 tool; python3-numpy is python3-qpu's dependency; the fleet
	# tools' libmosquitto-dev and mpi-default-dev, native only (the cross
	# builds use the profile nofleet: tools/debian/rules).
	[deb]="debhelper dh-dkms dh-python python3 python3-numpy dpkg-dev fakeroot lintian dkms device-tree-compiler pkgconf libnl-3-dev libnl-genl-3-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross libnl-3-dev:arm64 libnl-genl-3-dev:arm64 pkgconf:arm64 gcc-arm-linux-gnueabihf libc6-dev-armhf-cross libnl-3-dev:armhf libnl-genl-3-dev:armhf pkgconf:armhf qemu-user man-db groff libmosquitto-dev mpi-default-dev"
	# make check-debug, complete on its own (selftests/debug/debug.mk):
	#   linux-source-6.1  the debug kernel's source, the kselftest harness
	#   xz-utils          unpacks it
	#   build-essential   gcc, make, binutils; libc6-dev's libc.a links the
	#                     static test programs, linux-libc-dev brings their
	#                     <linux/netlink.h> (no libnl: they use raw sockets)
	#   flex bison        the kernel's kconfig lexer and parser
	#   bc                kernel/time's timeconst.h
	#   libelf-dev        objtool, which CONFIG_UNWINDER_ORC runs
	#   qemu-system-x86 busybox-static cpio   the VM (selftests/vm/run-vm.sh)
	#   kmod              modinfo: run-vm.sh's check that qpu.ko fits the kernel
	# debug.config needs no more: no BTF (pahole), no module signing or
	# trusted keys (openssl headers), gzip only (no zstd/lz4), and neither
	# python3 (clang LTO) nor rsync (headers_install) is in its build.
	# qpu-fleet, the MQTT publisher of the boards (tools/fleet: libmosquitto,
	# and the broker its test starts) and qpu-batch, the batches spread over
	# boards with Open MPI (mpicc, mpirun)
	[fleet]="mosquitto libmosquitto-dev openmpi-bin libopenmpi-dev"
	[debug]="linux-source-6.1 xz-utils build-essential flex bison bc libelf-dev qemu-system-x86 busybox-static cpio kmod"
)

want=()
for group in "$@"; do
	if [ "$group" = all ]; then
		for g in "${!groups[@]}"; do
			read -ra pkgs <<<"${groups[$g]}"
			want+=("${pkgs[@]}")
		done
	elif [ -n "${groups[$group]:-}" ]; then
		read -ra pkgs <<<"${groups[$group]}"
		want+=("${pkgs[@]}")
	else
		echo "deps.sh: unknown group '$group' (known: ${!groups[*]} all)" >&2
		exit 2
	fi
done

missing=() arches=()
native=$(dpkg --print-architecture)
for pkg in $(printf '%s\n' "${want[@]}" | sort -u); do
	# One line per installed architecture of the name: a name without
	# :ARCH means the native one (or arch all).
	case $pkg in
	*:*) want_arch=${pkg##*:} ;;
	*) want_arch=$native ;;
	esac
	dpkg-query -W -f='${Architecture} ${db:Status-Status}\n' "$pkg" 2>/dev/null |
		grep -qE "^($want_arch|all) installed$" || missing+=("$pkg")
	case $pkg in *:*) arches+=("${pkg##*:}") ;; esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "deps.sh: as root, run: apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
for arch in $(printf '%s\n' "${arches[@]}" | sort -u); do
	[ "$arch" = "$native" ] ||
		dpkg --print-foreign-architectures | grep -qx "$arch" ||
		dpkg --add-architecture "$arch"
done
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
