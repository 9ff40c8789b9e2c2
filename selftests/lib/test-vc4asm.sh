#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-vc4asm: vc4asm, the assembler whose syntax the disassembler writes,
# must turn every line test-disasm prints (golden words, raw words and the
# seeded sample) back into the same word. vc4asm is not part of this tree:
# point VC4ASM at a vc4asm binary (or put it in PATH), else the test skips.
# Needs QPU_TEST_BIN, the directory holding test-disasm.

: "${QPU_TEST_BIN:?QPU_TEST_BIN must name the directory of test-disasm}"

vc4asm=${VC4ASM:-$(command -v vc4asm)}
if [ -z "$vc4asm" ] || [ ! -x "$vc4asm" ]; then
	echo "vc4asm not found: set VC4ASM to run this test"
	exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

if ! "$QPU_TEST_BIN/test-disasm" --dump "$tmp/dis" >"$tmp/log" 2>&1; then
	echo "test-disasm --dump failed:"
	cat "$tmp/log"
	exit 1
fi
if ! "$vc4asm" -o "$tmp/asm.bin" "$tmp/dis.qasm" >"$tmp/err" 2>&1; then
	echo "vc4asm refused lines of $(wc -l <"$tmp/dis.qasm") it was given:"
	grep -m 20 ERROR "$tmp/err"
	exit 1
fi
if ! cmp -s "$tmp/dis.bin" "$tmp/asm.bin"; then
	# cmp counts bytes from 1; eight bytes per instruction and line.
	byte=$(cmp "$tmp/dis.bin" "$tmp/asm.bin" 2>&1 | sed -n 's/.* byte \([0-9]*\).*/\1/p')
	if [ -z "$byte" ]; then
		echo "vc4asm output has a different length"
		exit 1
	fi
	line=$(( (byte - 1) / 8 + 1 ))
	skip=$(( (line - 1) * 8 ))
	echo "line $line assembles to another word:"
	sed -n "${line}p" "$tmp/dis.qasm"
	echo "  disassembled: $(od -An -tx8 -j "$skip" -N 8 "$tmp/dis.bin")"
	echo "  vc4asm:       $(od -An -tx8 -j "$skip" -N 8 "$tmp/asm.bin")"
	exit 1
fi
echo "vc4asm gave back all $(wc -l <"$tmp/dis.qasm" | tr -d ' ') words"
