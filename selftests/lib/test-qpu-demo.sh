#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-demo: the demo's table on the in-process emulator: every kernel
# ok and the closing count, the modelled columns labelled as modelled and
# filled for both boards, no line ending in blanks (the table is read by
# people and pasted into issues), --no-model without them, and a device
# that cannot be opened refused with a message and exit 1, a bad QPU count
# or option with exit 2. On a V3D device (emu:v3d42) the modelled boards
# are a Pi 4 and a Pi 5. Every row has the CPU's own time for the work.
# qpu-demo is looked up next to QPU_DIS.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
demo=$(dirname "$QPU_DIS")/qpu-demo
if [ ! -x "$demo" ]; then
	echo "$demo not built (make tools)"
	exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# cpu_column WHAT: the CPU's own time beside the device's, labelled, on
# every kernel row (instructions, device ms, CPU ms), above 0.
cpu_column() {
	grep -q '^CPU: the same work in plain C on one thread of this machine$' "$tmp/out" &&
		grep -qE '^kernel .* time ms +CPU ms' "$tmp/out" || fail "$1: no CPU column"
	rows=$(grep -cE ' ok +([0-9]+|n/a) +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}( |$)' "$tmp/out")
	[ "$rows" -eq "$kernels" ] || fail "$1: $rows of $kernels rows have the CPU's time"
	grep -qE ' ok +([0-9]+|n/a) +[0-9]+\.[0-9]{3} +0\.000( |$)' "$tmp/out" &&
		fail "$1: a CPU time of 0"
}

# table DEVICE BOARDS COLUMN: every kernel ok on DEVICE, the modelled label
# naming BOARDS, both boards' figures on every row (COLUMN the first one's
# heading), no line ending in blanks.
table() {
	"$demo" --device "$1" >"$tmp/out" 2>"$tmp/err" || fail "$1: exit $?: $(cat "$tmp/err")"
	kernels=$(grep -c ' ok  *[0-9]' "$tmp/out")
	[ "$kernels" -ge 7 ] || fail "$1: $kernels kernels ok"
	grep -q "^$kernels kernels: $kernels ok, 0 failed\$" "$tmp/out" ||
		fail "$1: closing count: $(tail -n 1 "$tmp/out")"
	grep -qF "modelled (the emulator's timing model, not a measurement): $2" "$tmp/out" ||
		fail "$1: modelled label missing"
	# each kernel row: two boards, each a time and a throughput with its unit
	rows=$(grep -cE ' ok .*( +[0-9.]+ +[0-9.]+ (GB/s|GFLOPS)){2}$' "$tmp/out")
	[ "$rows" -eq "$kernels" ] || fail "$1: $rows of $kernels rows have both boards' figures"
	grep -q "$3 us" "$tmp/out" || fail "$1: no $3 column"
	cpu_column "$1"
	grep -q ' $' "$tmp/out" && fail "$1: lines end in blanks: $(grep -n ' $' "$tmp/out")"
}
table emu:v3d42 "Pi 4 (V3D 4.2, 8 QPUs, 500 MHz), Pi 5 (V3D 7.1, 12 QPUs, 800 MHz)" Pi4
table emu "Pi 1/Zero, Pi 3 (extrapolated)" Pi1

"$demo" --device emu --no-model >"$tmp/out" 2>"$tmp/err" || fail "no-model: exit $?"
grep -qE 'GB/s|GFLOPS|modelled' "$tmp/out" && fail "no-model: modelled figures printed"
grep -q "^$kernels kernels: $kernels ok, 0 failed\$" "$tmp/out" || fail "no-model: closing count"
cpu_column no-model

"$demo" --device "$tmp/none" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "missing device: exit status"
grep -q "^qpu-demo: $tmp/none: No such file or directory$" "$tmp/err" &&
	grep -q "QPU_DEVICE=emu, or --device emu$" "$tmp/err" || fail "missing device: $(cat "$tmp/err")"
# Without --device, $QPU_DEVICE names it, as for every tool and libqpu.
QPU_DEVICE=emu "$demo" --qpus 1 --no-model >"$tmp/out" 2>"$tmp/err" || fail "QPU_DEVICE=emu: exit $?"
grep -q '^qpu-demo: emu ' "$tmp/out" || fail "QPU_DEVICE=emu: $(head -n 1 "$tmp/out") $(cat "$tmp/err")"
# a QPU count must be a number from 1 to the device's: usage errors, 2
for q in 0 13 abc -1 12x ''; do
	"$demo" --device emu --qpus "$q" >"$tmp/out" 2>"$tmp/err"
	[ $? -eq 2 ] || fail "--qpus '$q': exit status"
	grep -qE "bad QPU count|asked for 13 QPUs, emu has 12" "$tmp/err" ||
		fail "--qpus '$q': $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "--qpus '$q': a table was printed"
done
"$demo" --device emu --qpus 1 --no-model >"$tmp/out" 2>"$tmp/err" || fail "--qpus 1: exit $?"
grep -q ', 1 QPUs per kernel$' "$tmp/out" || fail "--qpus 1: $(head -n 1 "$tmp/out")"
"$demo" --bogus >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "bad option: exit status"
grep -q "^Try 'qpu-demo --help' for more information.$" "$tmp/err" || fail "bad option: no pointer to --help"

exit $failed
