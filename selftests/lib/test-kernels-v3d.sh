#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The sample kernels' test (test-kernels) on the V3D emulator devices: the
# Pi 4's V3D 4.2 (8 QPUs) and both Pi 5 configurations of V3D 7.1 (12 and
# 16 QPUs), every kernel against the CPU and every refusal.
. "$(dirname "$0")/check-lib.sh"

bin=${QPU_TEST_BIN:?QPU_TEST_BIN names the directory of the test programs}
for dev in emu:v3d42 emu:v3d71 emu:v3d71,board=pi5-16; do
	check "test-kernels --device $dev" ${TEST_WRAPPER:-} "$bin/test-kernels" --device "$dev"
done
check_end
