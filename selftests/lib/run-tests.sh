#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs the library tests given as arguments (programs, or *.sh scripts run
# with sh), each under a timeout, liburing style: exit 0 pass, 77 skip,
# anything else fail. Prints one line per test, the output of failed ones,
# and last "N passed, N failed[, N skipped]"; exits 1 if any test failed or
# none ran. TEST_TIMEOUT overrides the 300 s limit.

timeout=${TEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

for test in "$@"; do
	name=$(basename "$test" .sh)
	case $test in
	*.sh) timeout "$timeout" sh "$test" >"$log" 2>&1 ;;
	*) timeout "$timeout" "$test" >"$log" 2>&1 ;;
	esac
	status=$?
	case $status in
	0)
		echo "PASS $name"
		passed=$((passed + 1))
		;;
	77)
		echo "SKIP $name"
		sed 's/^/    /' "$log"
		skipped=$((skipped + 1))
		;;
	124)
		echo "FAIL $name (timed out after ${timeout}s)"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
		;;
	*)
		echo "FAIL $name (exit status $status)"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
		;;
	esac
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
# A run without tests proves nothing: fail it.
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
