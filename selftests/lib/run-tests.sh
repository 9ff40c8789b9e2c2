#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs the library tests given as arguments (programs, or *.sh scripts run
# with sh), each under a timeout, liburing style: exit 0 pass, 77 skip,
# anything else fail. Prints one line per test, then its output indented
# (a program of named cases prints a line per case and its own closing
# line), and last "N passed, N failed[, N skipped]"; exits 1 if any test
# failed or none ran. The closing line adds up cases: a program's own
# closing line gives its numbers, a script or a program without one counts
# as one; a program that exits non-zero yet counted no failure (it crashed
# after its closing line, or lied) gets one. TEST_TIMEOUT overrides the
# 300 s limit.

timeout=${TEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
# counts LINE...: the numbers of a closing line into p, f and s
counts() {
	p=$1 f=$3 s=${5:-0}
}
closing='^[0-9][0-9]* passed, [0-9][0-9]* failed\(, [0-9][0-9]* skipped\)\{0,1\}$'

for test in "$@"; do
	name=$(basename "$test" .sh)
	case $test in
	*.sh) timeout "$timeout" sh "$test" >"$log" 2>&1 ;;
	*) timeout "$timeout" "$test" >"$log" 2>&1 ;;
	esac
	status=$?
	line=$(grep "$closing" "$log" | tail -n 1)
	p=0 f=0 s=0
	[ -z "$line" ] || counts $line
	case $status in
	0)
		if [ "$f" -gt 0 ]; then
			echo "FAIL $name (exit status 0 after $f failed)"
		else
			echo "PASS $name"
			[ -n "$line" ] || p=1
		fi
		;;
	77)
		echo "SKIP $name"
		[ -n "$line" ] || s=1
		;;
	124)
		echo "FAIL $name (timed out after ${timeout}s)"
		[ "$f" -gt 0 ] || f=1
		;;
	*)
		echo "FAIL $name (exit status $status)"
		[ "$f" -gt 0 ] || f=1
		;;
	esac
	sed 's/^/    /' "$log"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
# A run without tests proves nothing: fail it.
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
