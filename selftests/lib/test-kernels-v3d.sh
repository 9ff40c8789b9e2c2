#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The sample kernels' tests on the V3D emulator devices: the Pi 4's V3D
# 4.2 (8 QPUs) and both Pi 5 configurations of V3D 7.1 (12 and 16 QPUs).
# test-kernels: every kernel against the CPU and every refusal; test-sgemm:
# sgemm's shapes (tails, strides, offsets, alpha and beta) and refusals
# (its 3072-column cases take seconds each: the default device runs them).
# test-postproc: qpu_nms() against qpu_nms_cpu() and its refusals.
. "$(dirname "$0")/check-lib.sh"

bin=${QPU_TEST_BIN:?QPU_TEST_BIN names the directory of the test programs}
for dev in emu:v3d42 emu:v3d71 emu:v3d71,board=pi5-16; do
	check "test-kernels --device $dev" ${TEST_WRAPPER:-} "$bin/test-kernels" --device "$dev"
	check "test-postproc --device $dev" ${TEST_WRAPPER:-} "$bin/test-postproc" --device "$dev"
	check "test-sgemm --device $dev" ${TEST_WRAPPER:-} "$bin/test-sgemm" --device "$dev" \
		shapes bad
done
check_end
