#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-runners: `make check` adds up suites by their closing lines, so the
# adding-up must not let a failure through. check.sh counts a suite that
# printed no "N passed, N failed" line as failed even when it exited 0, and
# one that exited non-zero after a clean closing line as failed too;
# lint.sh runs every check, prints PASS/FAIL for each and its own closing
# line, and fails when one check does. A stub stands in for make.

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

exit $failed
