#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: runs every suite (each a make target with its own runner and
# closing line), keeps going after a failure, and ends with one line adding
# them all up. A suite without a closing line has failed, whatever its
# exit status: it counts as one failure. Usage: check.sh SUITE... ; logs go
# to $BUILD/check/<suite>.log.
set -uo pipefail

build=${BUILD:?BUILD must be set}
make_cmd=${MAKE:-make}
mkdir -p "$build/check"

total_pass=0 total_fail=0 total_skip=0 summary=()
closing='^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'

for suite in "$@"; do
	log=$build/check/$suite.log
	echo "=== $suite"
	start=$SECONDS
	$make_cmd --no-print-directory "$suite" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E "$closing" "$log" | tail -n 1 || true)
	if [[ $line =~ $closing ]]; then
		pass=${BASH_REMATCH[2]} fail=${BASH_REMATCH[3]} skip=${BASH_REMATCH[5]:-0}
		# A runner that counted no failure yet exited non-zero still failed.
		[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
	else
		echo "check: $suite printed no closing 'N passed, N failed' line (exit status $rc): counted as failed"
		pass=0 fail=1 skip=0
	fi
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
	summary+=("$(printf '%-12s %5d passed %3d failed %3d skipped %5ds' \
		"$suite" "$pass" "$fail" "$skip" $((SECONDS - start)))")
done

echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
