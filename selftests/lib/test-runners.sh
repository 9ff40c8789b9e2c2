#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-runners: `make check` adds up suites by their closing lines, so the
# adding-up must not let a failure through. check.sh counts a suite that
# printed no "N passed, N failed" line as failed even when it exited 0, and
# one that exited non-zero after a clean closing line as failed too;
# lint.sh runs every check, prints PASS/FAIL for each and its own closing
# line, and fails when one check does. A stub stands in for make.
# testlib.h's runner of named cases (through testlib-sample, which fails on
# purpose, found in QPU_TEST_BIN) prints a line per case, runs the cases
# named, refuses an unknown name, and closes with its own line, which
# run-tests.sh adds up, in the order given when tests run side by side.
# run-fuzz.sh reports parallel harnesses in order and fails with any of
# them.

here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# The stub "make": $2 is the suite or target, which says how it behaves.
cat >"$tmp/make" <<'STUB'
#!/bin/sh
case $2 in
noprereq-prereqs) echo "cannot build"; exit 2 ;;
*-prereqs) exit 0 ;;
slowgood) sleep 1; echo "slow log"; echo "3 passed, 0 failed, 1 skipped" ;;
good) echo "3 passed, 0 failed, 1 skipped" ;;
prefixed) echo "lint: 2 passed, 0 failed" ;;
silent) echo "all fine, trust me" ;;
liar) echo "2 passed, 0 failed"; exit 1 ;;
bad) echo "1 passed, 2 failed"; exit 1 ;;
ok) exit 0 ;;
broken) echo "oops"; exit 2 ;;
esac
STUB
chmod +x "$tmp/make"

# run_check SUITE...: check.sh's last line and exit status in $last, $rc
run_check() {
	BUILD=$tmp/build MAKE=$tmp/make bash "$here/check.sh" "$@" >"$tmp/out" 2>&1
	rc=$?
	last=$(tail -n 1 "$tmp/out")
}

# test_check_counts_closing_lines: numbers are taken from each suite
run_check good prefixed
[ "$rc" -eq 0 ] || fail "good suites: exit status $rc"
[ "$last" = "5 passed, 0 failed, 1 skipped" ] || fail "good suites: '$last'"

# test_check_silent_suite_fails: exit 0 without a closing line is a failure
run_check good silent
[ "$rc" -ne 0 ] || fail "silent suite: exit status 0"
[ "$last" = "3 passed, 1 failed, 1 skipped" ] || fail "silent suite: '$last'"
grep -q "silent printed no closing" "$tmp/out" || fail "silent suite: not named"

# test_check_nonzero_exit_fails: a clean closing line does not hide the status
run_check liar
[ "$rc" -ne 0 ] || fail "liar suite: exit status 0"
[ "$last" = "2 passed, 1 failed, 0 skipped" ] || fail "liar suite: '$last'"

# test_check_failures_add_up: failed counts and broken suites both count
run_check bad broken good
[ "$rc" -ne 0 ] || fail "bad suites: exit status 0"
[ "$last" = "4 passed, 3 failed, 1 skipped" ] || fail "bad suites: '$last'"

# test_check_group_side_by_side: "a+b" runs both (their builds first), shows
# each log whole in the order named, and adds both up with the rest; a
# suite whose build fails counts as failed, its partner still runs
run_check slowgood+bad good
[ "$rc" -ne 0 ] || fail "group: exit status 0 with a failed suite"
[ "$last" = "7 passed, 2 failed, 2 skipped" ] || fail "group: '$last'"
grep -x '=== slowgood\|slow log\|3 passed, 0 failed, 1 skipped\|=== bad\|1 passed, 2 failed' \
	"$tmp/out" | head -n 5 >"$tmp/order"
printf '%s\n' "=== slowgood" "slow log" "3 passed, 0 failed, 1 skipped" "=== bad" \
	"1 passed, 2 failed" | cmp -s - "$tmp/order" || fail "group: logs not whole and in order"
grep -q '^slowgood  *3 passed  *0 failed  *1 skipped' "$tmp/out" || fail "group: no summary row"
run_check noprereq+good
[ "$rc" -ne 0 ] || fail "group, failed build: exit status 0"
[ "$last" = "3 passed, 1 failed, 1 skipped" ] || fail "group, failed build: '$last'"
grep -q 'noprereq-prereqs failed: noprereq not run' "$tmp/out" || fail "group, failed build: not named"

# test_lint_runs_every_check: one failure is reported and the rest still run
MAKE=$tmp/make bash "$here/lint.sh" ok broken ok >"$tmp/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "lint with a failure: exit status 0"
[ "$(grep -c '^PASS ok$' "$tmp/out")" -eq 2 ] || fail "lint: checks after the failure not run"
grep -q '^FAIL broken$' "$tmp/out" || fail "lint: failure not named"
grep -q '^    oops$' "$tmp/out" || fail "lint: the failed check's output not shown"
[ "$(tail -n 1 "$tmp/out")" = "lint: 2 passed, 1 failed" ] || fail "lint: closing line"

# test_lint_clean: all checks pass
MAKE=$tmp/make bash "$here/lint.sh" ok ok >"$tmp/out" 2>&1 || fail "lint clean: exit status $?"
[ "$(tail -n 1 "$tmp/out")" = "lint: 2 passed, 0 failed" ] || fail "lint clean: closing line"

# The runner of named cases: testlib-sample's passes, fails, skips and
# no_checks, in that order.
sample=${QPU_TEST_BIN:-}/testlib-sample
if [ ! -x "$sample" ]; then
	fail "no testlib-sample in QPU_TEST_BIN ('${QPU_TEST_BIN:-}')"
	exit 1
fi

# run_sample ARG...: testlib-sample's output in $tmp/out, status in $rc
run_sample() {
	"$sample" "$@" >"$tmp/out" 2>&1
	rc=$?
	last=$(tail -n 1 "$tmp/out")
}

# test_cases_one_line_each: every case, its verdict and its checks
run_sample
[ "$rc" -eq 1 ] || fail "sample: exit status $rc, not 1"
grep -qx 'PASS passes (2 checks)' "$tmp/out" || fail "sample: no PASS line for passes"
grep -qx 'FAIL fails (1 of 2 checks failed)' "$tmp/out" || fail "sample: no FAIL line for fails"
grep -qx 'SKIP skips (no hardware here; 1 checks passed)' "$tmp/out" ||
	fail "sample: no SKIP line for skips"
grep -qx 'FAIL no_checks (no checks ran)' "$tmp/out" || fail "sample: a case without checks passed"
grep -q 'testlib-sample.c:[0-9]*: 3: expected 0x2, got 0x3' "$tmp/out" ||
	fail "sample: the failed check is not reported with file and line"
grep -qx 'testlib-sample: 5 checks' "$tmp/out" || fail "sample: check total"
[ "$last" = "1 passed, 2 failed, 1 skipped" ] || fail "sample: closing line '$last'"

# test_cases_listed_in_file_order
run_sample --list
[ "$rc" -eq 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "passes fails skips no_checks " ] ||
	fail "sample --list: status $rc, '$(tr '\n' ' ' <"$tmp/out")'"

# test_cases_chosen_by_name: only those run; a passing choice passes
run_sample passes
[ "$rc" -eq 0 ] || fail "sample passes: exit status $rc"
[ "$(grep -c '^\(PASS\|FAIL\|SKIP\) ' "$tmp/out")" -eq 1 ] || fail "sample passes: other cases ran"
[ "$last" = "1 passed, 0 failed" ] || fail "sample passes: closing line '$last'"
run_sample skips fails
[ "$rc" -eq 1 ] || fail "sample skips fails: exit status $rc"
[ "$last" = "0 passed, 1 failed, 1 skipped" ] || fail "sample skips fails: closing line '$last'"

# test_only_skips_exit_77
run_sample skips
[ "$rc" -eq 77 ] || fail "sample skips: exit status $rc, not 77"
[ "$last" = "0 passed, 0 failed, 1 skipped" ] || fail "sample skips: closing line '$last'"

# test_unknown_case_is_an_error: named, and nothing runs
run_sample passes nope
[ "$rc" -eq 1 ] || fail "sample nope: exit status $rc"
grep -q "no case named 'nope'" "$tmp/out" || fail "sample nope: the name is not given"
! grep -q '^PASS' "$tmp/out" || fail "sample nope: cases ran anyway"
run_sample --nope
[ "$rc" -eq 1 ] && grep -q "unknown option '--nope'" "$tmp/out" ||
	fail "sample --nope: status $rc, '$(head -n 1 "$tmp/out")'"

# test_setup_skip_and_failure_reach_every_case
run_sample --setup skip passes fails
[ "$rc" -eq 77 ] || fail "sample --setup skip: exit status $rc"
grep -qx 'setup: skipping as asked' "$tmp/out" || fail "sample --setup skip: reason not shown"
[ "$last" = "0 passed, 0 failed, 2 skipped" ] || fail "sample --setup skip: '$last'"
run_sample --setup=fail
[ "$rc" -eq 1 ] || fail "sample --setup=fail: exit status $rc"
[ "$last" = "0 passed, 4 failed" ] || fail "sample --setup=fail: '$last'"

# test_run_tests_adds_up_cases: a program's closing line gives its numbers,
# a script counts as one, a crash after a clean closing line is a failure,
# and every program's lines show in the log
cat >"$tmp/ok.sh" <<'SH'
echo fine
SH
cat >"$tmp/crash.sh" <<'SH'
echo "2 passed, 0 failed"
exit 139
SH
sh "$here/lib/run-tests.sh" "$sample" "$tmp/ok.sh" "$tmp/crash.sh" >"$tmp/out" 2>&1
rc=$?
last=$(tail -n 1 "$tmp/out")
[ "$rc" -ne 0 ] || fail "run-tests: exit status 0 with failed cases"
[ "$last" = "4 passed, 3 failed, 1 skipped" ] || fail "run-tests: closing line '$last'"
grep -qx 'FAIL testlib-sample (exit status 1)' "$tmp/out" || fail "run-tests: sample not failed"
grep -qx '    PASS passes (2 checks)' "$tmp/out" || fail "run-tests: case lines not in the log"
grep -qx 'FAIL crash (exit status 139)' "$tmp/out" || fail "run-tests: crash not failed"
sh "$here/lib/run-tests.sh" "$tmp/ok.sh" >"$tmp/out" 2>&1 || fail "run-tests: one script: status $?"
[ "$(tail -n 1 "$tmp/out")" = "1 passed, 0 failed" ] || fail "run-tests: one script: closing line"

# run-tests.sh runs tests side by side (TEST_JOBS) but reports them in the
# order given, each with its own log, even when a later one ends first; a
# test that times out fails while the others still count; one at a time
# gives the same report.
cat >"$tmp/slow.sh" <<'SH'
sleep 1
echo "slow log"
echo "3 passed, 0 failed"
SH
cat >"$tmp/fast.sh" <<'SH'
echo "fast log"
exit 1
SH
cat >"$tmp/hang.sh" <<'SH'
sleep 30
SH
for j in 1 3; do
	TEST_JOBS=$j TEST_TIMEOUT=3 sh "$here/lib/run-tests.sh" "$tmp/slow.sh" "$tmp/fast.sh" \
		"$tmp/hang.sh" "$tmp/ok.sh" >"$tmp/out.$j" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] || fail "run-tests TEST_JOBS=$j: exit status 0 with failures"
	printf '%s\n' "PASS slow" "    slow log" "    3 passed, 0 failed" \
		"FAIL fast (exit status 1)" "    fast log" "FAIL hang (timed out after 3s)" \
		"PASS ok" "    fine" "4 passed, 2 failed" >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out.$j" ||
		fail "run-tests TEST_JOBS=$j: report: $(diff "$tmp/want" "$tmp/out.$j")"
done

# run-fuzz.sh runs harnesses at once (FUZZ_JOBS) but reports them in order,
# and one that fails (or is missing) fails the run whatever runs beside it.
mkdir -p "$tmp/fz"
printf '#!/bin/sh\nsleep 1\necho "stat::number_of_executed_units: 7"\n' >"$tmp/fz/fuzz-slow"
printf '#!/bin/sh\necho "ERROR: boom"\nexit 3\n' >"$tmp/fz/fuzz-bad"
printf '#!/bin/sh\nexit 0\n' >"$tmp/fz/fuzz-ok"
chmod +x "$tmp/fz/"fuzz-*
FUZZ_JOBS=2 FUZZ_TIME=1 sh "$here/fuzz/run-fuzz.sh" "$tmp/fz" "$tmp/fzwork" slow bad ok gone \
	>"$tmp/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "run-fuzz: exit status 0 with failed harnesses"
[ "$(grep -c '^PASS\|^FAIL' "$tmp/out")" = 4 ] || fail "run-fuzz: not one line per harness"
[ "$(sed -n 1p "$tmp/out")" = "PASS fuzz-slow (1s, 7 runs)" ] || fail "run-fuzz: order or runs"
grep -q '^FAIL fuzz-bad (exit status 3' "$tmp/out" || fail "run-fuzz: failure not reported"
grep -qx '    ERROR: boom' "$tmp/out" || fail "run-fuzz: failure's lines not shown"
grep -q '^FAIL fuzz-gone' "$tmp/out" || fail "run-fuzz: missing harness not failed"
[ "$(tail -n 1 "$tmp/out")" = "2 passed, 2 failed" ] || fail "run-fuzz: closing line"

exit $failed
