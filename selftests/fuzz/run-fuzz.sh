#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Runs each fuzz harness for FUZZ_TIME seconds: run-fuzz.sh BINDIR WORKDIR
# NAME... runs BINDIR/fuzz-NAME, first on every reproducer kept in
# crashes/NAME (each must pass now), then fuzzing from corpus/NAME plus what
# earlier runs found (WORKDIR/corpus/NAME). A crash, sanitizer report, leak,
# broken invariant or input over the per-input timeout fails the harness;
# its input is in WORKDIR/artifacts. Prints one line per harness, then
# "N passed, N failed"; exits 1 on any failure. FUZZ_SEED fixes the seed,
# FUZZ_MAX_LEN the longest input, FUZZ_JOBS how many harnesses run at once.

bin=$1 work=$2
shift 2
time=${FUZZ_TIME:-40}
# Harnesses share nothing (each its log, corpus and artifact prefix), so
# FUZZ_JOBS of them (default: one per CPU) fuzz at once: the same time
# each, in less wall time.
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
src=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0

# fuzz NAME: the reproducers, then FUZZ_TIME seconds of fuzzing; the exit
# status goes to WORKDIR/fuzz-NAME.status, the output to its .log.
fuzz() {
	name=$1
	fuzzer=$bin/fuzz-$name
	log=$work/fuzz-$name.log
	corpus=$work/corpus/$name
	mkdir -p "$corpus" || { echo 1 >"$work/fuzz-$name.status"; return; }
	# The per-input timeout is for hangs: a legal input may take seconds.
	# The assemblers' limits allow 2^21 lines a pass (QPU_ASM_MAX_LINES),
	# and a V3D line costs some 10 us under ASan, UBSan and coverage: a
	# 1.2 KB input of four nested 31-fold .rep loops ran 8.7 s alone.
	set -- -timeout=30 -rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-4096}" \
		-artifact_prefix="$work/artifacts/$name-"
	[ -f "$src/$name.dict" ] && set -- "$@" -dict="$src/$name.dict"
	[ -n "$FUZZ_SEED" ] && set -- "$@" -seed="$FUZZ_SEED"
	status=0
	: >"$log"
	reproducers=$(ls "$src/crashes/$name/"* 2>/dev/null)
	if [ -n "$reproducers" ]; then
		# shellcheck disable=SC2086
		"$fuzzer" "$@" $reproducers >>"$log" 2>&1 || status=$?
	fi
	if [ "$status" -eq 0 ]; then
		timeout $((time + 120)) "$fuzzer" "$@" -max_total_time="$time" \
			-print_final_stats=1 "$corpus" "$src/corpus/$name" \
			>>"$log" 2>&1 || status=$?
	fi
	echo "$status" >"$work/fuzz-$name.status"
}

mkdir -p "$work/artifacts" || exit 1
running=0
for name in "$@"; do
	rm -f "$work/fuzz-$name.status"
	fuzz "$name" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

for name in "$@"; do
	log=$work/fuzz-$name.log
	status=$(cat "$work/fuzz-$name.status" 2>/dev/null || echo "none")
	if [ "$status" = 0 ]; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p; s/^driver: done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
		echo "PASS fuzz-$name (${time}s, ${runs:-?} runs)"
		passed=$((passed + 1))
	else
		echo "FAIL fuzz-$name (exit status $status; log $log)"
		grep -E 'ERROR|SUMMARY|invariant broken|runtime error|Test unit written|input written|timeout' \
			"$log" | head -n 20 | sed 's/^/    /'
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
