#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-check: the hazard checker through the tools. qpu-as prints each
# finding at its source line with notes (exact stderr), writes its output
# anyway, and with -Werror fails without output; -Wno-RULE silences one
# rule; an unknown rule is refused. qpu-check prints the exact findings of a hex file, exits 1 on findings
# and 0 on clean code, lists its rules, and reports unreadable input like
# qpu-dis. Tools are looked up next to QPU_DIS.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
: "${QPU_TEST_DATA:?QPU_TEST_DATA must name selftests/lib/data}"
bindir=$(cd "$(dirname "$QPU_DIS")" && pwd)
QPU_AS=${QPU_AS:-$bindir/qpu-as}
QPU_CHECK=${QPU_CHECK:-$bindir/qpu-check}
data=$(cd "$QPU_TEST_DATA/hazard" && pwd)
if [ ! -x "$QPU_AS" ]; then
	echo "qpu-as not built at $QPU_AS"
	exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# The sources are named as given on the command line: run where they are.
cd "$data" || exit 1

# test_qpu_as_warns: warnings with notes, exit 0, the words written
"$QPU_AS" -f hex -o "$tmp/out.hex" hazard.qasm 2>"$tmp/err"
status=$?
[ "$status" -eq 0 ] || fail "warn: exit status $status"
cmp -s hazard.as.expected "$tmp/err" || {
	fail "warn: stderr differs:"
	diff -u hazard.as.expected "$tmp/err" >&2
}
grep -v '^//' hazard.hex | cmp -s - "$tmp/out.hex" || fail "warn: words differ from hazard.hex"

# test_qpu_as_werror: the same lines as errors, exit 1, no output file
"$QPU_AS" -Werror -f hex -o "$tmp/werror.hex" hazard.qasm 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "werror: exit status $status, expected 1"
[ ! -e "$tmp/werror.hex" ] || fail "werror: an output file was written"
sed 's/: warning: /: error: /' hazard.as.expected | cmp -s - "$tmp/err" || {
	fail "werror: stderr differs:"
	cat "$tmp/err" >&2
}

# test_qpu_as_wno: each rule off by name; all three off leaves nothing
"$QPU_AS" -Werror -Wno-regfile-raw -Wno-sfu-r4-read -Wno-thrend-io -f hex \
	-o "$tmp/wno.hex" hazard.qasm 2>"$tmp/err"
status=$?
[ "$status" -eq 0 ] || fail "wno: exit status $status ($(cat "$tmp/err"))"
[ ! -s "$tmp/err" ] || fail "wno: stderr \"$(cat "$tmp/err")\""
"$QPU_AS" -Wno-regfile-raw -f hex hazard.qasm 2>"$tmp/err" >/dev/null
grep -q 'regfile-raw' "$tmp/err" && fail "wno: regfile-raw still reported"
[ "$(grep -c 'warning:' "$tmp/err")" -eq 2 ] || fail "wno: expected 2 warnings, got $(cat "$tmp/err")"

# test_qpu_as_unknown_rule: refused by name
"$QPU_AS" -Wno-no-such-rule hazard.qasm >/dev/null 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "unknown rule: exit status $status"
grep -q "^qpu-as: unknown warning '-Wno-no-such-rule'" "$tmp/err" ||
	fail "unknown rule: stderr \"$(cat "$tmp/err")\""

# test_qpu_as_clean: no hazard, no word on stderr
"$QPU_AS" -Werror -f hex clean.qasm >/dev/null 2>"$tmp/err" ||
	fail "clean: qpu-as failed: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "clean: stderr \"$(cat "$tmp/err")\""

if [ ! -x "$QPU_CHECK" ]; then
	fail "qpu-check not built at $QPU_CHECK"
	exit 1
fi

# test_qpu_check_findings: exact stdout, a summary on stderr, exit 1
"$QPU_CHECK" hazard.hex >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "check: exit status $status, expected 1"
cmp -s hazard.check.expected "$tmp/out" || {
	fail "check: stdout differs:"
	diff -u hazard.check.expected "$tmp/out" >&2
}
[ "$(cat "$tmp/err")" = "qpu-check: hazard.hex: 3 findings in 10 words" ] ||
	fail "check: stderr \"$(cat "$tmp/err")\""

# test_qpu_check_quiet_stdin_binary: -q drops the disassembly; binary input
# on standard input gives the same findings
"$QPU_AS" -Wno-regfile-raw -Wno-sfu-r4-read -Wno-thrend-io -o "$tmp/h.bin" hazard.qasm
"$QPU_CHECK" -q <"$tmp/h.bin" >"$tmp/out" 2>/dev/null
grep '^hazard' hazard.check.expected | sed 's/^hazard.hex/<stdin>/' |
	cmp -s - "$tmp/out" || fail "quiet: stdout \"$(cat "$tmp/out")\""

# test_qpu_check_wno: with the three rules off the code is clean
"$QPU_CHECK" -Wno-regfile-raw -Wno-sfu-r4-read -Wno-thrend-io hazard.hex \
	>"$tmp/out" 2>&1 || fail "wno: exit status $? ($(cat "$tmp/out"))"
[ ! -s "$tmp/out" ] || fail "wno: output \"$(cat "$tmp/out")\""
# -WRULE keeps only the rules named
"$QPU_CHECK" -q -Wthrend-io hazard.hex >"$tmp/out" 2>/dev/null
[ "$(cat "$tmp/out")" = "hazard.hex: word 9 (0x0048): warning: reads unif at thread end (thrend at word 7) [thrend-io]" ] ||
	fail "only: stdout \"$(cat "$tmp/out")\""

# test_qpu_check_partial: a lone nop is a broken program, a clean fragment
printf '0x009e7000, 0x100009e7,\n' >"$tmp/nop.hex"
"$QPU_CHECK" -q "$tmp/nop.hex" >"$tmp/out" 2>/dev/null
[ $? -eq 1 ] && grep -q '\[thrend-missing\]' "$tmp/out" &&
	grep -q '\[runs-off-end\]' "$tmp/out" || fail "partial: whole program \"$(cat "$tmp/out")\""
"$QPU_CHECK" -p "$tmp/nop.hex" >"$tmp/out" 2>&1 || fail "partial: -p exit status $?"

# test_qpu_check_list: one line per rule, the names qpu-as accepts
"$QPU_CHECK" -l >"$tmp/out" || fail "list: exit status $?"
[ "$(wc -l <"$tmp/out")" -eq 37 ] || fail "list: $(wc -l <"$tmp/out") rules, expected 37"
grep -q '^regfile-raw ' "$tmp/out" || fail "list: no regfile-raw"

# test_qpu_check_errors: bad input and options, exit 1 with a message
"$QPU_CHECK" "$tmp/none.hex" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^qpu-check: $tmp/none.hex: No such file" "$tmp/err" ||
	fail "missing file: \"$(cat "$tmp/err")\""
printf '0x009e7000,\n' >"$tmp/odd.hex"
"$QPU_CHECK" "$tmp/odd.hex" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^qpu-check: $tmp/odd.hex: line 1: odd number of 32-bit words" "$tmp/err" ||
	fail "odd words: \"$(cat "$tmp/err")\""
: >"$tmp/empty.bin"
"$QPU_CHECK" -b "$tmp/empty.bin" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "no instruction words" "$tmp/err" || fail "empty: \"$(cat "$tmp/err")\""
"$QPU_CHECK" -Wno-bogus hazard.hex >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "unknown rule 'bogus'" "$tmp/err" || fail "bad rule: \"$(cat "$tmp/err")\""
"$QPU_CHECK" --frobnicate >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^Try 'qpu-check --help' for more information.$" "$tmp/err" || fail "bad option"

exit $failed
