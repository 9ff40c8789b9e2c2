#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: runs every suite (each a make target with its own runner and
# closing line), keeps going after a failure, and ends with one line adding
# them all up. A suite without a closing line has failed, whatever its
# exit status: it counts as one failure. Usage: check.sh SUITE... ; logs go
# to $BUILD/check/<suite>.log.
#
# SUITE may be a group, "a+b": suites that spend most of their time waiting
# on one emulated CPU (the x86 VM, the raspi0) run side by side. Their
# builds run first, one after the other (make a-prereqs, then b-prereqs),
# so that the two makes find everything built and write nothing the other
# reads; each suite's log is shown whole when the group has ended.
set -uo pipefail

build=${BUILD:?BUILD must be set}
make_cmd=${MAKE:-make}
mkdir -p "$build/check"

total_pass=0 total_fail=0 total_skip=0 summary=()
closing='^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'

# account SUITE STATUS SECONDS: adds the suite's closing line (in its log)
# to the totals and the summary.
account() {
	local suite=$1 rc=$2 secs=$3 log=$build/check/$1.log line pass fail skip

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
		"$suite" "$pass" "$fail" "$skip" "$secs")")
}

run_one() {
	local suite=$1 start=$SECONDS rc

	echo "=== $suite"
	$make_cmd --no-print-directory "$suite" 2>&1 | tee "$build/check/$suite.log"
	rc=${PIPESTATUS[0]}
	account "$suite" "$rc" $((SECONDS - start))
}

run_group() {
	local suites suite start=$SECONDS pids=() rc secs i

	IFS=+ read -r -a suites <<<"$1"
	echo "=== $1 (side by side; their builds first)"
	for i in "${!suites[@]}"; do
		suite=${suites[$i]}
		rm -f "$build/check/$suite.secs"
		pids[i]=
		if $make_cmd --no-print-directory "$suite-prereqs"; then
			pids[i]=build
		else
			echo "check: $suite-prereqs failed: $suite not run" >"$build/check/$suite.log"
		fi
	done
	for i in "${!suites[@]}"; do
		suite=${suites[$i]}
		[ -n "${pids[i]}" ] || continue
		( s=$SECONDS
		  $make_cmd --no-print-directory "$suite" >"$build/check/$suite.log" 2>&1
		  rc=$?
		  echo $((SECONDS - s)) >"$build/check/$suite.secs"
		  exit $rc ) &
		pids[i]=$!
	done
	for i in "${!suites[@]}"; do
		suite=${suites[$i]}
		rc=1
		if [ -n "${pids[i]}" ]; then
			wait "${pids[i]}"
			rc=$?
		fi
		secs=$(cat "$build/check/$suite.secs" 2>/dev/null || echo $((SECONDS - start)))
		echo "=== $suite"
		cat "$build/check/$suite.log"
		account "$suite" "$rc" "$secs"
	done
}

for suite in "$@"; do
	case $suite in
	*+*) run_group "$suite" ;;
	*) run_one "$suite" ;;
	esac
done

echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
