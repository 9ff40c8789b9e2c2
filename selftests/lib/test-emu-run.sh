#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-emu-run: the qpu-run tool end to end on a 9-instruction program
# (r0 = elem_num + uniform 0, one VPM row stored by VCD DMA to uniform 1):
# the dumped memory, the same output with --no-predecode, the trace (the
# values written, the chosen QPUs, bad QPU lists), and
# the exit status and report of a fault, a deadlock and a spent budget;
# --timing's modelled cycles per QPU, the same on every run.
# qpu-run is looked up next to QPU_DIS.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
run=$(dirname "$QPU_DIS")/qpu-run
if [ ! -x "$run" ]; then
	echo "$run not built (make tools)"
	exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# The program, as encoded by qpu_isa_encode() (see test-emu-sys.c).
printf '\300\015\232\014\047\010\002\020\000\032\000\000\147\034\002\340'\
'\000\160\236\025\047\014\002\020\000\100\220\200\147\034\002\340'\
'\300\017\236\025\247\034\002\020\000\040\237\000\347\011\000\020'\
'\000\160\236\000\347\011\000\060\000\160\236\000\347\011\000\020'\
'\000\160\236\000\347\011\000\020' >"$tmp/prog.bin"

# expect NAME STATUS -- COMMAND...: the exit status must be STATUS.
expect() {
	name=$1 want=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq "$want" ] ||
		fail "$name: exit status $status, expected $want ($(cat "$tmp/err"))"
}

expect run 0 -- "$run" -u 100 -u 0x20000 -z 64@0x20000 -d 64@0x20000 \
	"$tmp/prog.bin"
cat >"$tmp/want" <<'EOW'
00000064 00000065 00000066 00000067 00000068 00000069 0000006a 0000006b
0000006c 0000006d 0000006e 0000006f 00000070 00000071 00000072 00000073
EOW
cmp -s "$tmp/want" "$tmp/out" || fail "run: dump differs: $(cat "$tmp/out")"

# the reference path (no predecoded instructions): same dump, same counters
expect stats 0 -- "$run" --stats -u 100 -u 0x20000 -z 64@0x20000 \
	-d 64@0x20000 "$tmp/prog.bin"
cp "$tmp/out" "$tmp/cached"
expect no-predecode 0 -- "$run" --no-predecode --stats -u 100 -u 0x20000 \
	-z 64@0x20000 -d 64@0x20000 "$tmp/prog.bin"
cmp -s "$tmp/cached" "$tmp/out" ||
	fail "no-predecode: output differs: $(cat "$tmp/out")"
grep -q '00000064 00000065' "$tmp/out" || fail "no-predecode: no dump"

expect dump-file 0 -- "$run" -u 7 -u 0x20000 -z 64@0x20000 \
	-d "64@0x20000=$tmp/dump.bin" "$tmp/prog.bin"
[ "$(wc -c <"$tmp/dump.bin")" -eq 64 ] || fail "dump-file: size"

expect trace 0 -- "$run" -t -u 1 -u 0x20000 -z 64@0x20000 "$tmp/prog.bin"
[ "$(grep -c '^qpu0 ' "$tmp/out")" -eq 9 ] || fail "trace: 9 lines expected"
grep -q '^qpu0  00010020: 10021ca7159e0fc0  mov vw_addr, rb32$' "$tmp/out" ||
	fail "trace: line for 0x10020 missing: $(cat "$tmp/out")"
# the values written, under their instruction: r0 = elem_num + 1 lane by
# lane, the DMA address in every lane
grep -q '^ *r0 = 00000001 00000002 00000003 .* 0000000f 00000010$' \
	"$tmp/out" || fail "trace: r0's lanes missing: $(cat "$tmp/out")"
grep -A1 '^qpu0  00010020:' "$tmp/out" |
	grep -q '^ *vw_addr = 00020000 (every lane)$' ||
	fail "trace: the vw_addr write missing: $(cat "$tmp/out")"

# chosen QPUs only: two programs, QPU 1 traced
expect trace-qpus 0 -- "$run" --trace=1 -n 2 -S 0 -u 1 -u 0x20000 \
	-z 64@0x20000 "$tmp/prog.bin"
[ "$(grep -c '^qpu1 ' "$tmp/out")" -eq 9 ] &&
	! grep -q '^qpu0 ' "$tmp/out" ||
	fail "trace-qpus: QPU 1's 9 lines only expected: $(cat "$tmp/out")"
expect trace-list 0 -- "$run" --trace=0,2-3 -n 4 -S 0 -u 1 -u 0x20000 \
	-z 64@0x20000 "$tmp/prog.bin"
[ "$(grep -c '^qpu[023] ' "$tmp/out")" -eq 27 ] &&
	! grep -q '^qpu1 ' "$tmp/out" ||
	fail "trace-list: QPUs 0, 2 and 3 expected: $(cat "$tmp/out")"
for bad in 12 3-1 x 1- -1 '' 0,,x; do
	expect "trace-bad-$bad" 1 -- "$run" "--trace=$bad" "$tmp/prog.bin"
	grep -q 'qpu-run: bad' "$tmp/err" ||
		fail "trace-bad-$bad: no message: $(cat "$tmp/err")"
done

expect fault 2 -- "$run" -u 1 -u 0x30000 -z 64@0x20000 "$tmp/prog.bin"
grep -q 'fault on qpu 0 at pc 0x00010020: memory outside every mapped region, DMA store of 0x00030000' \
	"$tmp/err" || fail "fault: report: $(cat "$tmp/err")"

expect budget 4 -- "$run" -b 3 -u 1 -u 0x20000 -z 64@0x20000 "$tmp/prog.bin"
grep -q 'qpu 0: pc 0x10018, running' "$tmp/err" ||
	fail "budget: report: $(cat "$tmp/err")"

# sacq 0 (counter 0): waits forever
printf '\020\000\000\000\347\011\000\350' >"$tmp/sacq.bin"
expect deadlock 3 -- "$run" "$tmp/sacq.bin"
grep -q 'qpu 0: pc 0x10000, waits on a semaphore (acquire 0)' "$tmp/err" ||
	fail "deadlock: report: $(cat "$tmp/err")"

# --timing: a row per QPU, the same cycles every run, the dump unchanged
expect timing 0 -- "$run" --timing -n 2 -S 0 -u 100 -u 0x20000 -z 64@0x20000 \
	-d 64@0x20000 "$tmp/prog.bin"
grep -q '^timing (modelled on Pi 1/Zero):$' "$tmp/out" ||
	fail "timing: no header: $(cat "$tmp/out")"
[ "$(grep -c '^  [01] ' "$tmp/out")" -eq 2 ] || fail "timing: 2 QPU rows expected"
grep -q '^job: [1-9][0-9]* cycles, [0-9.]* us$' "$tmp/out" ||
	fail "timing: no job line: $(cat "$tmp/out")"
grep -q '00000064 00000065' "$tmp/out" || fail "timing: no dump"
cp "$tmp/out" "$tmp/timing1"
expect timing-again 0 -- "$run" --timing -n 2 -S 0 -u 100 -u 0x20000 \
	-z 64@0x20000 -d 64@0x20000 "$tmp/prog.bin"
cmp -s "$tmp/timing1" "$tmp/out" || fail "timing: cycles differ between runs"
expect timing-pi3 0 -- "$run" --timing=pi3 -u 100 -u 0x20000 -z 64@0x20000 \
	"$tmp/prog.bin"
grep -q '^timing (modelled on Pi 3 (extrapolated)):$' "$tmp/out" ||
	fail "timing-pi3: header: $(cat "$tmp/out")"
expect timing-bad 1 -- "$run" --timing=pi4 "$tmp/prog.bin"
grep -q "unknown board 'pi4'" "$tmp/err" || fail "timing-bad: $(cat "$tmp/err")"

expect usage 1 -- "$run" -z 64@0x10000 "$tmp/prog.bin"
grep -q 'overlaps' "$tmp/err" || fail "usage: overlap not refused"
printf 'abc' >"$tmp/odd.bin"
expect odd-size 1 -- "$run" "$tmp/odd.bin"

exit $failed
