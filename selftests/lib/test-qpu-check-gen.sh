#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-check-gen: qpu-check -m, the V3D hazard rules. A 7.1 program
# with an SFU write in a thrsw delay slot is reported (exit 1, the rule
# named, the word in Mesa's syntax); moved one slot later it is clean (exit
# 0); -l lists the V3D rules; -W takes V3D rule names only with -m; an
# unknown machine exits 1; -t sets the threads that share the TMU FIFO. Needs QPU_DIS (qpu-as and qpu-check beside it).

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
bin=$(dirname "$QPU_DIS")

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

end='nop ; nop ; thrsw
nop ; nop ; thrsw
nop ; nop
nop ; nop
nop ; nop ; thrsw
nop ; nop
nop ; nop'
printf 'nop ; nop ; thrsw\nnop ; nop\nnop ; mov recip, r1\n%s\n' "$end" >"$tmp/bad.s"
printf 'nop ; nop ; thrsw\nnop ; nop\nnop ; nop\nnop ; mov recip, r1\n%s\n' "$end" >"$tmp/good.s"
"$bin/qpu-as" -m v3d42 -f hex -o "$tmp/bad.hex" "$tmp/bad.s" || fail "assemble bad.s"
"$bin/qpu-as" -m v3d42 -f hex -o "$tmp/good.hex" "$tmp/good.s" || fail "assemble good.s"

if "$bin/qpu-check" -m v3d42 "$tmp/bad.hex" >"$tmp/out" 2>"$tmp/err"; then
	fail "finding: exit 0"
elif ! grep -q "word 2 (0x0010): warning: .*\[sfu-in-thrsw-slot\]" "$tmp/out" ||
     ! grep -q "^    nop  *; mov recip, r1$" "$tmp/out" ||
     ! grep -q "1 finding in 10 words" "$tmp/err"; then
	fail "finding: $(cat "$tmp/out" "$tmp/err")"
else
	ok
fi
if "$bin/qpu-check" -m v3d42 "$tmp/good.hex" >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ]; then
	ok
else
	fail "clean: $(cat "$tmp/out")"
fi
# the rule switched off: clean
if "$bin/qpu-check" -m v3d42 -Wno-sfu-in-thrsw-slot "$tmp/bad.hex" >/dev/null 2>&1; then
	ok
else
	fail "-Wno-sfu-in-thrsw-slot still reports"
fi
if "$bin/qpu-check" -m v3d42 -l | grep -q '^thrend-rf-write ' &&
   ! "$bin/qpu-check" -l | grep -q '^thrend-rf-write '; then
	ok
else
	fail "-l: the V3D rules are not listed with -m only"
fi
if "$bin/qpu-check" -m v3d71 -Wno-regfile-raw "$tmp/good.hex" >/dev/null 2>"$tmp/err"; then
	fail "a VideoCore IV rule accepted with -m v3d71"
elif grep -q "unknown rule 'regfile-raw'" "$tmp/err"; then
	ok
else
	fail "unknown rule: $(cat "$tmp/err")"
fi
if "$bin/qpu-check" -m vc5 "$tmp/good.hex" >/dev/null 2>"$tmp/err"; then
	fail "unknown machine accepted"
elif grep -q "qpu-check: unknown machine 'vc5'" "$tmp/err"; then
	ok
else
	fail "unknown machine: $(cat "$tmp/err")"
fi

# -t: 5 TMU results read after one request fit 1 thread's FIFO share, not 4's
{ echo 'or tmua, rf1, rf1 ; nop'
  for i in 1 2 3 4 5; do echo 'nop ; nop ; ldtmu.rf2'; done
  echo "$end"; } >"$tmp/fifo.s"
"$bin/qpu-as" -m v3d42 -f hex -o "$tmp/fifo.hex" "$tmp/fifo.s" || fail "assemble fifo.s"
if "$bin/qpu-check" -m v3d42 -t 2 "$tmp/fifo.hex" >/dev/null 2>&1 &&
   ! "$bin/qpu-check" -m v3d42 -t 4 "$tmp/fifo.hex" >"$tmp/out" 2>&1 &&
   grep -q "word 5 .*\[tmu-fifo-overflow\]" "$tmp/out"; then
	ok
else
	fail "-t: $(cat "$tmp/out")"
fi
# -t 1: a thrsw within 2 of a thrsw is no hazard with one thread
{ echo 'nop ; nop ; thrsw'; echo 'nop ; nop'; echo 'nop ; nop ; thrsw'
  echo "$end"; } >"$tmp/thrsw.s"
"$bin/qpu-as" -m v3d71 -Wno-thrsw-too-close -f hex -o "$tmp/thrsw.hex" "$tmp/thrsw.s" ||
	fail "assemble thrsw.s"
if "$bin/qpu-check" -m v3d71 -t 1 "$tmp/thrsw.hex" >/dev/null 2>&1 &&
   ! "$bin/qpu-check" -m v3d71 "$tmp/thrsw.hex" >"$tmp/out" 2>&1 &&
   grep -q "\[thrsw-too-close\]" "$tmp/out"; then
	ok
else
	fail "-t 1: $(cat "$tmp/out")"
fi
if "$bin/qpu-check" -t 3 -m v3d42 "$tmp/fifo.hex" >/dev/null 2>"$tmp/err" ||
   ! grep -q "threads '3': 1, 2 or 4" "$tmp/err" ||
   "$bin/qpu-check" -t 2 "$tmp/fifo.hex" >/dev/null 2>"$tmp/err" ||
   ! grep -q "is for V3D code" "$tmp/err"; then
	fail "-t refusals: $(cat "$tmp/err")"
else
	ok
fi

echo "test-qpu-check-gen: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
