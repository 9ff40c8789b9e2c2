# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The shared part of `make check-thirdparty` (sourced by run.sh): the
# counters and the PASS/FAIL/SKIP lines, the install tree the programs are
# built against, and the VM runs on qpu.ko's simulated V3D with the
# output of each step read back from the console log.
#
# From the environment (the Makefile passes them): MAKE, BUILD, VM_KERNEL
# (the bzImage run-vm.sh boots; empty: the VM runs are skipped) and
# VM_MODULE (qpu.ko built for it by `make vm-module`).

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
make_cmd=${MAKE:-make}
build=${BUILD:-$top/build}
pass=0 fail=0 skip=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=/usr/local

# result NAME STATUS [DETAIL]: PASS when STATUS is 0, else FAIL with DETAIL.
result() {
	if [ "$2" = 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1${3:+: $3}"
		fail=$((fail + 1))
	fi
}

skipped() {
	echo "SKIP $1: $2"
	skip=$((skip + 1))
}

closing_line() {
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" = 0 ]
}

# `make install` into $work/root, and pkg-config and the loader pointed at
# it (the tree is no system's: its libqpu.so.0, libqpu-mailbox's need, too).
install_tree() {
	"$make_cmd" -C "$top" --no-print-directory install DESTDIR="$work/root" PREFIX=$prefix \
		>"$work/install.log" 2>&1
	result install $? "$(tail -5 "$work/install.log")"
	export PKG_CONFIG_SYSROOT_DIR=$work/root
	export PKG_CONFIG_LIBDIR=$work/root$prefix/lib/pkgconfig
	export LD_LIBRARY_PATH=$work/root$prefix/lib
}

# vm_ready: 0 when a VM run can start (qpu.ko built for VM_KERNEL), else a
# SKIP (no kernel to boot) or FAIL (the module does not build), once.
vm_state=
vm_ready() {
	if [ -z "$vm_state" ]; then
		if [ -z "${VM_KERNEL:-}" ] || [ ! -r "$VM_KERNEL" ]; then
			vm_state=none
		elif "$make_cmd" -C "$top" --no-print-directory vm-module >"$work/vm-module.log" 2>&1; then
			vm_state=ok
		else
			vm_state=broken
			result vm_module 1 "$(tail -5 "$work/vm-module.log")"
		fi
	fi
	[ "$vm_state" = ok ]
}

# vm_run NAME QPU-ARGS RUN-VM-OPTIONS...: boots the VM with qpu.ko loaded
# with sim=1 and QPU-ARGS, and the payload the options give; the console log is
# $build/vm/thirdparty-NAME/console.log (kept for debugging), the VM's
# verdict a result "vm_NAME", and its time is said.
vm_run() {
	local name=$1 args=$2 dir=$build/vm/thirdparty-$1
	shift 2
	mkdir -p "$dir"
	"$top/selftests/vm/run-vm.sh" --kernel "$VM_KERNEL" --workdir "$dir" \
		--module "$VM_MODULE" --module-args "sim=1${args:+ $args}" --quiet "$@" \
		>"$dir/summary" 2>&1
	result "vm_$name" $? "$(grep -v '^PASS' "$dir/summary" | tail -8)"
	sed -n 's/^run-vm.sh: the VM ran for \(.*\)/VM time ('"$name"'): \1/p' "$dir/summary"
}

# vm_step_output NAME N: what step N of VM run NAME printed (stdout and
# stderr, as the console carried them).
vm_step_output() {
	tr -d '\r' <"$build/vm/thirdparty-$1/console.log" | awk -v n="$2" '
		index($0, "### QPU-VM: STEP BEGIN " n " ") == 1 { on = 1; next }
		index($0, "### QPU-VM: STEP END " n " ") == 1 { on = 0 }
		on'
}

# vm_step_status NAME N: step N's exit status (init.sh's STEP END marker);
# 255 when the step never ended.
vm_step_status() {
	local rc
	rc=$(tr -d '\r' <"$build/vm/thirdparty-$1/console.log" |
		sed -n "s/^### QPU-VM: STEP END $2 rc=\([0-9]*\) .*/\1/p")
	return "${rc:-255}"
}
