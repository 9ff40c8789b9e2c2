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
# 300 s limit. TEST_JOBS tests (default: one per CPU) run at once, each
# into its own log; the reports still come in the order given, each as
# soon as its test and those before it have ended. The tests keep their
# files apart (mktemp), so any two may run side by side. TEST_WRAPPER
# runs the programs (not the scripts) through a command, such as
# "qemu-i386 -L /" (check-m32 on a kernel without 32-bit support).

timeout=${TEST_TIMEOUT:-300}

# One test, as a worker of the pool below: "--one DIR N TEST" runs TEST
# into DIR/N.log, then writes its exit status to DIR/N.rc (renamed into
# place, so that the reporter never reads half a status).
if [ "${1:-}" = --one ]; then
	dir=$2 n=$3 test=$4
	case $test in
	*.sh) timeout "$timeout" sh "$test" >"$dir/$n.log" 2>&1 ;;
	*) timeout "$timeout" ${TEST_WRAPPER:-} "$test" >"$dir/$n.log" 2>&1 ;;
	esac
	echo $? >"$dir/$n.tmp" && mv "$dir/$n.tmp" "$dir/$n.rc"
	exit 0
fi

jobs=${TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
passed=0 failed=0 skipped=0
dir=$(mktemp -d) || exit 1
pool=
trap '[ -z "$pool" ] || kill "$pool" 2>/dev/null; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
# counts LINE...: the numbers of a closing line into p, f and s
counts() {
	p=$1 f=$3 s=${5:-0}
}
closing='^[0-9][0-9]* passed, [0-9][0-9]* failed\(, [0-9][0-9]* skipped\)\{0,1\}$'

n=0
for test in "$@"; do
	n=$((n + 1))
	printf '%s\0%s\0' "$n" "$test"
done >"$dir/list"
xargs -0 -n 2 -P "$jobs" sh "$0" --one "$dir" <"$dir/list" &
pool=$!

n=0
for test in "$@"; do
	n=$((n + 1))
	while [ ! -e "$dir/$n.rc" ]; do
		kill -0 "$pool" 2>/dev/null || [ -e "$dir/$n.rc" ] || break
		sleep 0.1
	done
	name=$(basename "$test" .sh)
	log=$dir/$n.log
	status=$(cat "$dir/$n.rc" 2>/dev/null || echo 125)
	line=$( [ ! -e "$log" ] || grep "$closing" "$log" | tail -n 1)
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
	[ ! -e "$log" ] || sed 's/^/    /' "$log"
	rm -f "$log"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
wait "$pool"
pool=
# A run without tests proves nothing: fail it.
[ "$failed" -eq 0 ] && [ $((passed + skipped)) -gt 0 ]
