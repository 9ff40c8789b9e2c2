#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-v3d-tools-vm: qpu-info and qpuctl on kmod/v3d_sim's Pi 4 and Pi 5
# nodes, run in the VM (check-vm copies it, the static qpu-info and qpuctl
# to /payload): each case asserts exact lines and the exit status, the
# telemetry from the simulated firmware's knobs (v3d_sim vcio=1). Prints
# TAP.

QPU_INFO=${QPU_INFO:-./qpu-info}
QPUCTL=${QPUCTL:-./qpuctl}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# result(), tap_end (check-vm copies it beside this script)
. ./tap.sh

# has NAME LINE COMMAND...: exit 0 and LINE among its output's lines.
has() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -qxF -- "$want" "$tmp/out"; then
		result "$name" 1 "exit status $rc, no line '$want' in: $(cat "$tmp/out" "$tmp/err")"
	else
		result "$name" 0
	fi
}

pi4=/dev/dri/by-path/platform-fec00000.v3d-render
pi5=/dev/dri/by-path/platform-1002000000.v3d-render

has info_pi4_kind "kind: v3d DRM driver, V3D 4.2 (Pi 4)" "$QPU_INFO" -d "$pi4"
has info_pi4_gen "gen: v3d42" "$QPU_INFO" -d "$pi4"
has info_pi4_qpus "qpus: 8" "$QPU_INFO" -d "$pi4"
has info_pi4_slices "slices: 2" "$QPU_INFO" -d "$pi4"
# the Pi 5's configuration is the module's choice (pi5_qpus: 12 or 16)
pi5_qpus=$(cat /sys/module/v3d_sim/parameters/pi5_qpus)
pi5_slices=$((pi5_qpus / 4))
has info_pi5_by_gen "kind: v3d DRM driver, V3D 7.1 (Pi 5)" "$QPU_INFO" -d v3d:v3d71
has info_pi5_qpus "qpus: $pi5_qpus" "$QPU_INFO" -d v3d:v3d71
has info_pi5_slices "slices: $pi5_slices" "$QPU_INFO" -d "$pi5"
has info_pi5_card_node "gen: v3d71" "$QPU_INFO" -d /dev/dri/by-path/platform-1002000000.v3d-card
has info_first_v3d "gen: v3d42" "$QPU_INFO" -d v3d

"$QPU_INFO" -d v3d:vc4 >"$tmp/out" 2>"$tmp/err"
rc=$?
result info_v3d_of_vc4_refused "$([ "$rc" -eq 1 ] && grep -q 'v3d:vc4: Invalid argument' "$tmp/err"; echo $?)" \
	"exit status $rc: $(cat "$tmp/err")"

knobs=/sys/module/v3d_sim/parameters
knob() { printf '%s' "$2" >"$knobs/$1"; }
knob fw_clock_set_hz 500000000
knob fw_clock_measured_hz 498500000
knob fw_temp_mc 52250
knob fw_throttled 0x50005
fw=" clock_set 500.0 MHz measured 498.5 MHz temp 52.2 C throttled 0x50005 ( under_voltage throttled under_voltage_occurred throttled_occurred ) telemetry firmware"

pi4_node=/dev/dri/$(basename "$(readlink "$pi4")")
pi5_node=/dev/dri/$(basename "$(readlink "$pi5")")
has qpuctl_v3d_pi4 "node $pi4_node gen v3d42 kind \"v3d DRM driver, V3D 4.2 (Pi 4)\" slices 2 qpus 8 ident0 0x04443356 ident1 0x40101422 ident2 0x00000000$fw" \
	"$QPUCTL" v3d
has qpuctl_v3d_pi5 "node $pi5_node gen v3d71 kind \"v3d DRM driver, V3D 7.1 (Pi 5)\" slices $pi5_slices qpus $pi5_qpus ident0 0x07443356 ident1 0x401014${pi5_slices}1 ident2 0x00000000$fw" \
	"$QPUCTL" v3d show
"$QPUCTL" -j v3d >"$tmp/out" 2>"$tmp/err"
rc=$?
result qpuctl_v3d_json "$([ "$rc" -eq 0 ] && grep -qF "{\"node\":\"$pi5_node\",\"gen\":\"v3d71\"" "$tmp/out"; echo $?)" \
	"exit status $rc: $(cat "$tmp/out" "$tmp/err")"

"$QPUCTL" -j v3d >"$tmp/out" 2>"$tmp/err"
rc=$?
result qpuctl_v3d_json_telemetry "$([ "$rc" -eq 0 ] && grep -qF '"clock_set_hz":500000000,"clock_measured_hz":498500000,"temp_mc":52250,"throttled":327685,"throttled_flags":["under_voltage","throttled","under_voltage_occurred","throttled_occurred"],"telemetry":"firmware"}' "$tmp/out"; echo $?)" \
	"exit status $rc: $(cat "$tmp/out" "$tmp/err")"

# A firmware that refuses: no values, and why, in text and JSON.
knob fw_fail 1
has qpuctl_v3d_firmware_refuses "node $pi4_node gen v3d42 kind \"v3d DRM driver, V3D 4.2 (Pi 4)\" slices 2 qpus 8 ident0 0x04443356 ident1 0x40101422 ident2 0x00000000 telemetry none (no clock: the firmware refused the request (/dev/vcio gave EINVAL)) (no temp: the firmware refused the request (/dev/vcio gave EINVAL)) (no throttled: the firmware refused the request (/dev/vcio gave EINVAL))" \
	"$QPUCTL" v3d
knob fw_fail 0
# An older firmware without GET_CLOCK_MEASURED: the rest still answered.
knob fw_unknown 0x30047
"$QPUCTL" -j v3d >"$tmp/out" 2>"$tmp/err"
rc=$?
result qpuctl_v3d_firmware_lacks_a_tag "$([ "$rc" -eq 0 ] && grep -qF '"clock_set_hz":500000000,"temp_mc":52250,"throttled":327685,"throttled_flags":["under_voltage","throttled","under_voltage_occurred","throttled_occurred"],"telemetry":"firmware","why_clock":"the firmware does not know GET_CLOCK_MEASURED (older than 2017)"}' "$tmp/out"; echo $?)" \
	"exit status $rc: $(cat "$tmp/out" "$tmp/err")"
knob fw_unknown 0
knob fw_clock_measured_hz 500000000
knob fw_temp_mc 45000
knob fw_throttled 0

# v3d stats: both nodes' queues from gpu_stats, their CSD jobs counted
# (test-v3d-dev and the kselftests ran jobs on both before this script).
"$QPUCTL" v3d stats >"$tmp/out" 2>"$tmp/err"
rc=$?
result qpuctl_v3d_stats "$([ "$rc" -eq 0 ] && grep -qx "node $pi4_node" "$tmp/out" &&
	grep -qx "node $pi5_node" "$tmp/out" &&
	[ "$(grep -cE '^  csd +jobs [1-9][0-9]* runtime_ns [1-9][0-9]*$' "$tmp/out")" -eq 2 ] &&
	[ "$(grep -cE '^  tfu +jobs 0 runtime_ns 0$' "$tmp/out")" -eq 2 ]; echo $?)" \
	"exit status $rc: $(cat "$tmp/out" "$tmp/err")"
# v3d top: this shell's own open file of the Pi 4's node, as a client.
exec 3<>"$pi4"
"$QPUCTL" -j v3d top interval 0.1 count 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
result qpuctl_v3d_top_client "$([ "$rc" -eq 0 ] && grep -qE "\"clients\":\[.*\{\"pid\":$$,\"comm\":\"[^\"]*\",\"fd\":3,\"client_id\":[0-9]+,\"csd_jobs\":0,\"csd_jobs_delta\":0,\"csd_ns\":0,\"csd_busy_permille\":0\}" "$tmp/out" &&
	grep -qF "{\"node\":\"$pi5_node\",\"csd_jobs\":" "$tmp/out"; echo $?)" \
	"exit status $rc: $(cat "$tmp/out" "$tmp/err")"
exec 3>&-

tap_end
