#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-thirdparty PYVIDEOCORE_SRC=DIR: PyVideoCore (DIR is its source
# tree, commit 56434701c340 of 2020-10-09 or later, which the caller
# provides: nothing is fetched) run unchanged through qpu.pyvideocore on
# the emulator device: its pytest suite (one line per test) and each of its
# examples. Its tree is only read (no bytecode, no pytest cache).
#
# What fails in PyVideoCore itself is told apart, not hidden: on a host whose
# native struct 'L' is 8 bytes (64-bit), the tests and examples that pack a
# 32-bit word with struct's native 'L' fail with struct.error before any QPU
# runs; those, and only when that is their error, are counted as skipped,
# with the cause. examples/mailbox.py queries the firmware, not the QPUs: it
# runs where /dev/vcio exists and is skipped elsewhere. Without
# PYVIDEOCORE_SRC it is skipped.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
make_cmd=${MAKE:-make}
python=${PYTHON:-/usr/bin/python3}
src=${PYVIDEOCORE_SRC:-}
pass=0 fail=0 skip=0

if [ -z "$src" ]; then
	echo "SKIP pyvideocore: PYVIDEOCORE_SRC is not set (a PyVideoCore source tree)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if ! src=$(cd "$src" 2>/dev/null && pwd) || [ ! -f "$src/videocore/driver.py" ]; then
	echo "FAIL pyvideocore: $PYVIDEOCORE_SRC is not a PyVideoCore tree (no videocore/driver.py)"
	echo "0 passed, 1 failed"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

result() {  # name status [detail]
	case $2 in
	0) echo "PASS $1"; pass=$((pass + 1)) ;;
	skip) echo "SKIP $1${3:+: $3}"; skip=$((skip + 1)) ;;
	*) echo "FAIL $1${3:+: $3}"; fail=$((fail + 1)) ;;
	esac
}

"$top/tools/deps.sh" pyvideocore >"$work/deps.log" 2>&1
result deps $? "$(tail -3 "$work/deps.log")"
"$make_cmd" -C "$top" --no-print-directory lib >"$work/build.log" 2>&1
result build_libqpu $? "$(tail -5 "$work/build.log")"
export QPU_LIBRARY=${BUILD:-$top/build}/libqpu.so.0 QPU_DEVICE=emu PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH=$top/libqpu/python:$src

# PyVideoCore's own failure on this host, told by its error: a struct.error
# from a native 'L' that is 8 bytes wide.
native_l=$("$python" -c 'import struct; print(struct.calcsize("L"))')
own_failure() {  # log
	[ "$native_l" = 8 ] && grep -q "struct.error: unpack requires a buffer of" "$1"
}
L_CAUSE="fails in PyVideoCore itself: it packs a 32-bit word with struct's native 'L', 8 bytes here"

# The suite: every test's outcome from pytest's summary (-rA).
(cd "$src" && "$python" -m qpu.pyvideocore -m pytest -p no:cacheprovider -rA -q tests) \
	>"$work/suite.log" 2>&1
status=$?
grep -E "^(PASSED|FAILED|ERROR) " "$work/suite.log" | sed 's/ - .*//' | sort -u >"$work/outcomes"
while read -r outcome id; do
	if [ "$outcome" = PASSED ]; then
		result "$id" 0
		continue
	fi
	# That test's section of the failure report.
	name=${id##*::}
	awk -v t="_ $name _" 'index($0, t) { on = 1; next } on && /^(_____+ |=====+)/ { exit } on' \
		"$work/suite.log" >"$work/one.log"
	if own_failure "$work/one.log"; then
		result "$id" skip "$L_CAUSE"
	else
		result "$id" 1 "$(grep -m1 '^E ' "$work/one.log" | sed 's/^E *//')"
	fi
done <"$work/outcomes"
if [ ! -s "$work/outcomes" ] || { [ "$status" != 0 ] && ! grep -q "^FAILED " "$work/outcomes"; }; then
	result "pytest tests" 1 "status $status: $(tail -5 "$work/suite.log")"
fi

# The examples: they check nothing themselves, so hello_world's printed
# error must be within float rounding; the others must end well.
for example in "$src"/examples/*.py; do
	name=examples/$(basename "$example")
	if [ "$name" = examples/mailbox.py ] && [ ! -e /dev/vcio ]; then
		result "$name" skip "firmware property queries (board, temperature), not QPU calls: this machine has no /dev/vcio"
		continue
	fi
	(cd "$src" && timeout 600 "$python" -m qpu.pyvideocore "$example") >"$work/example.log" 2>&1
	status=$?
	if [ "$status" != 0 ] && own_failure "$work/example.log"; then
		result "$name" skip "$L_CAUSE"
	elif [ "$status" != 0 ]; then
		result "$name" 1 "status $status: $(tail -1 "$work/example.log")"
	elif [ "$name" = examples/hello_world.py ]; then
		sed -n '/= error =/,$p' "$work/example.log" | tr -d '[]' | tail -n +2 |
			tr -s ' \n' '\n' | grep . >"$work/errors"
		bad=$(awk '$1 > 1e-6 { n++ } END { print n + 0 }' "$work/errors")
		if [ -s "$work/errors" ] && [ "$bad" = 0 ]; then
			result "$name" 0
		else
			result "$name" 1 "a+b differs from numpy's by more than 1e-6: $(tr '\n' ' ' <"$work/errors")"
		fi
	else
		result "$name" 0
	fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
