#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-run-v3d: qpu-run -m v3d42 / v3d71 end to end (and qpu-info
# on the emulated V3D devices), a program assembled by qpu-as dispatched
# on the emulated V3D device (data/v3d-store.s: each lane stores eidx +
# uniform 1 at uniform 0 + 4 * eidx), the dump checked on
# both generations; a fault's report (QPU, thread, PC, kind, address, the
# instruction); a spent budget; a deadlock with each QPU's wait; the
# workgroup size and thread count asked (--wg-size, --threads) and their
# refusals; regions refused at addresses the V3D cannot place; options that
# are VideoCore IV's alone; --timing on each board and its refusals; an
# unknown machine.
# qpu-run, qpu-as and qpu-info are looked up next to QPU_DIS.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
bin=$(dirname "$QPU_DIS")
run=$bin/qpu-run
as=$bin/qpu-as
if [ ! -x "$run" ] || [ ! -x "$as" ]; then
	echo "qpu-run or qpu-as not built (make tools)"
	exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

store=${QPU_TEST_DATA:-$(dirname "$0")/data}/v3d-store.s
cat >"$tmp/spin.s" <<'EOS'
loop:
b loop
nop ; nop
nop ; nop
nop ; nop
EOS

# Every lane stores its local index | tidx << 8 at word 64 * workgroup x +
# local index: the payload's workgroup id is rf0 on 4.2, rf3 on 7.1 (WG).
cat >"$tmp/where.s" <<'EOS'
nop ; nop ; ldunifrf.rf10
shr rf5, rf2, 13 ; nop
shr rf5, rf5, 13 ; nop
and rf6, WG, 15 ; nop
shl rf6, rf6, 6 ; nop
add rf6, rf6, rf5 ; nop
shl rf8, rf6, 2 ; nop
add rf8, rf8, rf10 ; nop
tidx rf7 ; nop
shl rf7, rf7, 8 ; nop
or rf7, rf7, rf5 ; nop
nop ; mov tmud, rf7
nop ; mov tmua, rf8
EOS
# the store's wait and the thread end, as the data program has them
sed -n '/^tmuwt/,$p' "$store" >>"$tmp/where.s"
# Waits on ldtmu with nothing queued.
cat >"$tmp/stuck.s" <<'EOS'
nop ; nop ; ldtmu.rf1
EOS

# expect NAME STATUS -- COMMAND...: the exit status must be STATUS.
expect() {
	name=$1 want=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq "$want" ]; then
		ok
	else
		fail "$name: exit status $status, expected $want ($(cat "$tmp/err"))"
	fi
}

cat >"$tmp/want" <<'EOW'
00000064 00000065 00000066 00000067 00000068 00000069 0000006a 0000006b
0000006c 0000006d 0000006e 0000006f 00000070 00000071 00000072 00000073
EOW
for gen in v3d42 v3d71; do
	"$as" -m "$gen" -o "$tmp/store-$gen.bin" "$store" || fail "$gen: qpu-as"
	"$as" -m "$gen" -Wno-thrend-missing -o "$tmp/spin-$gen.bin" "$tmp/spin.s" || fail "$gen: qpu-as"
	expect "$gen-run" 0 -- "$run" -m "$gen" -n 3 -z 4096@0x60000 -u 0x60000 \
		-u 100 -d 64@0x60000 "$tmp/store-$gen.bin"
	if cmp -s "$tmp/want" "$tmp/out"; then ok; else fail "$gen-run: dump: $(cat "$tmp/out")"; fi
	expect "$gen-stats" 0 -- "$run" --machine="$gen" -n 2 -M "$tmp/want@0x80000" \
		-u 0x80000 -u 1 --stats "$tmp/store-$gen.bin"
	if grep -q '^instructions: 32$' "$tmp/out" &&
	   grep -q '^bytes: tmu 128, uniforms 16$' "$tmp/out"; then
		ok
	else
		fail "$gen-stats: $(cat "$tmp/out")"
	fi
	expect "$gen-fault" 2 -- "$run" -m "$gen" -u 0x100 -u 1 "$tmp/store-$gen.bin"
	if grep -q 'fault on qpu [0-9]* thread [0-3] at pc 0x00020038: TMU .* of 0x00000100' "$tmp/err" &&
	   grep -q 'mov tmua, rf10' "$tmp/err"; then
		ok
	else
		fail "$gen-fault: report: $(cat "$tmp/err")"
	fi
	expect "$gen-budget" 4 -- "$run" -m "$gen" -b 1000 "$tmp/spin-$gen.bin"
	if grep -q 'budget spent' "$tmp/err"; then ok; else fail "$gen-budget: $(cat "$tmp/err")"; fi
	"$as" -m "$gen" -Wno-thrend-missing -Wno-tmu-load-empty -o "$tmp/stuck-$gen.bin" "$tmp/stuck.s" || fail "$gen: qpu-as"
	expect "$gen-deadlock" 3 -- "$run" -m "$gen" -n 2 "$tmp/stuck-$gen.bin"
	if grep -q 'deadlock: every running thread waits forever' "$tmp/err" &&
	   grep -q 'qpu 1 at pc 0x00020000: waits on ldtmu with nothing queued' "$tmp/err"; then
		ok
	else
		fail "$gen-deadlock: $(cat "$tmp/err")"
	fi
	wg=rf0
	[ "$gen" = v3d71 ] && wg=rf3
	sed "s/WG/$wg/" "$tmp/where.s" >"$tmp/where-$gen.s"
	"$as" -m "$gen" -o "$tmp/where-$gen.bin" "$tmp/where-$gen.s" || fail "$gen: qpu-as where"
	# two workgroups of 40: local indices 0..39 at 0..39 and 64..103
	expect "$gen-wg-size" 0 -- "$run" -m "$gen" -n 2 --wg-size=40 -z 1024@0x60000 \
		-u 0x60000 -d 512@0x60000 "$tmp/where-$gen.bin"
	i=0 locals=
	for w in $(cat "$tmp/out"); do
		v=$((0x$w))
		if [ $i -lt 40 ] || { [ $i -ge 64 ] && [ $i -lt 104 ]; }; then
			locals="$locals$((v % 256)) "
		elif [ $v -ne 0 ]; then
			locals="$locals! "
		fi
		i=$((i + 1))
	done
	want=$(awk 'BEGIN { for (w = 0; w < 2; w++) for (i = 0; i < 40; i++) printf "%d ", i }')
	if [ "$locals" = "$want" ]; then ok; else fail "$gen-wg-size: $locals"; fi
	# 16 workgroups of 16 on 8 or 12 QPUs: 4 threads fill slot 1 next, 1 slot 2
	for t in 1 4; do
		expect "$gen-threads-$t" 0 -- "$run" -m "$gen" -n 16 --threads=$t \
			-z 8192@0x60000 -u 0x60000 -d 4096@0x60000 "$tmp/where-$gen.bin"
		i=0 slots=
		for w in $(cat "$tmp/out"); do
			[ $((i % 64)) -eq 0 ] && slots="$slots$(($((0x$w)) / 256 % 4))"
			i=$((i + 1))
		done
		case $t in
		1) want=$(printf '%s' "$slots" | tr -d '02') ;;
		4) want=$(printf '%s' "$slots" | tr -d '01') ;;
		esac
		if [ -z "$want" ] && printf '%s' "$slots" | grep -q "$([ $t = 1 ] && echo 2 || echo 1)"; then
			ok
		else
			fail "$gen-threads-$t: slots $slots"
		fi
	done
done
expect wg-size-0 1 -- "$run" -m v3d42 --wg-size=0 "$tmp/store-v3d42.bin"
if grep -q "bad workgroup size '0'" "$tmp/err"; then ok; else fail "wg-size-0: $(cat "$tmp/err")"; fi
expect wg-size-257 1 -- "$run" -m v3d42 --wg-size=257 "$tmp/store-v3d42.bin"
expect threads-3 1 -- "$run" -m v3d71 --threads=3 "$tmp/store-v3d71.bin"
if grep -q "bad thread count '3'" "$tmp/err"; then ok; else fail "threads-3: $(cat "$tmp/err")"; fi
expect threads-vc4 1 -- "$run" --threads=4 "$tmp/store-v3d42.bin"
if grep -q "V3D's" "$tmp/err"; then ok; else fail "threads-vc4: $(cat "$tmp/err")"; fi

expect misaligned 1 -- "$run" -m v3d42 -z 4096@0x61000 "$tmp/store-v3d42.bin"
if grep -q 'multiple of 0x20000' "$tmp/err"; then ok; else fail "misaligned: $(cat "$tmp/err")"; fi
expect page-zero 1 -- "$run" -m v3d42 -z 4096@0 "$tmp/store-v3d42.bin"
expect too-close 1 -- "$run" -m v3d42 -z 0x20000@0x60000 -z 4096@0x80000 \
	"$tmp/store-v3d42.bin"
if grep -q 'cannot place it at 0x00080000' "$tmp/err"; then ok; else fail "too-close: $(cat "$tmp/err")"; fi
expect overlap 1 -- "$run" -m v3d71 -c 0x40000 "$tmp/store-v3d71.bin"
expect vc4-only 1 -- "$run" -m v3d71 --trace "$tmp/store-v3d71.bin"
if grep -q "VideoCore IV's" "$tmp/err"; then ok; else fail "vc4-only: $(cat "$tmp/err")"; fi
# --timing: the job's modelled time on the generation's boards, more
# workgroups taking more cycles, the dump unchanged; a board of the other
# generation (or VideoCore IV's for V3D, and the reverse) refused.
cycles() { sed -n 's/^job: \([0-9]*\) cycles, .*/\1/p' "$tmp/out"; }
for row in "v3d42 pi4 Pi 4 (V3D 4.2, 8 QPUs" "v3d42 - Pi 4 (V3D 4.2, 8 QPUs" \
	"v3d71 pi5 Pi 5 (V3D 7.1, 12 QPUs" "v3d71 pi5-16 Pi 5 (V3D 7.1, 16 QPUs"; do
	# shellcheck disable=SC2086 # the row's words are the fields
	set -- $row
	label=${row#* * }
	[ "$2" = - ] && set -- "$1"
	opt=--timing${2:+=$2}
	expect "timing-$1-$2" 0 -- "$run" -m "$1" "$opt" -n 3 \
		-z 4096@0x60000 -u 0x60000 -u 100 -d 64@0x60000 "$tmp/store-$1.bin"
	few=$(cycles)
	if grep -qF "timing (modelled on $label, " "$tmp/out" &&
	   grep -qF "device emu:$1${2:+,board=$2},timing: a model" "$tmp/out" &&
	   grep -q '^job: [1-9][0-9]* cycles, [0-9.]* us with SUBMIT_CSD, [1-9][0-9]* bytes through SDRAM$' "$tmp/out" &&
	   grep -q '^stalls (cycles, all QPUs): tmu [0-9]*, other [0-9]*$' "$tmp/out" &&
	   grep -q '^00000064 00000065' "$tmp/out"; then
		ok
	else
		fail "timing-$1-$2: $(cat "$tmp/out" "$tmp/err")"
	fi
	expect "timing-$1-$2-more" 0 -- "$run" -m "$1" "$opt" -n 40 \
		-z 4096@0x60000 -u 0x60000 -u 100 "$tmp/store-$1.bin"
	if [ -n "$few" ] && [ "$(cycles)" -gt "$few" ]; then ok; else fail "timing-$1-$2-more: $few then $(cycles)"; fi
done
expect timing-other-gen 1 -- "$run" -m v3d71 --timing=pi4 "$tmp/store-v3d71.bin"
if grep -q "unknown board 'pi4' for v3d71 (pi5, pi5-16)" "$tmp/err"; then ok; else fail "timing-other-gen: $(cat "$tmp/err")"; fi
expect timing-vc4-board 1 -- "$run" -m v3d42 --timing=pi1 "$tmp/store-v3d42.bin"
if grep -q "unknown board 'pi1' for v3d42 (pi4)" "$tmp/err"; then ok; else fail "timing-vc4-board: $(cat "$tmp/err")"; fi
expect timing-v3d-board-on-vc4 1 -- "$run" --timing=pi4 "$tmp/store-v3d42.bin"
if grep -q "unknown board 'pi4' (pi1, pi2, pi3, pi3plus)" "$tmp/err"; then ok; else fail "timing-v3d-board-on-vc4: $(cat "$tmp/err")"; fi
expect machine 1 -- "$run" -m v3d9 "$tmp/store-v3d42.bin"
if grep -q "unknown machine 'v3d9'" "$tmp/err"; then ok; else fail "machine: $(cat "$tmp/err")"; fi

info=$bin/qpu-info
for row in "emu:v3d42 v3d42 8 2" "emu:v3d71 v3d71 12 3" "emu:v3d71,board=pi5-16 v3d71 16 4"; do
	# shellcheck disable=SC2086 # the row's words are the fields
	set -- $row
	expect "info-$1" 0 -- "$info" -d "$1"
	if grep -qx "gen: $2" "$tmp/out" && grep -qx "qpus: $3" "$tmp/out" &&
	   grep -qx "slices: $4" "$tmp/out" && ! grep -q '^semaphores' "$tmp/out"; then
		ok
	else
		fail "info-$1: $(cat "$tmp/out")"
	fi
done
expect info-bad-board 1 -- "$info" -d emu:v3d42,board=pi5

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
