#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs every example built in $(BUILD)/examples on the emulator ("emu"): each
# must exit 0. check-host gives the test binaries' directory,
# $(BUILD)/selftests/lib, as QPU_TEST_BIN; the examples sit beside it.

bin=${QPU_TEST_BIN:?QPU_TEST_BIN is not set}/../../examples
ran=0 failed=0
for example in "$bin"/*; do
	case $example in *.d) continue ;; esac
	[ -x "$example" ] || continue
	ran=$((ran + 1))
	if "$example" emu; then
		echo "ok: $(basename "$example")"
	else
		echo "FAILED: $(basename "$example")"
		failed=$((failed + 1))
	fi
done
[ "$ran" -gt 0 ] || { echo "no examples in $bin"; exit 1; }
[ "$failed" -eq 0 ]
