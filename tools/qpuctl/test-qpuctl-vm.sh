#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpuctl-vm: qpuctl against qpu.ko with one simulated V3D, run in the
# VM (check-vm copies it and the static qpuctl to /payload). Each case
# asserts exact output or values read back from debugfs and the module
# parameters, and the exit status; failures print the kernel's "Error:"
# line. Prints TAP.

QPUCTL=${QPUCTL:-qpuctl}
DEBUGFS=/sys/kernel/debug/qpu/qpu
PARAMS=/sys/module/qpu/parameters
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

echo "TAP version 13"

# result NAME STATUS [WHY]
result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n $1"
	else
		echo "# $1: $3"
		echo "not ok $n $1"
		failed=1
	fi
}

# run ARGS...: qpuctl's stdout in $tmp/out, stderr in $tmp/err, status in $rc.
run() {
	"$QPUCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect NAME EXPECTED_STDOUT ARGS...: exit 0 and exactly that output.
expect() {
	name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" -ne 0 ]; then
		result "$name" 1 "exit status $rc: $(cat "$tmp/err")"
	elif [ "$(cat "$tmp/out")" != "$want" ]; then
		result "$name" 1 "got '$(cat "$tmp/out")', expected '$want'"
	else
		result "$name" 0
	fi
}

# expect_error NAME STDERR ARGS...: exit 1, no stdout, exactly that stderr.
expect_error() {
	name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" -ne 1 ] || [ -s "$tmp/out" ] || [ "$(cat "$tmp/err")" != "$want" ]; then
		result "$name" 1 "exit status $rc, stderr '$(cat "$tmp/err")', expected '$want'"
	else
		result "$name" 0
	fi
}

counter() {
	sed -n "s/^$1: //p" "$DEBUGFS/stats"
}

# 1. info: text and JSON of the one device, idle.
run info
head=$(head -n 1 "$tmp/out")
result info_text "$([ "$rc" -eq 0 ] && [ "$head" = "dev 0 name qpu backend simulated state idle" ]; echo $?)" \
	"rc $rc, first line '$head'"
run -j info
case $(cat "$tmp/out") in
'[{"dev":0,"name":"qpu","backend":"simulated","state":"idle","revision":'*',"qpus":12,"slices":3,"semaphores":16,"vpm_size":'*',"ident0":'*',"ident1":'*',"ident2":'*'}]')
	result info_json "$rc" "exit status $rc" ;;
*)
	result info_json 1 "got '$(cat "$tmp/out")'" ;;
esac
run -j -p -d qpu info
result info_json_pretty_one_device "$([ "$rc" -eq 0 ] && [ "$(sed -n 1p "$tmp/out")" = "[" ] &&
	[ "$(sed -n 2p "$tmp/out")" = "  {" ] && [ "$(sed -n 3p "$tmp/out")" = '    "dev": 0,' ] &&
	[ "$(tail -n 1 "$tmp/out")" = "]" ]; echo $?)" "got '$(cat "$tmp/out")'"

# 1b. The object grammar and the first release's words say the same.
run info
cp "$tmp/out" "$tmp/info"
for words in "dev" "dev show" "dev show 0" "dev qpu" "-d 0 dev show" "info show /dev/qpu"; do
	# shellcheck disable=SC2086
	run $words
	result "dev_show_same_as_info ($words)" "$([ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/info"; echo $?)" \
		"exit $rc, got '$(cat "$tmp/out")'"
done
expect_error dev_show_no_such_device "Error: qpu: no such device" dev show 5

# 2. stats: the JSON counters are debugfs's; the busy time and the 12
# QPUs' instruction counts follow.
run -j -d 0 stats
want="[{\"dev\":0,\"jobs_submitted\":$(counter jobs_submitted),\"jobs_done\":$(counter jobs_done),\"jobs_failed\":$(counter jobs_failed),\"jobs_timeout\":$(counter jobs_timeout),\"jobs_canceled\":$(counter jobs_canceled),\"resets\":$(counter resets),\"bo_count\":$(counter bo_count),\"bo_bytes\":$(counter bo_bytes),\"busy_ns\":"
case $(cat "$tmp/out") in
"$want"[0-9]*',"qpus":[{"qpu":0,"instructions":'[0-9]*'},{"qpu":1,'*'{"qpu":11,"instructions":'[0-9]*'}]}]')
	result stats_json_matches_debugfs "$([ "$rc" -eq 0 ] &&
		[ "$(grep -o '"qpu":' "$tmp/out" | wc -l)" -eq 12 ]; echo $?)" "got '$(cat "$tmp/out")'" ;;
*)
	result stats_json_matches_debugfs 1 "got '$(cat "$tmp/out")', expected '$want...'" ;;
esac
run stats
result stats_text_table "$([ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 3 ] &&
	head -n 1 "$tmp/out" | grep -q '^DEV  SUBMITTED.*BUSY_MS$' &&
	sed -n 3p "$tmp/out" | grep -q '^     instructions per QPU: 0:[0-9]* 1:[0-9]*.* 11:[0-9]*$'; echo $?)" \
	"got '$(cat "$tmp/out")'"
run stats show qpu0
result stats_show_dev "$([ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 3 ]; echo $?)" \
	"exit $rc, got '$(cat "$tmp/out")'"

# 3. config get: the module parameters' values.
want="default_timeout_ms $(cat $PARAMS/default_timeout_ms)
max_timeout_ms $(cat $PARAMS/max_timeout_ms)
max_bo_size $(cat $PARAMS/max_bo_size)
client_mem_limit $(cat $PARAMS/client_mem_limit)
dev_mem_limit $(cat $PARAMS/dev_mem_limit)
max_queued_jobs $(cat $PARAMS/max_queued_jobs)"
expect config_get_matches_params "$want" config
expect config_get_json "{\"default_timeout_ms\":$(cat $PARAMS/default_timeout_ms),\"max_timeout_ms\":$(cat $PARAMS/max_timeout_ms),\"max_bo_size\":$(cat $PARAMS/max_bo_size),\"client_mem_limit\":$(cat $PARAMS/client_mem_limit),\"dev_mem_limit\":$(cat $PARAMS/dev_mem_limit),\"max_queued_jobs\":$(cat $PARAMS/max_queued_jobs)}" \
	-j config get

# 4. config set: applied, read back; out of range refused with the reason.
saved_bo=$(cat $PARAMS/max_bo_size) saved_to=$(cat $PARAMS/default_timeout_ms)
saved_q=$(cat $PARAMS/max_queued_jobs)
expect config_set "" config set max_bo_size 8M default_timeout_ms 1500 max_queued_jobs 9
result config_set_applied "$([ "$(cat $PARAMS/max_bo_size)" = 8388608 ] &&
	[ "$(cat $PARAMS/default_timeout_ms)" = 1500 ] &&
	[ "$(cat $PARAMS/max_queued_jobs)" = 9 ]; echo $?)" \
	"max_bo_size $(cat $PARAMS/max_bo_size), default_timeout_ms $(cat $PARAMS/default_timeout_ms), max_queued_jobs $(cat $PARAMS/max_queued_jobs)"
expect_error config_set_out_of_range "Error: integer out of range" \
	config set default_timeout_ms 0
expect_error config_set_too_big "Error: integer out of range" config set dev_mem_limit 2G
expect_error config_set_queue_too_long "Error: integer out of range" \
	config set max_queued_jobs 1025
"$QPUCTL" config set max_bo_size "$saved_bo" default_timeout_ms "$saved_to" \
	max_queued_jobs "$saved_q"

# 5. Errors from the kernel come as its "Error:" line.
expect_error info_no_such_device "Error: qpu: no such device" -d 5 info
expect_error stats_no_such_device "Error: qpu: no such device" -d qpu3 stats
expect_error reset_no_such_device "Error: qpu: no such device" -d 3 reset

# 6. clients: a file this shell holds open is listed with its pid and id;
# "client id N" gets that one file, "client pid P" lists that process's.
exec 3<>/dev/qpu
run -j clients
case $(cat "$tmp/out") in
*"{\"dev\":0,\"id\":"[0-9]*",\"pid\":$$,\"comm\":\""*'","bo_count":0,"bo_bytes":0,"jobs_submitted":0,"jobs_queued":0}'*)
	result clients_lists_open_file "$rc" "exit status $rc" ;;
*)
	result clients_lists_open_file 1 "pid $$ not in '$(cat "$tmp/out")'" ;;
esac
id=$(sed -n "s/.*\"id\":\([0-9]*\),\"pid\":$$,.*/\1/p" "$tmp/out")
run -j client id "$id"
result client_get_by_id "$([ "$rc" -eq 0 ] && [ "$(grep -o '"id":' "$tmp/out" | wc -l)" -eq 1 ] &&
	grep -q "^\[{\"dev\":0,\"id\":$id,\"pid\":$$," "$tmp/out"; echo $?)" \
	"id '$id', exit $rc, got '$(cat "$tmp/out")'"
run -j client pid $$
result client_dump_by_pid "$([ "$rc" -eq 0 ] && [ "$(grep -o '"pid":' "$tmp/out" | wc -l)" -eq 1 ] &&
	grep -q "\"id\":$id,\"pid\":$$," "$tmp/out"; echo $?)" "exit $rc, got '$(cat "$tmp/out")'"
run clients show 0 pid $$
result clients_text_by_pid "$([ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 2 ] &&
	head -n 1 "$tmp/out" | grep -q '^DEV  ID       PID'; echo $?)" "exit $rc, got '$(cat "$tmp/out")'"
exec 3>&-
run -j -d 0 clients
result clients_closed_file_gone "$([ "$rc" -eq 0 ] && ! grep -q "\"pid\":$$," "$tmp/out"; echo $?)" \
	"got '$(cat "$tmp/out")'"
expect_error client_id_gone "Error: qpu: no such client" client id "$id"
expect_error client_id_other_device "Error: qpu: no such device" client show 3 id 1

# 7. reset: counted, and seen by monitor (text and JSON).
resets=$(counter resets)
"$QPUCTL" monitor count 1 >"$tmp/mon" 2>&1 &
mon=$!
"$QPUCTL" -j monitor count 1 >"$tmp/monj" 2>&1 &
monj=$!
sleep 1
expect reset "" -d 0 reset
result reset_counted "$([ "$(counter resets)" -eq $((resets + 1)) ]; echo $?)" \
	"resets $(counter resets), was $resets"
wait $mon
result monitor_reset_event "$([ "$(cat "$tmp/mon")" = "[reset] dev 0 reason admin" ]; echo $?)" \
	"got '$(cat "$tmp/mon")'"
wait $monj
result monitor_reset_event_json \
	"$([ "$(cat "$tmp/monj")" = '{"event":"reset","dev":0,"reason":"admin"}' ]; echo $?)" \
	"got '$(cat "$tmp/monj")'"

# 7b. hang: the kselftests before this script made jobs time out.
run -j -d 0 hang
result hang_json "$([ "$rc" -eq 0 ] && grep -q '"dev":0,"age_ms":[0-9]*,"pid":[0-9]*,"comm":"[^"]*","seqno":[0-9]*,"timeout_ms":[0-9]*,"programs":[0-9]*,"code_addr":[0-9]*,"unif_addr":[0-9]*,"srqcs":[0-9]*,"dbqite":[0-9]*,"dbqitc":[0-9]*' "$tmp/out"; echo $?)" \
	"exit $rc, got '$(cat "$tmp/out")'"
expect_error hang_no_such_device "Error: qpu: no such device" -d 3 hang
run -j dev hang
result dev_hang_dump "$([ "$rc" -eq 0 ] && grep -q '^\[{"dev":0,"age_ms":[0-9]*,"pid":' "$tmp/out" &&
	[ "$(grep -o '"dev":' "$tmp/out" | wc -l)" -eq 1 ]; echo $?)" "exit $rc, got '$(cat "$tmp/out")'"
run dev hang 0
result dev_hang_text "$([ "$rc" -eq 0 ] && head -n 1 "$tmp/out" | grep -q '^dev 0 age_ms [0-9]* pid'; echo $?)" \
	"exit $rc, got '$(cat "$tmp/out")'"

# 8. top: one sample of rates, memory, busy share, QPU use and files, in
# JSON and in text; idle, everything is 0.
run -j top interval 0.2 count 1
case $(cat "$tmp/out") in
'{"sample":1,"interval_ms":'*',"devices":[{"dev":0,"submitted_per_s":0,"done_per_s":0,"failed_per_s":0,"timeout_per_s":0,"canceled_per_s":0,"resets_per_s":0,"bo_count":0,"bo_bytes":0,"busy_pct":0,"qpus":[{"qpu":0,"instructions_per_s":0,"util_pct":0},'*'{"qpu":11,"instructions_per_s":0,"util_pct":0}]}],"clients":[]}')
	result top_json "$rc" "exit status $rc" ;;
*)
	result top_json 1 "got '$(cat "$tmp/out")'" ;;
esac
run top interval 0.2 count 2
result top_text_two_samples "$([ "$rc" -eq 0 ] && [ "$(grep -c '^qpuctl top: sample' "$tmp/out")" -eq 2 ] &&
	[ "$(grep -c '^DEV  SUBMIT/S.*BUSY%$' "$tmp/out")" -eq 2 ] &&
	[ "$(grep -c '^    QPU     INSTR/S  UTIL%$' "$tmp/out")" -eq 2 ]; echo $?)" "got '$(cat "$tmp/out")'"

# 8b. top while jobs run (libqpu's runtime test): some sample shows the
# device busy and a QPU in use.
if command -v test-runtime >/dev/null; then
	test-runtime --device /dev/qpu >/dev/null 2>&1 &
	job=$!
	run -j top 0 interval 0.3 count 8
	wait $job
	result top_shows_use "$([ "$rc" -eq 0 ] && grep -q '"busy_pct":[1-9]' "$tmp/out" &&
		grep -q '"util_pct":[1-9]' "$tmp/out" &&
		grep -q '"instructions_per_s":[1-9]' "$tmp/out"; echo $?)" "exit $rc, got '$(cat "$tmp/out")'"
fi

echo "1..$n"
exit "$failed"
