#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make lint`: runs each static check of the kernel side (a make target
# each), keeps going after a failure, prints PASS or FAIL per check with the
# output of a failed one, and closes with "lint: N passed, N failed".
# Usage: lint.sh TARGET...
set -uo pipefail

make_cmd=${MAKE:-make}
passed=0 failed=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

for target in "$@"; do
	if $make_cmd --no-print-directory "$target" >"$log" 2>&1; then
		echo "PASS $target"
		passed=$((passed + 1))
	else
		echo "FAIL $target"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
	fi
done
echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
