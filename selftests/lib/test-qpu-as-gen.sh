#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-as-gen: qpu-as -m, V3D source. A 7.1 program with a label
# assembles to the expected words (and back through qpu-dis -m), the same
# source is refused for 4.2 where an operation does not exist (exit 1,
# "FILE:LINE:COL: error: ..."), an unknown machine exits 1 naming it, and
# V3D code goes through V3D's hazard checker: a finding is a warning at its
# source line (an error with -Werror, which writes nothing), -Wno-RULE
# names V3D's rules even before -m, and a VideoCore IV rule is unknown there.
# Needs QPU_DIS (qpu-as sits beside it).

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
QPU_AS=${QPU_AS:-$(dirname "$QPU_DIS")/qpu-as}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

ok() {
	passed=$((passed + 1))
}

cat >"$tmp/prog.s" <<'SRC'
# a loop on the Pi 5: labels and expressions as for VideoCore IV
.set step, 1
loop:
	sub.pushz rf1, rf1, step    ; nop
	b.na0  loop
	nop ; nop
	nop ; nop ; thrsw
	fmov rf2, rf1 ; nop
SRC
"$QPU_AS" -m v3d71 -f hex -o "$tmp/prog.hex" "$tmp/prog.s" 2>"$tmp/err" ||
	fail "v3d71 program: $(cat "$tmp/err")"
cat >"$tmp/want.hex" <<'HEX'
0x3c03f041, 0x39e06181,
0xff001000, 0x02ffffdb,
0xbb03f000, 0x38003186,
0xbb03f000, 0x38203186,
0xf903f044, 0x38002182,
HEX
if cmp -s "$tmp/want.hex" "$tmp/prog.hex"; then ok; else
	fail "v3d71 program assembles to:"
	cat "$tmp/prog.hex" >&2
fi
"$QPU_DIS" -m v3d71 "$tmp/prog.hex" >"$tmp/dis" 2>&1
if grep -q '^b.na0  -40$' "$tmp/dis" && grep -q '^sub.pushz rf1, rf1, 1 ' "$tmp/dis"; then
	ok
else
	fail "qpu-dis -m v3d71 of it: $(cat "$tmp/dis")"
fi

# fmov is an add operation on 7.1 only
if "$QPU_AS" -m v3d42 -o "$tmp/out" "$tmp/prog.s" 2>"$tmp/err"; then
	fail "v3d42: fmov accepted"
elif ! grep -q "prog.s:8:2: error: fmov is no add operation of V3D 4.2" "$tmp/err"; then
	fail "v3d42: $(cat "$tmp/err")"
else
	ok
fi

if "$QPU_AS" -m v3d70 "$tmp/prog.s" >"$tmp/out" 2>"$tmp/err"; then
	fail "unknown machine accepted"
elif ! grep -q "qpu-as: unknown machine 'v3d70'" "$tmp/err"; then
	fail "unknown machine: $(cat "$tmp/err")"
else
	ok
fi

# a branch in the delay slots of a branch, then py-videocore6's thread end
cat >"$tmp/hz.s" <<'SRC'
loop:
	b  loop
	b  loop
	nop ; nop
	nop ; nop
	nop ; nop
	nop ; nop
	nop ; nop ; thrsw
	nop ; nop ; thrsw
	nop ; nop
	nop ; nop
	nop ; nop ; thrsw
	nop ; nop
	nop ; nop
SRC
for m in v3d42 v3d71; do
	rm -f "$tmp/hz.bin"
	if ! "$QPU_AS" -m $m -o "$tmp/hz.bin" "$tmp/hz.s" 2>"$tmp/err"; then
		fail "$m hazard warning: exit 1: $(cat "$tmp/err")"
	elif ! grep -q "hz.s:3:2: warning: branch in the delay slots of a branch \[branch-in-delay-slot\]" "$tmp/err" ||
	     ! grep -q "hz.s:2:2: note: word 0 is here" "$tmp/err" ||
	     [ "$(grep -c warning: "$tmp/err")" != 1 ] || [ ! -s "$tmp/hz.bin" ]; then
		fail "$m hazard warning: $(cat "$tmp/err")"
	else
		ok
	fi
	rm -f "$tmp/hz.bin"
	if "$QPU_AS" -m $m -Werror -o "$tmp/hz.bin" "$tmp/hz.s" 2>"$tmp/err"; then
		fail "$m -Werror: exit 0"
	elif ! grep -q "hz.s:3:2: error: branch in the delay slots" "$tmp/err" ||
	     [ -e "$tmp/hz.bin" ]; then
		fail "$m -Werror: $(cat "$tmp/err")"
	else
		ok
	fi
	if ! "$QPU_AS" -Wno-branch-in-delay-slot -m $m -Werror -o "$tmp/hz.bin" \
		"$tmp/hz.s" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
		fail "$m -Wno-branch-in-delay-slot: $(cat "$tmp/err")"
	else
		ok
	fi
	# regfile-raw is VideoCore IV's
	if "$QPU_AS" -m $m -Wno-regfile-raw "$tmp/hz.s" >"$tmp/out" 2>"$tmp/err"; then
		fail "$m -Wno-regfile-raw accepted"
	elif ! grep -q "unknown warning '-Wno-regfile-raw' (qpu-check -m $m -l" "$tmp/err"; then
		fail "$m -Wno-regfile-raw: $(cat "$tmp/err")"
	else
		ok
	fi
done

echo "test-qpu-as-gen: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
