#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-tool-options: every tool follows qpu-tools(7): -V/--version is the
# package's "NAME (libqpu) VERSION", --help names qpu-tools(7), a bad option
# points at --help, options may follow files (GNU order), -m names the
# instruction set, code files are hex or binary by their look, binary never
# goes to a terminal, and a missing device is reported with the three ways
# to get one, the device chosen by --device, else $QPU_DEVICE.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
bin=$(cd "$(dirname "$QPU_DIS")" && pwd)
# shellcheck source=selftests/lib/check-lib.sh
. "$(dirname "$0")/check-lib.sh"

version=$("$bin/qpu-info" -V | sed -n 's/^qpu-info (libqpu) //p')
# output STATUS PATTERN CMD...: CMD exits STATUS and its output matches
output() {
	want=$1 pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	got=$?
	cat "$tmp/out"
	[ "$got" -eq "$want" ] || { echo "exit status $got, expected $want"; return 1; }
	[ -z "$pattern" ] || grep -q -- "$pattern" "$tmp/out" || { echo "no '$pattern'"; return 1; }
}

for t in qpu-as qpu-dis qpu-check qpu-run qpu-info qpu-demo qpuctl; do
	check "${t}_version_short" output 0 "^$t (libqpu) $version\$" "$bin/$t" -V
	check "${t}_version_long" output 0 "^$t (libqpu) $version\$" "$bin/$t" --version
	# shellcheck disable=SC2016
	check "${t}_bad_option" output 1 "^Try '$t --help' for more information.\$" \
		sh -c '"$0" --no-such-option; [ $? -ne 0 ] && exit 1' "$bin/$t"
done
for t in qpu-as qpu-dis qpu-check qpu-run qpu-info qpu-demo; do
	check "${t}_help_cites_convention" output 0 'qpu-tools(7)' "$bin/$t" --help
done

printf 'mov r0, 1\nthrend\nnop\nnop\n' >"$tmp/prog.qasm"
cd "$tmp" || exit 1
# Options after the file, long and short.
check qpu-as_options_after_file output 0 '' "$bin/qpu-as" prog.qasm -o prog.bin -f bin
check qpu-as_long_options output 0 '' "$bin/qpu-as" --format=hex --output=prog.hex --machine=vc4 prog.qasm
check qpu-dis_options_after_file output 0 '^00000000: ldi r0, 0x1$' "$bin/qpu-dis" prog.bin -a -m vc4
check qpu-check_options_after_file output 0 '' "$bin/qpu-check" prog.hex -q -m vc4
check qpu-run_options_after_file output 0 '' "$bin/qpu-run" prog.bin -m vc4 -u 1
check qpu-as_no_input output 1 "^qpu-as: no input file\$" "$bin/qpu-as" -f hex
# -m is the instruction set in every tool that reads code.
# (qpu-run -m v3d42/v3d71: test-qpu-run-v3d.sh)
check qpu-run_machine_refused output 1 "unknown machine 'v3d9'" \
	"$bin/qpu-run" -m v3d9 prog.bin
# qpu-run reads hex as qpu-dis and qpu-check do.
check qpu-run_reads_hex output 0 '' "$bin/qpu-run" prog.hex
check qpu-run_hex_forced output 1 'prog.bin: ' "$bin/qpu-run" --hex prog.bin
# -M is qpu-run's map.
printf 'abcd' >data.bin
check qpu-run_map output 0 '64636261' "$bin/qpu-run" -M data.bin@0x20000 -d 4@0x20000 prog.bin
# Binary output is refused on a terminal (script(1) gives the tool one).
if command -v script >/dev/null; then
	check qpu-as_no_binary_to_terminal output 1 'not writing binary to a terminal' \
		script -qec "$bin/qpu-as prog.qasm" /dev/null
	check qpu-as_hex_to_terminal output 0 '0x' script -qec "$bin/qpu-as -f hex prog.qasm" /dev/null
fi
# One device rule and one error for a missing device.
for t in qpu-info qpu-demo; do
	check "${t}_three_ways" output 1 'QPU_DEVICE=emu, or --device emu' \
		env QPU_DEVICE="$tmp/none" "$bin/$t"
	check "${t}_names_path" output 1 "^$t: $tmp/none: No such file or directory\$" \
		"$bin/$t" --device "$tmp/none"
done
check qpu-info_qpu_device output 0 '^device: emu$' env QPU_DEVICE=emu "$bin/qpu-info"
# qpu-info names every feature bit (libqpu's one table).
check qpu-info_features output 0 '^features: 0x7 uniforms_anywhere deadlock all_bos$' \
	"$bin/qpu-info" -d emu

check_end
