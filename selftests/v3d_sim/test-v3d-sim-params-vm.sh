#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-v3d-sim-params-vm: kmod/v3d_sim refuses a bad module parameter at
# load, naming it, and loads with each good one. Run in the VM after
# check-vm's modules are unloaded (--after-unload): it loads v3d_sim's
# dependencies again from the VM's module list, tries each parameter set
# and unloads what it loaded. Prints TAP.

cfg=/etc/qpu-vm/modules
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# result(), tap_end (check-vm copies it beside this script)
. ./tap.sh

ko=$(awk '$1 ~ /\/v3d_sim\.ko$/ { print $1; exit }' "$cfg")
# The modules listed before it but qpu.ko: DRM, the shmem helper, gpu-sched.
awk -v ko="$ko" '$1 == ko { exit } $1 !~ /\/qpu\.ko$/ { print $1 }' "$cfg" >"$tmp/deps"
deps_loaded=
while read -r dep; do
	name=$(basename "$dep" .ko | tr - _)
	[ -d "/sys/module/$name" ] && continue
	insmod "$dep" && deps_loaded="$name $deps_loaded"
done <"$tmp/deps"

# refused NAME MESSAGE PARAMETERS...: insmod fails with EINVAL, the kernel
# log gains MESSAGE (busybox's insmod may try twice: finit_module, then
# init_module), and no v3d_sim is left loaded.
refused() {
	name=$1 want=$2
	shift 2
	before=$(dmesg | grep -cF -- "$want")
	insmod "$ko" "$@" 2>"$tmp/err"
	rc=$?
	after=$(dmesg | grep -cF -- "$want")
	if [ "$rc" -eq 0 ] || [ "$after" -le "$before" ] || [ -d /sys/module/v3d_sim ]; then
		result "$name" 1 "insmod $*: exit status $rc, '$want' logged $((after - before)) times"
		rmmod v3d_sim 2>/dev/null
	else
		result "$name" 0
	fi
}

# loads NAME QPUS PARAMETERS...: insmod succeeds with the Pi 5's QPUs QPUS.
loads() {
	name=$1 want=$2
	shift 2
	insmod "$ko" "$@" 2>"$tmp/err"
	rc=$?
	got=$(cat /sys/module/v3d_sim/parameters/pi5_qpus 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ "$got" != "$want" ]; then
		result "$name" 1 "insmod $*: exit status $rc, pi5_qpus '$got': $(cat "$tmp/err")"
	else
		result "$name" 0
	fi
	rmmod v3d_sim 2>/dev/null
}

if [ -z "$ko" ] || [ ! -r "$ko" ]; then
	result v3d_sim_module 1 "no v3d_sim.ko in $cfg"
	tap_end
fi
refused pi5_qpus_13_refused "v3d_sim: pi5_qpus=13: 12 or 16" gen=71 pi5_qpus=13
refused pi5_qpus_0_refused "v3d_sim: pi5_qpus=0: 12 or 16" gen=42 pi5_qpus=0
refused gen_50_refused "v3d_sim: gen=50: each of 42 and 71 at most once" gen=50
refused gen_twice_refused "v3d_sim: gen=42: each of 42 and 71 at most once" gen=42,42
loads pi5_qpus_16_loads 16 gen=71 pi5_qpus=16
loads pi5_qpus_default_loads 12 gen=42,71

for name in $deps_loaded; do
	rmmod "$name"
done
tap_end
