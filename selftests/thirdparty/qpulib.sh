# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The QPULib part of `make check-thirdparty` (sourced by run.sh, after
# common.sh): QPULib from QPULIB_SRC (a checkout of mn416/QPULib, which the
# caller provides: nothing is fetched), copied to a work directory and
# built by its own Tests/Makefile twice: as its emulator build (the CPU
# reference) and as its QPU build (`make QPU=1`) less its Mailbox.cpp,
# against the installed libqpu-mailbox: QPULib's Mailbox.h declares the
# mailbox calls without extern "C", so the QPU build's flags add
# `-include qpu_mailbox.h`. Every example of its Makefile but AutoTest
# (which runs no QPU code) runs on the emulator device, and all but
# HeatMap (150 s of host CPU time) also in the VM on qpu.ko's simulated V3D
# (statically linked). Judged by:
#   Hello ID Tri MultiTri GCD OET ReqRecv: output equal to the emulator
#	build's;
#   Print: exit 0 and no output (the QPU build drops QPU print statements;
#	the emulator build prints);
#   Rot3D: exit 0 and its time line (it prints nothing else);
#   HeatMap: the map within one of a CPU simulation (heatmap-ref.c); the
#	emulator build cannot run it (its heap of 64 Ki words is smaller
#	than HeatMap's maps).
# Any line on stderr, or QPULib's "Failed to invoke kernel", fails an
# example.

qpulib_examples="Hello ID Tri MultiTri GCD OET ReqRecv Print Rot3D HeatMap"
qpulib_same="Hello ID Tri MultiTri GCD OET ReqRecv"
qpulib_vm_examples="$qpulib_same Print Rot3D"

# qpulib_make TREE ARGS...: QPULib's Tests/Makefile in copy TREE.
qpulib_make() {
	local tree=$1
	shift
	"$make_cmd" -C "$work/$tree/Tests" --no-print-directory "$@" >>"$work/$tree.log" 2>&1
}

# qpulib_qpu_build TREE LIBS: the QPU build of every example, linked with
# LIBS instead of VideoCore/Mailbox.o (its Makefile's OBJ without it).
qpulib_qpu_build() {
	local tree=$1 libs=$2 obj
	obj=$(sed -n '/^OBJ *=/,/^$/p' "$work/$tree/Tests/Makefile" | grep -o '[A-Za-z/]*\.o' |
		grep -v '^VideoCore/Mailbox\.o$')
	# shellcheck disable=SC2086
	qpulib_make "$tree" -j2 QPU=1 OBJ="$(echo $obj)" \
		CXX_FLAGS="-fpermissive -std=c++0x -I ../Lib -DQPU_MODE -include qpu_mailbox.h $(pkg-config --cflags qpu-mailbox) $libs" \
		$qpulib_examples
}

# qpulib_judge DEVICE EXAMPLE STATUS STDOUT STDERR
qpulib_judge() {
	local dev=$1 ex=$2 rc=$3 out=$4 err=$5 ok=0 detail= ref

	if [ "$rc" != 0 ] || [ -n "$err" ] || grep -q 'Failed to invoke kernel' <<<"$out"; then
		ok=1 detail="exit $rc, $(head -3 <<<"$err$out")"
	else
		case " $qpulib_same " in
		*" $ex "*)
			ref=$(cat "$work/ref.$ex")
			[ "$out" = "$ref" ] || ok=1 detail="differs from the emulator build: $(diff <(echo "$ref") <(echo "$out") | head -4)"
			;;
		esac
		case $ex in
		Print) [ -z "$out" ] || ok=1 detail="printed: $(head -2 <<<"$out")" ;;
		Rot3D) grep -qx '[0-9]*\.[0-9]*s' <<<"$out" || ok=1 detail="no time line: $(head -2 <<<"$out")" ;;
		HeatMap)
			printf '%s\n' "$out" >"$work/heatmap.pgm"
			detail=$("$work/heatmap-ref" "$work/heatmap.pgm" 2>&1) || ok=1
			echo "$detail"
			;;
		esac
	fi
	result "qpulib_${dev}_$ex" "$ok" "$detail"
}

qpulib_suite() {
	local src=${QPULIB_SRC:-} ex rc out steps=() n

	if [ -z "$src" ]; then
		skipped qpulib "QPULIB_SRC is not set (a QPULib checkout)"
		return
	fi
	if [ ! -f "$src/Tests/Makefile" ] || [ ! -f "$src/Lib/VideoCore/Mailbox.cpp" ]; then
		result qpulib 1 "$src has no Tests/Makefile and Lib/VideoCore/Mailbox.cpp: no QPULib checkout"
		return
	fi
	cp -r "$src" "$work/qpulib-emu" && cp -r "$src" "$work/qpulib-qpu"
	qpulib_make qpulib-emu -j2 $qpulib_examples
	result qpulib_build_emulator $? "$(grep -i error "$work/qpulib-emu.log" | head -5)"
	qpulib_qpu_build qpulib-qpu "$(pkg-config --libs qpu-mailbox)"
	result qpulib_build_qpu $? "$(grep -i error "$work/qpulib-qpu.log" | head -5)"
	cc -O2 -Wall -Wextra -Werror -o "$work/heatmap-ref" "$top/selftests/thirdparty/heatmap-ref.c"
	result build_heatmap_ref $?

	for ex in $qpulib_same; do
		"$work/qpulib-emu/Tests/$ex" >"$work/ref.$ex" 2>&1
	done
	for ex in $qpulib_examples; do
		out=$(cd "$work" && QPU_DEVICE=emu "$work/qpulib-qpu/Tests/$ex" 2>"$work/err")
		qpulib_judge emu "$ex" $? "$out" "$(cat "$work/err")"
	done

	if ! vm_ready; then
		[ "$vm_state" = broken ] || skipped qpulib_vm "no VM kernel (VM_KERNEL)"
		return
	fi
	mkdir -p "$work/qpulib-static"
	for ex in $qpulib_examples; do
		mv "$work/qpulib-qpu/Tests/$ex" "$work/qpulib-qpu/Tests/$ex.shared"
	done
	qpulib_qpu_build qpulib-qpu "$(pkg-config --static --libs qpu-mailbox) -static"
	result qpulib_build_qpu_static $? "$(grep -i error "$work/qpulib-qpu.log" | head -5)"
	for ex in $qpulib_vm_examples; do
		steps+=(--copy "$work/qpulib-qpu/Tests/$ex" --run "$ex 2>stderr; rc=\$?; sed 's/^/stderr: /' stderr; exit \$rc")
	done
	vm_run qpulib "" "${steps[@]}"
	n=0
	for ex in $qpulib_vm_examples; do
		n=$((n + 1))
		out=$(vm_step_output qpulib $n)
		vm_step_status qpulib $n
		rc=$?
		qpulib_judge qpu "$ex" $rc "$(grep -v '^stderr: ' <<<"$out")" \
			"$(sed -n 's/^stderr: //p' <<<"$out")"
	done
}
