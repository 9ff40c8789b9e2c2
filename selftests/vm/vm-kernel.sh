#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qpu: which kernel the VM boots. Owns reading a kernel image's release and
# checking that the image and the headers qpu.ko is built against are the
# same kernel (a module for another ABI does not load).
#
#   vm-kernel.sh release <bzImage>          print the image's release
#   vm-kernel.sh check <bzImage> <kdir>     fail unless both are one kernel
set -euo pipefail

die() {
	echo "vm-kernel.sh: $*" >&2
	exit 1
}

# The x86 boot header: "HdrS" at 0x202; the 16-bit field at 0x20e points
# (relative to 0x200) at a NUL-terminated "<release> (<builder>) #<n> ..."
# string. See Documentation/x86/boot.rst.
image_release() {
	local img=$1 magic off
	[ -r "$img" ] || die "cannot read kernel image '$img'"
	magic=$(od -An -c -j 514 -N 4 "$img" | tr -d ' ')
	[ "$magic" = HdrS ] || die "'$img' is not an x86 bzImage (no HdrS header)"
	off=$(od -An -tu2 -j 526 -N 2 "$img" | tr -d ' ')
	if [ -z "$off" ] || [ "$off" -eq 0 ]; then
		die "'$img' has no kernel_version field"
	fi
	dd if="$img" bs=1 skip=$((off + 512)) count=128 status=none |
		tr '\0' '\n' | head -n 1 | cut -d ' ' -f 1
}

headers_release() {
	local kdir=$1
	[ -d "$kdir" ] || die "kernel headers '$kdir' do not exist"
	# UTS_RELEASE, not include/config/kernel.release: Debian's headers
	# have 6.1.<n> there but build modules with vermagic 6.1.0-<abi>-amd64.
	local h=$kdir/include/generated/utsrelease.h
	[ -r "$h" ] || die "'$kdir' is not a prepared kernel build directory (no $h)"
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$h"
}

case "${1:-}" in
release)
	[ $# -eq 2 ] || die "usage: vm-kernel.sh release <bzImage>"
	image_release "$2"
	;;
check)
	[ $# -eq 3 ] || die "usage: vm-kernel.sh check <bzImage> <kdir>"
	hint="install matching images and headers (packages linux-image-amd64 and linux-headers-amd64: 'make deps'), or choose a pair with VM_KERNEL=<image> VM_KDIR=<kernel build dir>"
	[ -n "$2" ] || die "no VM kernel image (/boot/vmlinuz-6.1.*-amd64): $hint"
	[ -n "$3" ] || die "no kernel headers (/usr/src/linux-headers-6.1.*-amd64): $hint"
	img_rel=$(image_release "$2")
	hdr_rel=$(headers_release "$3")
	if [ "$img_rel" != "$hdr_rel" ]; then
		die "the VM kernel and the headers differ: image $2 is $img_rel but headers $3 are $hdr_rel; qpu.ko built against those headers would not load in the VM: $hint"
	fi
	echo "VM kernel $img_rel: image $2, headers $3"
	;;
*)
	die "usage: vm-kernel.sh release <bzImage> | check <bzImage> <kdir>"
	;;
esac
