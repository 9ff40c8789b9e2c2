#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs every example of libqpu/examples on the emulator ("emu"): each must
# have been built into $(BUILD)/examples and must exit 0, so an example
# that stops building cannot drop out of the run unnoticed. check-host gives
# the test binaries' directory, $(BUILD)/selftests/lib, as QPU_TEST_BIN and
# the test data, selftests/lib/data, as QPU_TEST_DATA.

bin=${QPU_TEST_BIN:?QPU_TEST_BIN is not set}/../../examples
src=${QPU_TEST_DATA:?QPU_TEST_DATA is not set}/../../../libqpu/examples
ran=0 failed=0
for source in "$src"/*.c; do
	name=$(basename "$source" .c)
	example=$bin/$name
	ran=$((ran + 1))
	if [ ! -x "$example" ]; then
		echo "FAILED: $name: not built ($example)"
		failed=$((failed + 1))
	elif "$example" emu; then
		echo "ok: $name"
	else
		echo "FAILED: $name"
		failed=$((failed + 1))
	fi
done
# Each follows the device rule of every entry point and takes --help.
for source in "$src"/*.c; do
	name=$(basename "$source" .c)
	example=$bin/$name
	[ -x "$example" ] || continue
	ran=$((ran + 1))
	if ! "$example" --help | grep -q "^Usage: .*$name \[DEVICE\]"; then
		echo "FAILED: $name --help"
		failed=$((failed + 1))
	elif ! QPU_DEVICE=/nonexistent "$example" 2>&1 >/dev/null | grep -q 'QPU_DEVICE=emu, or --device emu'; then
		echo "FAILED: $name without a device: no advice"
		failed=$((failed + 1))
	elif ! QPU_DEVICE=emu "$example" >/dev/null; then
		echo "FAILED: $name with QPU_DEVICE=emu"
		failed=$((failed + 1))
	else
		echo "ok: $name --help, \$QPU_DEVICE"
	fi
done
# Those of the sample kernels also on a Pi 4's V3D, whose 8 QPUs they ask for.
for name in vector-add camera-to-tensor; do
	ran=$((ran + 1))
	if "$bin/$name" emu:v3d42 >/dev/null; then
		echo "ok: $name emu:v3d42"
	else
		echo "FAILED: $name emu:v3d42"
		failed=$((failed + 1))
	fi
done
[ "$ran" -gt 0 ] || { echo "no examples in $src"; exit 1; }
[ "$failed" -eq 0 ]
