# shellcheck shell=sh
# SPDX-License-Identifier: MIT
#
# check-lib.sh: what the shell test scripts of selftests/lib share, sourced
# by them: a scratch directory $tmp removed at exit, check NAME CMD... (PASS
# or FAIL with the command's output), and check_end, the closing line and
# the exit status run-tests.sh reads.

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

check() {
	name=$1
	shift
	if "$@" >"$tmp/log" 2>&1; then
		echo "PASS $name"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$tmp/log"
		fail=$((fail + 1))
	fi
}

check_end() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
