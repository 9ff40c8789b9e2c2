#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-make-help: `make help` (the README sends newcomers there) runs to its
# last line without a shell error, and every target it names is one the
# Makefiles define.

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp) || exit 1
trap 'rm -f "$out" "$out.err"' EXIT
pass=0 fail=0

check() {
	if [ "$2" = 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1"
		fail=$((fail + 1))
	fi
}

# not the calling make's jobserver: its warning would be on stderr
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top" help >"$out" 2>"$out.err"
check runs $?
[ ! -s "$out.err" ]
check no_errors $?
grep -q '^Variables:' "$out"
check reaches_last_line $?

# The targets named at the start of the help's lines.
bad=0
# shellcheck disable=SC2013
for t in $(sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p' "$out"); do
	if ! cat "$top/Makefile" "$top"/*/*.mk "$top"/*/*/*.mk "$top"/*/*/*/*.mk 2>/dev/null |
		grep -Eq "^([^#=]* )?$t( [^=]*)?:|^\.PHONY:.* $t( |$)"; then
		echo "    make help names '$t', which no Makefile defines"
		bad=1
	fi
done
check targets_exist $bad

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
