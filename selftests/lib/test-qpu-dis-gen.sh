#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-dis-gen: qpu-dis -m, the generation option. v3d42 and v3d71
# words give their Mesa-syntax lines (the same words mean different
# instructions, or none, on the other generation), -m vc4 is the default,
# --machine=NAME is -m NAME, and an unknown name exits 1 naming it.
# Needs QPU_DIS (the tool).

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

# check NAME EXPECTED -- COMMAND...: stdout must equal EXPECTED, exit 0.
check() {
	name=$1 expected=$2
	shift 2
	if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
		fail "$name: exit status $? ($(cat "$tmp/err"))"
	elif [ "$(cat "$tmp/out")" != "$expected" ]; then
		fail "$name: got"
		cat "$tmp/out" >&2
	else
		passed=$((passed + 1))
	fi
}

# The 4.2 nop, the 7.1 nop, "b -64", and an all-zero word (GPU_FFT layout).
printf '0xbb800000, 0x3c003186,\n0xbb03f000, 0x38003186,\n' >"$tmp/w.hex"
printf '0xff001000, 0x02ffffc0,\n0x00000000, 0x00000000,\n' >>"$tmp/w.hex"

check v3d42 "nop                           ; nop
.long 0x38003186bb03f000  # reserved add opcode
b  -64
.long 0x0000000000000000  # no instruction kind (mul op 0, no branch)" \
	"$QPU_DIS" -m v3d42 "$tmp/w.hex"
check v3d71 "00000000: .long 0x3c003186bb800000  # reserved mul opcode
00000008: nop                           ; nop
00000010: b  -64  # 0xfffffff0
00000018: .long 0x0000000000000000  # no instruction kind (mul op 0, no branch)" \
	"$QPU_DIS" --machine=v3d71 -a "$tmp/w.hex"

"$QPU_DIS" "$tmp/w.hex" >"$tmp/default" 2>&1
"$QPU_DIS" -m vc4 "$tmp/w.hex" >"$tmp/vc4" 2>&1
if cmp -s "$tmp/default" "$tmp/vc4" && ! grep -q 'zero_addr\|b  -64' "$tmp/vc4"; then
	passed=$((passed + 1))
else
	fail "-m vc4 differs from the default"
fi

if "$QPU_DIS" -m v3d41 "$tmp/w.hex" >"$tmp/out" 2>"$tmp/err"; then
	fail "unknown machine: exit 0"
elif [ $? -ne 1 ] || [ -s "$tmp/out" ] ||
     ! grep -q "qpu-dis: unknown machine 'v3d41'" "$tmp/err"; then
	fail "unknown machine: $(cat "$tmp/err")"
else
	passed=$((passed + 1))
fi

echo "test-qpu-dis-gen: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
