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
# result(), tap_end (check-vm copies it beside this script)
. ./tap.sh

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

# 1b. The object grammar and the first release's words say the same (but
# for the telemetry sample's age, which grows).
run info
sed 's/ age_ms [0-9]*/ age_ms N/' "$tmp/out" >"$tmp/info"
for words in "dev" "dev show" "dev show 0" "dev qpu" "-d 0 dev show" "info show /dev/qpu"; do
	# shellcheck disable=SC2086
	run $words
	sed -i 's/ age_ms [0-9]*/ age_ms N/' "$tmp/out"
	result "dev_show_same_as_info ($words)" "$([ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/info"; echo $?)" \
		"exit $rc, got '$(cat "$tmp/out")'"
done
expect_error dev_show_no_such_device "Error: qpu: no such device" dev show 5

# 2. stats: the JSON counters are debugfs's; the busy time and the 12
# QPUs' instruction counts follow.
run -j -d 0 stats
want="[{\"dev\":0,\"jobs_submitted\":$(counter jobs_submitted),\"jobs_done\":$(counter jobs_done),\"jobs_failed\":$(counter jobs_failed),\"jobs_timeout\":$(counter jobs_timeout),\"jobs_canceled\":$(counter jobs_canceled),\"resets\":$(counter resets),\"bo_count\":$(counter bo_count),\"bo_bytes\":$(counter bo_bytes),\"busy_ns\":"
case $(cat "$tmp/out") in
"$want"[0-9]*',"qpus":[{"qpu":0,"instructions":'[0-9]*'},{"qpu":1,'*'{"qpu":11,"instructions":'[0-9]*'}],"telemetry_samples":'[0-9]*',"clock_low_events":'[0-9]*',"throttle_events":'[0-9]*'}]')
	result stats_json_matches_debugfs "$([ "$rc" -eq 0 ] &&
		[ "$(grep -o '"qpu":' "$tmp/out" | wc -l)" -eq 12 ]; echo $?)" "got '$(cat "$tmp/out")'" ;;
*)
	result stats_json_matches_debugfs 1 "got '$(cat "$tmp/out")', expected '$want...'" ;;
esac
run stats
result stats_text_table "$([ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 4 ] &&
	head -n 1 "$tmp/out" | grep -q '^DEV  SUBMITTED.*BUSY_MS$' &&
	sed -n 3p "$tmp/out" | grep -q '^     instructions per QPU: 0:[0-9]* 1:[0-9]*.* 11:[0-9]*$' &&
	sed -n 4p "$tmp/out" | grep -q '^     telemetry: samples [0-9]* clock_low_events [0-9]* throttle_events [0-9]*$'; echo $?)" \
	"got '$(cat "$tmp/out")'"
run stats show qpu0
result stats_show_dev "$([ "$rc" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 4 ]; echo $?)" \
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

# 7b. hang: the last hung job's record. The script makes one itself, with
# test-runtime's timeout case (in the payload beside it), rather than rely
# on what ran before it.
if command -v test-runtime >/dev/null; then
	test-runtime --device /dev/qpu timeout >"$tmp/hang" 2>&1
	result hang_made "$?" "test-runtime timeout: $(tail -n 1 "$tmp/hang")"
else
	result hang_made 1 "no test-runtime in PATH to make a job time out"
fi
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

# 8. top: one sample of rates, memory, busy share, QPU use, the last
# telemetry sample (taken when the files above were open: the simulated
# firmware's defaults) and files, in JSON and in text; idle, every rate is 0.
run -j top interval 0.2 count 1
case $(cat "$tmp/out") in
'{"sample":1,"interval_ms":'*',"devices":[{"dev":0,"submitted_per_s":0,"done_per_s":0,"failed_per_s":0,"timeout_per_s":0,"canceled_per_s":0,"resets_per_s":0,"bo_count":0,"bo_bytes":0,"busy_pct":0,"clock_set_hz":250000000,"clock_measured_hz":250000000,"temp_mc":45000,"throttled":0,"throttled_flags":[],"clock_low":0,"throttling":0,"telemetry_age_ms":'[0-9]*',"qpus":[{"qpu":0,"instructions_per_s":0,"util_pct":0},'*'{"qpu":11,"instructions_per_s":0,"util_pct":0}]}],"clients":[]}')
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

# 9. Telemetry (uapi's "DOC: telemetry"), on the simulated firmware's knobs.
# With a period of 60 s, each open of the idle device takes exactly one
# sample (sample_once), so the states are stepped one sample at a time.
period=$PARAMS/telemetry_period_ms
saved_period=$(cat $period)

# json_field KEY: the number KEY has in $tmp/out's first object.
json_field() {
	sed -n "s/.*\"$1\":\(-*[0-9]*\).*/\1/p" "$tmp/out" | head -n 1
}

samples() {
	"$QPUCTL" -j stats 0 >"$tmp/out" 2>"$tmp/err"
	json_field telemetry_samples
}

# sample_once: open the device, wait for its sample, close it.
sample_once() {
	before=$(samples) i=0
	# qpu.ko samples at most once a period, unless the period is written.
	cat $period >$period
	exec 4<>/dev/qpu
	while [ "$(samples)" -le "$before" ] && [ $i -lt 40 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	exec 4>&-
}

# knob_refused NAME VALUE: the knob exists, the write fails and the knob
# keeps its value.
knob_refused() {
	old=$(cat "$DEBUGFS/$1" 2>/dev/null)
	if [ ! -f "$DEBUGFS/$1" ]; then
		result "knob_refused ($1 $2)" 1 "no knob $DEBUGFS/$1"
	elif echo "$2" >"$DEBUGFS/$1" 2>/dev/null; then
		result "knob_refused ($1 $2)" 1 "accepted"
	else
		result "knob_refused ($1 $2)" "$([ "$(cat "$DEBUGFS/$1")" = "$old" ]; echo $?)" \
			"now $(cat "$DEBUGFS/$1"), was $old"
	fi
}

# 9a. Bad knob values and periods are refused.
knob_refused fw_clock_set_hz 0
knob_refused fw_clock_set_hz 1000000001
knob_refused fw_clock_measured_hz 1000000001
knob_refused fw_temp_mc 125001
knob_refused fw_temp_mc -5
knob_refused fw_throttled 0x10
knob_refused fw_throttled 0x10000
knob_refused fw_fail 2
knob_refused fw_temp_mc abc
for bad in 5 60001 -1 abc; do
	echo "$bad" >$period 2>/dev/null
	result "telemetry_period_refused ($bad)" "$([ -n "$saved_period" ] &&
		[ "$(cat $period)" = "$saved_period" ]; echo $?)" \
		"period now $(cat $period)"
done

# 9b. A sample while a file is open, in dev show's JSON and text.
echo 60000 >$period
echo 71500 >$DEBUGFS/fw_temp_mc
sample_once
run -j dev show 0
case $(cat "$tmp/out") in
*'"ident2":'[0-9]*',"clock_set_hz":250000000,"clock_measured_hz":250000000,"temp_mc":71500,"throttled":0,"throttled_flags":[],"clock_low":0,"throttling":0,"telemetry_age_ms":'[0-9]*'}]')
	result telemetry_dev_show_json "$rc" "exit $rc" ;;
*)
	result telemetry_dev_show_json 1 "got '$(cat "$tmp/out")'" ;;
esac
run dev show 0
result telemetry_dev_show_text "$([ "$rc" -eq 0 ] &&
	sed -n 4p "$tmp/out" | grep -q '^    clock_set 250.0 MHz measured 250.0 MHz temp 71.5 C throttled 0x0 ( ) clock_low 0 throttling 0 age_ms [0-9]*$'; echo $?)" \
	"got '$(cat "$tmp/out")'"

# 9c. No sampling while no file is open, nor while the firmware fails
# (the last sample stays, growing old).
before=$(samples)
sleep 0.3
result telemetry_idle_no_samples "$([ "$(samples)" -eq "$before" ]; echo $?)" "$(samples) after $before"
echo 1 >$DEBUGFS/fw_fail
echo 20 >$period
exec 4<>/dev/qpu
sleep 0.4
exec 4>&-
run -j dev show 0
age=$(json_field telemetry_age_ms) temp=$(json_field temp_mc)
result telemetry_fw_fail_keeps_sample "$([ "$(samples)" -eq "$before" ] && [ "${age:-0}" -ge 300 ] &&
	[ "$temp" = 71500 ]; echo $?)" "samples $(samples) (was $before), age '$age', temp '$temp'"
echo 0 >$DEBUGFS/fw_fail
echo 60000 >$period

# 9d. Events with hysteresis: 8 % low enters clock_low, 4 % low keeps it,
# back at the set rate leaves it; an under-voltage starts throttling,
# which ends after 3 clear samples, not before.
# (Bounded: events that never come fail the cases below, not the script.)
timeout 30 "$QPUCTL" -j monitor count 4 >"$tmp/monj" 2>&1 &
monj=$!
timeout 30 "$QPUCTL" monitor count 1 >"$tmp/mon" 2>&1 &
mon=$!
sleep 1
"$QPUCTL" -j stats 0 >"$tmp/out"
low0=$(json_field clock_low_events) thr0=$(json_field throttle_events)
echo 230000000 >$DEBUGFS/fw_clock_measured_hz
sample_once
echo 240000000 >$DEBUGFS/fw_clock_measured_hz
sample_once
run -j dev show 0
result telemetry_clock_low_hysteresis "$(grep -q '"clock_measured_hz":240000000,.*"clock_low":1,' "$tmp/out"; echo $?)" \
	"got '$(cat "$tmp/out")'"
echo 250000000 >$DEBUGFS/fw_clock_measured_hz
sample_once
echo 1 >$DEBUGFS/fw_throttled
sample_once
echo 0 >$DEBUGFS/fw_throttled
sample_once
sample_once
run -j dev show 0
result telemetry_throttle_hysteresis "$(grep -q '"throttled":65536,.*"throttling":1,' "$tmp/out"; echo $?)" \
	"got '$(cat "$tmp/out")'"
sample_once
run -j dev show 0
result telemetry_throttle_ended "$(grep -q '"throttled":65536,.*"throttling":0,' "$tmp/out"; echo $?)" \
	"got '$(cat "$tmp/out")'"
wait $monj
want='{"event":"telemetry","dev":0,"telemetry":"clock_low","clock_set_hz":250000000,"clock_measured_hz":230000000,"temp_mc":71500,"throttled":0,"throttled_flags":[]}
{"event":"telemetry","dev":0,"telemetry":"clock_ok","clock_set_hz":250000000,"clock_measured_hz":250000000,"temp_mc":71500,"throttled":0,"throttled_flags":[]}
{"event":"telemetry","dev":0,"telemetry":"throttle_start","clock_set_hz":250000000,"clock_measured_hz":250000000,"temp_mc":71500,"throttled":65537,"throttled_flags":["under_voltage","under_voltage_occurred"]}
{"event":"telemetry","dev":0,"telemetry":"throttle_end","clock_set_hz":250000000,"clock_measured_hz":250000000,"temp_mc":71500,"throttled":65536,"throttled_flags":["under_voltage_occurred"]}'
result telemetry_events_json "$([ "$(cat "$tmp/monj")" = "$want" ]; echo $?)" "got '$(cat "$tmp/monj")'"
wait $mon
result telemetry_event_text "$([ "$(cat "$tmp/mon")" = "[telemetry] dev 0 clock_low clock_set 250.0 MHz measured 230.0 MHz temp 71.5 C throttled 0x0 ( )" ]; echo $?)" \
	"got '$(cat "$tmp/mon")'"
"$QPUCTL" -j stats 0 >"$tmp/out"
result telemetry_stats_counted "$([ "$(json_field clock_low_events)" -eq $((low0 + 1)) ] &&
	[ "$(json_field throttle_events)" -eq $((thr0 + 1)) ]; echo $?)" "got '$(cat "$tmp/out")'"
echo 45000 >$DEBUGFS/fw_temp_mc
echo "$saved_period" >$period

# 10. doctor: each finding provoked. A staged root (QPUCTL_ROOT) holds the
# files a test changes; the rest links to this machine's.
rel=$(uname -r)
# mkroot DIR: a root whose files are this machine's, to be changed.
mkroot() {
	rm -rf "$1"
	mkdir -p "$1/proc/sys/kernel" "$1/sys/bus/platform/devices" "$1/dev" \
		"$1/lib/modules/$rel" "$1/etc" "$1/boot/firmware"
	cp /proc/sys/kernel/osrelease "$1/proc/sys/kernel/"
	cp /proc/meminfo "$1/proc/meminfo"
	ln -s /proc/self "$1/proc/self"
	ln -s /sys/module "$1/sys/module"
	: >"$1/dev/kmsg"
	ln -s /dev/qpu "$1/dev/qpu"
	echo "video:x:44:" >"$1/etc/group"
}
# finding CHECK: the JSON object of that check's finding in $tmp/out.
finding() {
	grep -o "{\"check\":\"$1\",[^}]*}" "$tmp/out"
}
# doctor_finds NAME ROOT CHECK STATUS TEXT EXIT: doctor under ROOT ("" for
# this machine) exits EXIT and gives CHECK that status, with TEXT in it.
doctor_finds() {
	QPUCTL_ROOT=$2 "$QPUCTL" -j doctor >"$tmp/out" 2>"$tmp/err"
	rc=$?
	f=$(finding "$3")
	case $f in
	*"\"status\":\"$4\""*"$5"*)
		result "$1" "$([ "$rc" -eq "$6" ]; echo $?)" "exit $rc: $f" ;;
	*)
		result "$1" 1 "exit $rc, $3: '$f'; $(cat "$tmp/err")" ;;
	esac
}
R=$tmp/root

# 10a. This VM as it is: healthy (exit 0), in JSON and in text.
doctor_finds doctor_healthy_module "" module ok "qpu.ko is loaded" 0
for c in device_node submit; do
	result "doctor_healthy_$c" "$(finding $c | grep -q '"status":"ok"'; echo $?)" "$(finding $c)"
done
result doctor_healthy_v3d_skip "$(finding v3d_owner | grep -q '"status":"skip"'; echo $?)" "$(finding v3d_owner)"
result doctor_healthy_no_problem "$(grep -q '"problems":0}$' "$tmp/out"; echo $?)" "got '$(cat "$tmp/out")'"
run doctor
result doctor_text "$([ "$rc" -eq 0 ] && grep -q '^\[ok\]   module: qpu.ko is loaded$' "$tmp/out" &&
	[ "$(tail -n 1 "$tmp/out")" = "qpuctl doctor: no problem found" ]; echo $?)" "exit $rc, got '$(cat "$tmp/out")'"
expect_error doctor_extra_argument "qpuctl: unknown doctor argument 'now': try 'qpuctl doctor help'" doctor now
QPUCTL_ROOT=/nonexistent "$QPUCTL" doctor >"$tmp/out" 2>"$tmp/err"
rc=$?
result doctor_bad_root "$([ "$rc" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	[ "$(cat "$tmp/err")" = "qpuctl: /nonexistent/proc/sys/kernel/osrelease: No such file or directory" ]; echo $?)" \
	"exit $rc, stderr '$(cat "$tmp/err")'"

# 10b. module_build: the installed qpu.ko's vermagic against uname -r; an
# older build also makes missing headers a failure.
# The runner lists the guest kernel's own modules (vgem, vivid) too: take
# qpu.ko's line.
read -r ko args <<EOF
$(grep -m1 '/qpu\.ko' /etc/qpu-vm/modules)
EOF
mkroot "$R"
mkdir -p "$R/lib/modules/$rel/extra"
echo "extra/qpu.ko:" >"$R/lib/modules/$rel/modules.dep"
cp "$ko" "$R/lib/modules/$rel/extra/qpu.ko"
doctor_finds doctor_module_build_ok "$R" module_build ok "is built for $rel" 0
doctor_finds doctor_headers_missing_warn "$R" headers warn "no kernel headers for $rel" 0
printf 'name=qpu\0vermagic=5.10.0-21-rpi SMP mod_unload\0' >"$R/lib/modules/$rel/extra/qpu.ko"
doctor_finds doctor_module_other_kernel "$R" module_build fail "built for kernel 5.10.0-21-rpi, not the running $rel" 1
result doctor_module_other_kernel_fix "$(finding module_build | grep -q "dkms autoinstall -k $rel"; echo $?)" "$(finding module_build)"
doctor_finds doctor_headers_missing_fail "$R" headers fail "apt install linux-headers-$rel" 1
mkdir -p "$R/lib/modules/$rel/build"
: >"$R/lib/modules/$rel/build/Makefile"
doctor_finds doctor_headers_present "$R" headers ok "kernel headers for $rel are installed" 1
rm "$R/lib/modules/$rel/modules.dep"
doctor_finds doctor_module_not_installed "$R" module_build warn "no qpu.ko is installed for $rel" 0

# 10c. v3d_owner and overlay: a Pi's V3D bound to vc4, then to qpu.
mkroot "$R"
node=$R/sys/firmware/devicetree/base/soc/v3d@7ec00000
mkdir -p "$node" "$R/sys/bus/platform/drivers/vc4_v3d" "$R/sys/bus/platform/drivers/qpu-v3d" \
	"$R/sys/bus/platform/devices/20c00000.v3d"
printf 'brcm,bcm2835-v3d\0' >"$node/compatible"
ln -s ../../../../firmware/devicetree/base/soc/v3d@7ec00000 "$R/sys/bus/platform/devices/20c00000.v3d/of_node"
ln -s ../../../../bus/platform/drivers/vc4_v3d "$R/sys/bus/platform/devices/20c00000.v3d/driver"
doctor_finds doctor_v3d_owned_by_vc4 "$R" v3d_owner fail "owned by vc4_v3d, not qpu" 1
# CMA matters for a Pi's V3D before qpu has it (this VM's kernel may have none).
if grep -q '^CmaTotal: *[1-9]' /proc/meminfo; then cma_status=ok; else cma_status=fail; fi
doctor_finds doctor_cma_for_vc4s_v3d "$R" cma "$cma_status" "CMA" 1
doctor_finds doctor_overlay_missing "$R" overlay fail "install the overlay" 1
mkdir -p "$R/boot/firmware/overlays"
: >"$R/boot/firmware/overlays/qpu-v3d.dtbo"
echo "dtoverlay=vc4-kms-v3d" >"$R/boot/firmware/config.txt"
doctor_finds doctor_overlay_not_in_config "$R" overlay fail "add the line dtoverlay=qpu-v3d to $R/boot/firmware/config.txt and reboot" 1
echo "dtoverlay=qpu-v3d" >>"$R/boot/firmware/config.txt"
doctor_finds doctor_overlay_needs_reboot "$R" overlay fail "has dtoverlay=qpu-v3d: reboot to apply it" 1
printf 'brcm,bcm2835-v3d-qpu\0' >"$node/compatible"
rm "$R/sys/bus/platform/devices/20c00000.v3d/driver"
echo "6,900,1000,-;qpu-v3d 20c00000.v3d: no V3D answers at 0x20c00000" >"$R/dev/kmsg"
doctor_finds doctor_v3d_unbound "$R" v3d_owner fail "qpu-v3d 20c00000.v3d: no V3D answers" 1
ln -s ../../../../bus/platform/drivers/qpu-v3d "$R/sys/bus/platform/devices/20c00000.v3d/driver"
doctor_finds doctor_v3d_owned_by_qpu "$R" v3d_owner ok "the V3D (20c00000.v3d) is qpu's" 1
doctor_finds doctor_overlay_applied "$R" overlay ok "overlay is applied" 1

# 10d. cma, with a real V3D (the staged root above) or sim_dma=1: none in
# this VM's kernel; too little for dev_mem_limit; enough.
saved_limit=$(cat $PARAMS/dev_mem_limit)
grep -v '^Cma' /proc/meminfo >"$R/proc/meminfo"
doctor_finds doctor_cma_none "$R" cma fail "the kernel has no CMA" 1
echo "CmaTotal:          65536 kB" >>"$R/proc/meminfo"
"$QPUCTL" config set dev_mem_limit 128M
doctor_finds doctor_cma_below_limit "$R" cma fail "CMA has 64 MiB, less than dev_mem_limit's 128 MiB" 1
result doctor_cma_fix "$(finding cma | grep -q 'qpuctl config set dev_mem_limit 64M'; echo $?)" "$(finding cma)"
"$QPUCTL" config set dev_mem_limit 64M
doctor_finds doctor_cma_enough "$R" cma ok "CMA has 64 MiB, dev_mem_limit is 64 MiB" 0
"$QPUCTL" config set dev_mem_limit "$saved_limit"
echo 1 >$PARAMS/sim_dma
doctor_finds doctor_cma_sim_dma "" cma "$cma_status" "CMA" "$([ $cma_status = ok ]; echo $?)"
echo 0 >$PARAMS/sim_dma
doctor_finds doctor_cma_sim_vmalloc "" cma skip "simulated V3Ds use vmalloc" 0

# 10e. device_node: the node's mode and group against the caller's uid and
# groups (a staged /proc/self/status and node).
mkroot "$R"
rm "$R/proc/self" "$R/dev/qpu"
mkdir -p "$R/proc/self"
printf 'Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t\nCapEff:\t0000000000000000\n' \
	>"$R/proc/self/status"
mknod "$R/dev/qpu" c 10 250
chmod 0666 "$R/dev/qpu"
doctor_finds doctor_node_open_to_all "$R" device_node ok "usable by uid 1000" 0
chgrp 44 "$R/dev/qpu"
chmod 0660 "$R/dev/qpu"
doctor_finds doctor_node_group "$R" device_node fail "mode 0660, group video) cannot be opened by uid 1000" 1
result doctor_node_group_fix "$(finding device_node | grep -q 'usermod -aG video'; echo $?)" "$(finding device_node)"
sed -i 's/^Groups:.*/Groups:\t44/' "$R/proc/self/status"
doctor_finds doctor_node_in_group "$R" device_node ok "usable by uid 1000" 0
chgrp 0 "$R/dev/qpu"
chmod 0600 "$R/dev/qpu"
doctor_finds doctor_node_root_only "$R" device_node fail "mode 0600" 1
result doctor_node_udev_fix "$(finding device_node | grep -q '60-qpu.rules'; echo $?)" "$(finding device_node)"

# 10f. submit: with sim_hw_policy the simulated V3D has a real one's rule.
chmod 0666 "$R/dev/qpu"
doctor_finds doctor_submit_sim "$R" submit ok "anyone who opens the node may submit" 0
echo 1 >$PARAMS/sim_hw_policy
doctor_finds doctor_submit_no_rawio "$R" submit fail "needs CAP_SYS_RAWIO" 1
echo 1 >$PARAMS/allow_unprivileged_hw
doctor_finds doctor_submit_unprivileged_hw "$R" submit warn "allow_unprivileged_hw is set" 0
echo 0 >$PARAMS/allow_unprivileged_hw
sed -i 's/^CapEff:.*/CapEff:\t0000000000020000/' "$R/proc/self/status"
doctor_finds doctor_submit_rawio "$R" submit ok "you have CAP_SYS_RAWIO" 0
echo 0 >$PARAMS/sim_hw_policy

# 10g. device_node: loaded, but the simulated V3D unbound, so no node.
echo qpu-sim.0 >/sys/bus/platform/drivers/qpu-sim/unbind
doctor_finds doctor_no_device_node "" device_node fail "made no /dev/qpu" 1
echo qpu-sim.0 >/sys/bus/platform/drivers/qpu-sim/bind
i=0
while [ ! -e /dev/qpu ] && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done

# 10h. module: not loaded, and why (the kernel log's line); then loaded
# again as the VM runner had it.
rmmod qpu
# shellcheck disable=SC2086 # module parameters are separate words
insmod "$ko" sim=9 2>/dev/null
doctor_finds doctor_module_refused "" module fail "kernel log: qpu: " 1
result doctor_module_refused_fix "$(finding module | grep -q "/etc/modprobe.d/qpu.conf"; echo $?)" "$(finding module)"
for c in cma device_node submit; do
	result "doctor_unloaded_skips_$c" "$(finding $c | grep -q '"status":"skip"'; echo $?)" "$(finding $c)"
done
# shellcheck disable=SC2086
insmod "$ko" $args
result module_reloaded "$([ -e /dev/qpu ]; echo $?)" "no /dev/qpu after insmod $ko $args"

tap_end
