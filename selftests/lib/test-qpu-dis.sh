#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-dis: the qpu-dis tool end to end. Golden output for a hex file
# (plain and with --addresses --raw), the same words as binary and on
# standard input, and refusals: each bad input must exit 1 with a
# "qpu-dis: NAME: ..." message. Needs QPU_DIS (the tool) and QPU_TEST_DATA.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
: "${QPU_TEST_DATA:?QPU_TEST_DATA must name selftests/lib/data}"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# check NAME EXPECTED_FILE -- COMMAND...: stdout must equal the file, exit 0.
check_output() {
	name=$1 expected=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -ne 0 ]; then
		fail "$name: exit status $status ($(cat "$tmp/err"))"
	elif ! cmp -s "$expected" "$tmp/out"; then
		fail "$name: output differs:"
		diff -u "$expected" "$tmp/out" >&2
	fi
}

# check_error NAME PATTERN COMMAND...: exit 1, nothing on stdout, and a
# stderr line matching PATTERN.
check_error() {
	name=$1 pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -ne 1 ]; then
		fail "$name: exit status $status, expected 1"
	elif [ -s "$tmp/out" ]; then
		fail "$name: wrote to stdout: $(cat "$tmp/out")"
	elif ! grep -q -- "$pattern" "$tmp/err"; then
		fail "$name: stderr \"$(cat "$tmp/err")\" lacks \"$pattern\""
	fi
}

data=$QPU_TEST_DATA
check_output hex "$data/sample.expected" "$QPU_DIS" "$data/sample.hex"
check_output hex-forced "$data/sample.expected" "$QPU_DIS" --hex "$data/sample.hex"
check_output addresses-raw "$data/sample-ar.expected" \
	"$QPU_DIS" --addresses --raw "$data/sample.hex"
check_output short-options "$data/sample-ar.expected" \
	"$QPU_DIS" -a -r "$data/sample.hex"
# shellcheck disable=SC2016 # $0 and $1 belong to the inner shell
check_output stdin "$data/sample.expected" sh -c '"$0" < "$1"' \
	"$QPU_DIS" "$data/sample.hex"
# shellcheck disable=SC2016
check_output stdin-dash "$data/sample.expected" sh -c '"$0" - < "$1"' \
	"$QPU_DIS" "$data/sample.hex"

# The same words as little-endian binary, written with printf octal escapes.
# shellcheck disable=SC2059 # the format is the escape sequence
le32() {
	v=$1
	printf "\\$(printf %o $((v & 255)))\\$(printf %o $((v >> 8 & 255)))"
	printf "\\$(printf %o $((v >> 16 & 255)))\\$(printf %o $((v >> 24 & 255)))"
}
sed -e 's,//.*,,' -e 's,#.*,,' "$data/sample.hex" | grep -o '0x[0-9a-f]*' | while read -r w; do
	le32 "$w"
done >"$tmp/sample.bin"
check_output binary "$data/sample.expected" "$QPU_DIS" "$tmp/sample.bin"
check_output binary-forced "$data/sample.expected" "$QPU_DIS" -b "$tmp/sample.bin"
[ "$(wc -c <"$tmp/sample.bin")" -eq 112 ] || fail "binary fixture has the wrong size"

# Comments right after a number, no spaces, upper-case digits.
printf '0x009E7000,0x100009E7# nop\n0x009e7000 0x100009e7// nop\n' >"$tmp/tight.hex"
printf 'nop\nnop\n' >"$tmp/tight.expected"
check_output tight "$tmp/tight.expected" "$QPU_DIS" "$tmp/tight.hex"

# Empty input: no instructions, success.
: >"$tmp/empty"
check_output empty /dev/null "$QPU_DIS" "$tmp/empty"

# Help and version go to stdout with status 0.
check_stdout() {
	name=$1 pattern=$2
	shift 2
	if ! "$@" >"$tmp/out" 2>"$tmp/err"; then
		fail "$name: exit status $?"
	elif [ -s "$tmp/err" ] || ! grep -q -- "$pattern" "$tmp/out"; then
		fail "$name: stdout lacks \"$pattern\" or stderr is not empty"
	fi
}
check_stdout --help '^Usage: qpu-dis' "$QPU_DIS" --help
check_stdout -h '--addresses' "$QPU_DIS" -h
check_stdout --version '^qpu-dis (libqpu) [0-9]' "$QPU_DIS" --version

# Refusals.
check_error missing-file "qpu-dis: $tmp/nonexistent: No such file" \
	"$QPU_DIS" "$tmp/nonexistent"
printf '0x009e7000, 0x100009e7,\n0x009e7000,\n' >"$tmp/odd.hex"
check_error odd-words "qpu-dis: $tmp/odd.hex: line 2: odd number of 32-bit words" \
	"$QPU_DIS" "$tmp/odd.hex"
printf '0x009e7000, 0x100009e7,\n0x009e7000, banana\n' >"$tmp/junk.hex"
check_error bad-token "qpu-dis: $tmp/junk.hex: line 2: unexpected 'b'" \
	"$QPU_DIS" --hex "$tmp/junk.hex"
printf '0x123456789, 0x0\n' >"$tmp/wide.hex"
check_error wide-number "qpu-dis: $tmp/wide.hex: line 1: more than 32 bits" \
	"$QPU_DIS" "$tmp/wide.hex"
printf '0x12g4, 0x0\n' >"$tmp/badhex.hex"
check_error bad-digit "qpu-dis: $tmp/badhex.hex: line 1: unexpected 'g' after a number" \
	"$QPU_DIS" "$tmp/badhex.hex"
printf '0x, 0x0\n' >"$tmp/empty-num.hex"
check_error empty-number "line 1: empty hex number" "$QPU_DIS" "$tmp/empty-num.hex"
printf '0x009e7000, 0x100009e7\n\001\n' >"$tmp/ctrl.hex"
check_error control-byte "qpu-dis: $tmp/ctrl.hex: line 2: unexpected byte 0x01" \
	"$QPU_DIS" --hex "$tmp/ctrl.hex"
printf 'abcdefghijk' >"$tmp/short.bin"
check_error short-binary "qpu-dis: $tmp/short.bin: size 11 is not a multiple of 8 bytes" \
	"$QPU_DIS" "$tmp/short.bin"
# shellcheck disable=SC2016
check_error short-stdin "qpu-dis: <stdin>: size 11 is not a multiple of 8 bytes" \
	sh -c '"$0" < "$1"' "$QPU_DIS" "$tmp/short.bin"
check_error unknown-option "Try 'qpu-dis --help' for more information." "$QPU_DIS" --frobnicate
check_error two-files "qpu-dis: one input file at most" \
	"$QPU_DIS" "$data/sample.hex" "$data/sample.hex"
check_error directory "qpu-dis: $tmp: " "$QPU_DIS" "$tmp"

exit $failed
