#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make lint-module-core`: qpu.ko links only the core it runs. Every core
# object linked into it (QPU_CORE_RUN_SRCS) defines a symbol that another
# of its objects uses, and none of the toolkit-only core (QPU_CORE_TOOL_SRCS,
# as built for libqpu) is defined in it.
# Usage: check-module-core.sh MODDIR USERDIR -- RUN_SRC... -- TOOL_SRC...
set -u

moddir=$1 userdir=$2
shift 3
run= tool= in_tool=0
for f in "$@"; do
	if [ "$f" = -- ]; then in_tool=1; continue; fi
	if [ $in_tool = 1 ]; then tool="$tool $f"; else run="$run $f"; fi
done
failed=0 checked=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

defs() { nm --defined-only -g "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }

objs=$(find "$moddir/kmod" "$moddir/libqpu" -name '*.o' | sort)
for src in $run; do
	obj=$moddir/${src%.c}.o
	[ -f "$obj" ] || { echo "FAIL: $obj was not built"; failed=1; continue; }
	defs "$obj" > "$tmp/defs"
	for o in $objs; do
		[ "$o" = "$obj" ] || nm -u "$o" | awk '{ print $2 }'
	done | sort -u > "$tmp/uses"
	if [ -z "$(comm -12 "$tmp/defs" "$tmp/uses")" ]; then
		echo "FAIL: qpu.ko links $src, but nothing in it uses it"
		failed=1
	fi
	checked=$((checked + 1))
done
for src in $tool; do
	defs "$userdir/${src%.c}.o" > "$tmp/tool"
	defs "$moddir/qpu.ko" | comm -12 - "$tmp/tool" > "$tmp/leak"
	if [ -s "$tmp/leak" ]; then
		echo "FAIL: qpu.ko defines symbols of $src: $(tr '\n' ' ' < "$tmp/leak")"
		failed=1
	fi
	checked=$((checked + 1))
done
echo "check-module-core: $checked core files checked"
exit $failed
