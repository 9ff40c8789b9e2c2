#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The raspi0 smoke test: boots Debian's rpi kernel, of the ABI qpu.ko was
# built against, under qemu-system-arm -M raspi0 with a busybox initramfs
# whose /init (init beside this file) loads qpu.ko, prints the kernel log and
# unloads it. QEMU does not model the V3D, so the driver must refuse the
# device with one "no V3D answers at" line. QEMU does not end on poweroff:
# each run ends on the guest's sentinel line, or fails at PI_TIMEOUT seconds.
#
# Three boots: "plain", the kernel's DTB as it is, where qpu.ko's default
# (fw_qpu_enable=-1) asks QEMU's firmware model to enable the QPUs, since
# the node has no power domain here; and, given the qpu-v3d overlay,
# "overlay", the DTB with the overlay applied by fdtoverlay, loaded with
# fw_qpu_enable=0, where the node must carry qpu's own compatible and still
# bind to qpu.ko; and "vc4", the kernel's DTB with vc4 (and the modules it
# needs) loaded first, where qpu.ko must report that vc4 owns the V3D and
# leave it alone. Given test programs (static armel builds of
# raspi0_timers_test and of the selftests/kmod kselftests), a fourth boot,
# "sim": the plain DTB, qpu.ko loaded with sim=1, so that a simulated V3D
# becomes /dev/qpu beside the refused real one (which never takes a node),
# and the programs run on it on a 32-bit kernel. That boot is the VM runner's (selftests/vm/run-vm.sh
# --machine raspi0: its /init, per-program time limit and verdict, which
# fails on any kernel WARNING/BUG/Oops); it is limited to PI_SIM_TIMEOUT
# seconds (default 300), each program to PI_SIM_STEP_TIMEOUT (default 120).
# Every boot runs QEMU as selftests/vm/raspi0.sh says, with -icount: the
# guest's timer is lost when its clock follows a busy host's (see there).
# Prints one PASS/FAIL line per check and test case, then "N passed, N
# failed, N skipped" over all boots.
#
# usage: smoke.sh CACHE OUTDIR QPU_KO KDIR [QPU_DTBO [TEST...]]
#        (QPU_DTBO may be "" to skip the overlay boot)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
timeout=${PI_TIMEOUT:-180}
sim_timeout=${PI_SIM_TIMEOUT:-300}
sim_step_timeout=${PI_SIM_STEP_TIMEOUT:-120}
# raspi0 boots only without the power manager's driver: QEMU does not model
# the PM block it waits for.
raspi0_quirk=initcall_blacklist=bcm2835_pm_driver_init
sentinel='qpu-pi: smoke done'
# the QEMU command of every raspi0 boot (its clock: see there)
# shellcheck source-path=SCRIPTDIR source=../vm/raspi0.sh
. "$here/../vm/raspi0.sh"

die() {
	echo "selftests/pi: $*" >&2
	exit 1
}

[ $# -ge 4 ] || die "usage: smoke.sh CACHE OUTDIR QPU_KO KDIR [QPU_DTBO [TEST...]]"
cache=$1
out=$2
ko=$3
kdir=$4
dtbo=${5:-}
shift $(($# < 5 ? $# : 5))
tests=("$@")
for t in "${tests[@]}"; do
	[ -f "$t" ] || die "$t not found: build the Pi's kselftests first (make check-pi)"
done

command -v qemu-system-arm >/dev/null ||
	die "qemu-system-arm not found: apt-get install qemu-system-arm"
command -v cpio >/dev/null || die "cpio not found: apt-get install cpio"
command -v modinfo >/dev/null || die "modinfo not found: apt-get install kmod"
command -v fdtput >/dev/null ||
	die "fdtput not found: apt-get install device-tree-compiler"
[ -f "$ko" ] || die "$ko not found: run 'make cross' first"
[ -z "$dtbo" ] || [ -f "$dtbo" ] || die "$dtbo not found: run 'make dtbo' first"
[ -z "$dtbo" ] || command -v fdtoverlay >/dev/null ||
	die "fdtoverlay not found: apt-get install device-tree-compiler"
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

# the initramfs: busybox, /init, the module
rm -rf "$out/initramfs"
mkdir -p "$out/initramfs/bin"
cp "$busybox" "$out/initramfs/bin/busybox"
cp "$here/init" "$out/initramfs/init"
cp "$ko" "$out/initramfs/qpu.ko"
# vc4 and the modules it needs, in load order (the image has no modules.dep),
# for the boot where vc4 owns the V3D
moddir=$image/lib/modules/$abi
declare -A modpath=() modseen=()
modorder=()
while read -r p; do
	n=$(basename "$p" .ko)
	modpath[${n//-/_}]=$p
done < <(find "$moddir" -name '*.ko')
modvisit() {
	local m=${1//-/_} d
	[ -z "${modseen[$m]:-}" ] || return 0
	modseen[$m]=1
	[ -n "${modpath[$m]:-}" ] || die "module $m not found in $moddir"
	for d in $(modinfo -F depends "${modpath[$m]}" | tr ',' ' '); do
		modvisit "$d"
	done
	modorder+=("$m")
}
modvisit vc4
mkdir -p "$out/initramfs/vc4"
for m in "${modorder[@]}"; do
	cp "${modpath[$m]}" "$out/initramfs/vc4/$m.ko"
	echo "$m" >>"$out/initramfs/vc4/order"
done
chmod 0755 "$out/initramfs/init" "$out/initramfs/bin/busybox"
(cd "$out/initramfs" && find . | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$out/initramfs.cpio.gz"

pass=0
fail=0
skip=0
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
log=
has() {
	grep -qE "$1" "$log"
}
# no kernel complaint anywhere, in a log that reached the final dmesg
log_clean() {
	has '^qpu-pi: dmesg after rmmod$' &&
		! grep -qE 'BUG:|WARNING:|Oops|Call Trace|Unable to handle' "$log"
}
# exactly one refusal line, saying what powers the V3D, in the kernel log
# the guest printed after insmod
refuses_once() {
	local n
	n=$(sed -n '/^qpu-pi: dmesg after insmod$/,/^qpu-pi: devices_deferred/p' "$log" |
		grep -c "no V3D answers at 0x20c00000: .*(power: $1)\$" || true)
	test "$n" = 1
}

# boot NAME DTB QPU_ARGS [VC4 [CMDLINE]]: one raspi0 run, loading vc4
# before qpu.ko when VC4 is 1, with CMDLINE added to the kernel's command
# line; sets $log to its console log
boot() {
	local name=$1 dtb=$2 args=$3 vc4=${4:-0} extra=${5:-} raw qemu start ended elapsed
	log=$out/raspi0-$name-console.log
	raw=$out/raspi0-$name-console.raw
	rm -f "$log" "$raw" "$out/qemu.err"
	: >"$raw"

	echo "selftests/pi: booting $abi under qemu-system-arm -M raspi0, $name (limit ${timeout}s)"
	"${raspi0_qemu[@]}" \
		-kernel "$kernel" -dtb "$dtb" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyAMA0 quiet rdinit=/init $raspi0_quirk qpu_args=$args qpu_vc4=$vc4${extra:+ $extra}" \
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
}

# what went wrong in the last boot, when something did
explain() {
	[ "$fail" != "$1" ] || return 0
	echo "--- qpu-pi lines and kernel complaints from $log:"
	grep -E 'qpu|v3d|BUG:|WARNING:|Oops|Call Trace|Unable to handle|defer' "$log" || true
}

# QEMU's firmware model lacks the power-domain interface, so
# raspberrypi-power registers no V3D domain and the v3d node's probe would
# be deferred for good: boot DTBs whose v3d node has no power-domains
# (PI_KEEP_POWER_DOMAIN=1 keeps it, to see the deferral).
strip_power_domain() {
	if [ "${PI_KEEP_POWER_DOMAIN:-0}" != 1 ]; then
		fdtput -d "$1" /soc/v3d@7ec00000 power-domains
	fi
}
echo "selftests/pi: booting without /soc/v3d@7ec00000 power-domains (no such domain under QEMU)"

# The device memory limit's default is half the CMA area (kmod/qpu_cma.c),
# which each boot sizes another way: the DTB's pool by its "size" (plain),
# the pool placed by "reg" (overlay), and cma= on the command line, which
# the kernel prefers to the pool (vc4). Each check pairs the kernel's own
# boot line about CMA with qpu.ko's, which must say half as much.
cma_node=/reserved-memory/linux,cma
# cma_limit KIB FROM: qpu.ko's line for a CMA area of KIB KiB, known from FROM
cma_limit() {
	has "qpu: dev_mem_limit $(($1 / 2)) KiB: half the $1 KiB CMA area of $2\$"
}

# 1. plain: the kernel's DTB; qpu.ko asks the firmware to enable the QPUs.
cp "$dtb" "$out/bcm2835-rpi-zero.dtb"
strip_power_domain "$out/bcm2835-rpi-zero.dtb"
boot plain "$out/bcm2835-rpi-zero.dtb" ""
failed=$fail
check "pi_boot_kernel_$abi" has "^qpu-pi: kernel $abi\$"
check pi_insmod has '^qpu-pi: insmod ok$'
check pi_probe_refuses_absent_v3d refuses_once firmware
check pi_log_clean log_clean
check pi_rmmod has '^qpu-pi: rmmod ok$'
check pi_sentinel has "^$sentinel\$"
check pi_cma_pool_by_size has 'Reserved memory: created CMA memory pool at 0x[0-9a-f]+, size 64 MiB'
check pi_dev_mem_limit_half_of_pool cma_limit 65536 "the device tree's linux,cma-default pool"
explain "$failed"

# 2. overlay: the qpu-v3d overlay applied, the firmware left alone.
if [ -n "$dtbo" ]; then
	fdtoverlay -i "$dtb" -o "$out/bcm2835-rpi-zero-qpu.dtb" "$dtbo"
	strip_power_domain "$out/bcm2835-rpi-zero-qpu.dtb"
	# 48 MiB placed at 256 MiB, inside the 448 MiB QEMU gives the ARM
	fdtput -d "$out/bcm2835-rpi-zero-qpu.dtb" $cma_node size
	fdtput -t x "$out/bcm2835-rpi-zero-qpu.dtb" $cma_node reg 10000000 3000000
	boot overlay "$out/bcm2835-rpi-zero-qpu.dtb" fw_qpu_enable=0
	failed=$fail
	check pi_overlay_compatible has '^qpu-pi: 20c00000.v3d compatible: brcm,bcm2835-v3d-qpu $'
	check pi_overlay_insmod has '^qpu-pi: insmod fw_qpu_enable=0 ok$'
	check pi_overlay_probe_refuses_absent_v3d refuses_once 'none described'
	check pi_overlay_log_clean log_clean
	check pi_overlay_rmmod has '^qpu-pi: rmmod ok$'
	check pi_overlay_sentinel has "^$sentinel\$"
	check pi_overlay_cma_pool_by_reg has 'Reserved memory: created CMA memory pool at 0x10000000, size 48 MiB'
	check pi_overlay_dev_mem_limit_half_of_pool cma_limit 49152 "the device tree's linux,cma-default pool"
	explain "$failed"
fi

# 3. vc4: vc4 loaded first takes the V3D; qpu.ko must say so and stay away.
# CMA from the command line, as the README tells users to raise it.
boot vc4 "$out/bcm2835-rpi-zero.dtb" "" 1 cma=96M
failed=$fail
check pi_vc4_loaded has '^qpu-pi: vc4 loaded$'
check pi_vc4_insmod has '^qpu-pi: insmod ok$'
check pi_vc4_owner_reported has 'V3D at /soc/v3d@7ec00000 is owned by vc4_v3d: add dtoverlay=qpu-v3d to config.txt'
check pi_vc4_keeps_v3d has '^qpu-pi: 20c00000.v3d bound to: vc4_v3d$'
check pi_vc4_no_probe sh -c "! grep -q 'no V3D answers' '$log'"
check pi_vc4_log_clean log_clean
check pi_vc4_rmmod has '^qpu-pi: rmmod ok$'
check pi_vc4_sentinel has "^$sentinel\$"
check pi_vc4_cma_from_cmdline has 'cma: Reserved 96 MiB at 0x[0-9a-f]+'
check pi_vc4_dev_mem_limit_half_of_cmdline cma_limit 98304 "cma= on the command line"
explain "$failed"

# 4. sim: the kselftests on qpu.ko's simulated V3D, on this 32-bit kernel.
# run-vm.sh prints a PASS/FAIL line per test case and its own closing
# line, which is reworded here so that only the total below is one.
if [ ${#tests[@]} -gt 0 ]; then
	sim_args=()
	for t in "${tests[@]}"; do
		sim_args+=(--test "$t")
	done
	echo "selftests/pi: booting $abi under qemu-system-arm -M raspi0, sim (limit ${sim_timeout}s, ${sim_step_timeout}s per program)"
	rc=0
	"$here/../vm/run-vm.sh" --machine raspi0 --kernel "$kernel" \
		--dtb "$out/bcm2835-rpi-zero.dtb" --release "$abi" \
		--busybox "$busybox" --append "$raspi0_quirk" \
		--workdir "$out/sim" --log "$out/raspi0-sim-console.log" \
		--module "$ko" --module-args sim=1 \
		--timeout "$sim_timeout" --step-timeout "$sim_step_timeout" \
		--quiet "${sim_args[@]}" >"$out/sim.out" 2>&1 || rc=$?
	closing='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
	last=$(tail -n 1 "$out/sim.out")
	sed '$d' "$out/sim.out"
	if [[ $last =~ $closing ]]; then
		echo "selftests/pi: the sim boot: $last"
		pass=$((pass + BASH_REMATCH[1]))
		fail=$((fail + BASH_REMATCH[2]))
		skip=$((skip + BASH_REMATCH[3]))
		# A verdict with no failure must come with a zero exit status.
		[ "$rc" = 0 ] || [ "${BASH_REMATCH[2]}" != 0 ] ||
			check pi_sim_exit_status false
	else
		echo "$last"
		check pi_sim_verdict false
	fi
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
