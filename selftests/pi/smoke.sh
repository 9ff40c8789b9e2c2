#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The raspi0 smoke test: boots Debian's rpi kernel, of the ABI qpu.ko was
# built against, under qemu-system-arm -M raspi0 with a busybox initramfs
# whose /init (init beside this file) loads qpu.ko, prints the kernel log and
# unloads it. QEMU does not model the V3D, so the driver must refuse the
# device with one "no V3D answers at" line. QEMU does not end on poweroff:
# the run ends on the guest's sentinel line, or fails at PI_TIMEOUT seconds.
# Prints one PASS/FAIL line per check, then "N passed, N failed".
#
# usage: smoke.sh CACHE OUTDIR QPU_KO KDIR
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
timeout=${PI_TIMEOUT:-180}
sentinel='qpu-pi: smoke done'

die() {
	echo "selftests/pi: $*" >&2
	exit 1
}

[ $# = 4 ] || die "usage: smoke.sh CACHE OUTDIR QPU_KO KDIR"
cache=$1
out=$2
ko=$3
kdir=$4

command -v qemu-system-arm >/dev/null ||
	die "qemu-system-arm not found: apt-get install qemu-system-arm"
command -v cpio >/dev/null || die "cpio not found: apt-get install cpio"
command -v fdtput >/dev/null ||
	die "fdtput not found: apt-get install device-tree-compiler"
[ -f "$ko" ] || die "$ko not found: run 'make cross' first"
abi=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h" 2>/dev/null) || true
[ -n "$abi" ] || die "$kdir has no include/generated/utsrelease.h"

image=$("$here/fetch.sh" "$cache" image "$abi")
busybox=$("$here/fetch.sh" "$cache" busybox)
kernel=$image/boot/vmlinuz-$abi
dtb=$image/usr/lib/linux-image-$abi/bcm2835-rpi-zero.dtb
[ -f "$kernel" ] || die "$kernel is missing"
[ -f "$dtb" ] || die "$dtb is missing"

mkdir -p "$out"
cp "$dtb" "$out/bcm2835-rpi-zero.dtb"
dtb=$out/bcm2835-rpi-zero.dtb
# QEMU's firmware model lacks the power-domain interface, so
# raspberrypi-power registers no V3D domain and the v3d node's probe would
# be deferred for good: boot a DTB whose v3d node has no power-domains
# (PI_KEEP_POWER_DOMAIN=1 keeps it, to see the deferral).
if [ "${PI_KEEP_POWER_DOMAIN:-0}" != 1 ]; then
	echo "selftests/pi: booting without /soc/v3d@7ec00000 power-domains (no such domain under QEMU)"
	fdtput -d "$dtb" /soc/v3d@7ec00000 power-domains
fi

# the initramfs: busybox, /init, the module
rm -rf "$out/initramfs"
mkdir -p "$out/initramfs/bin"
cp "$busybox" "$out/initramfs/bin/busybox"
cp "$here/init" "$out/initramfs/init"
cp "$ko" "$out/initramfs/qpu.ko"
chmod 0755 "$out/initramfs/init" "$out/initramfs/bin/busybox"
(cd "$out/initramfs" && find . | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out/initramfs.cpio.gz"

log=$out/raspi0-console.log
raw=$out/raspi0-console.raw
rm -f "$log" "$raw" "$out/qemu.err"
: >"$raw"

echo "selftests/pi: booting $abi under qemu-system-arm -M raspi0 (limit ${timeout}s)"
qemu-system-arm -M raspi0 -accel tcg \
	-kernel "$kernel" -dtb "$dtb" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyAMA0 quiet rdinit=/init initcall_blacklist=bcm2835_pm_driver_init" \
	-display none -monitor none -serial "file:$raw" </dev/null 2>"$out/qemu.err" &
qemu=$!
trap 'kill "$qemu" 2>/dev/null || true' EXIT

start=$SECONDS
ended="time limit"
while [ $((SECONDS - start)) -lt "$timeout" ]; do
	if grep -q "^$sentinel" "$raw"; then
		ended="sentinel"
		break
	fi
	if ! kill -0 "$qemu" 2>/dev/null; then
		ended="qemu exit"
		break
	fi
	sleep 0.5
done
elapsed=$((SECONDS - start))
kill "$qemu" 2>/dev/null || true
wait "$qemu" 2>/dev/null || true
trap - EXIT
tr -d '\r' <"$raw" >"$log"
rm -f "$raw"
echo "selftests/pi: QEMU ended by $ended after ${elapsed}s; console log: $log"
if [ "$ended" != sentinel ] && [ -s "$out/qemu.err" ]; then
	echo "selftests/pi: QEMU said:"
	cat "$out/qemu.err"
fi

pass=0
fail=0
check() {
	local name=$1
	shift
	if "$@"; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		fail=$((fail + 1))
	fi
}
has() {
	grep -qE "$1" "$log"
}
# no kernel complaint anywhere, in a log that reached the final dmesg
log_clean() {
	has '^qpu-pi: dmesg after rmmod$' &&
		! grep -qE 'BUG:|WARNING:|Oops|Call Trace|Unable to handle' "$log"
}

check "pi_boot_kernel_$abi" has "^qpu-pi: kernel $abi\$"
check pi_insmod has '^qpu-pi: insmod ok$'
# exactly one refusal line in the kernel log the guest printed after insmod
refusals=$(sed -n '/^qpu-pi: dmesg after insmod$/,/^qpu-pi: devices_deferred/p' "$log" |
	grep -c 'no V3D answers at' || true)
check pi_probe_refuses_absent_v3d test "$refusals" = 1
check pi_log_clean log_clean
check pi_rmmod has '^qpu-pi: rmmod ok$'
check pi_sentinel has "^$sentinel\$"

if [ "$fail" != 0 ]; then
	echo "--- qpu-pi lines and kernel complaints from $log:"
	grep -E 'qpu|v3d|BUG:|WARNING:|Oops|Call Trace|Unable to handle|defer' "$log" || true
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
