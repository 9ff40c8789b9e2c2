#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-fleet-vm: one board on the VM's /dev/qpu (qpu.ko's simulated
# device) publishing over MQTT beside two boards on the emulator, run in
# the check-vm guest. Everything is the host's own programs, unchanged:
# mosquitto and libmosquitto from the host's /usr (host-usr.sh), qpu-detect
# and qpu-fleet with libqpu.so.0 and the tiny detector in fleet.tar
# (fleet.mk). The broker listens on the guest's 127.0.0.1, so the guest
# needs no network device. Every frame of every stream arrives once and in
# order; each board's status ends "offline"; the /dev/qpu board's health
# comes from qpu.ko's telemetry, the emulator's is null with reasons.
# Skips (exit status 4, counted as a skip) only when the host has no
# mosquitto or the build had no libmosquitto (tools/deps.sh fleet) or
# python3-onnx for the detector (tools/deps.sh python). Prints TAP.
# Usage: test-fleet-vm.sh FRAMES (the frames in fleet.tar's in.y4m)

frames=$1
tmp=/tmp/fleet
rm -rf "$tmp" && mkdir -p "$tmp" && tar -xf /payload/fleet.tar -C "$tmp" || exit 1
if [ -f "$tmp/SKIP" ]; then
	echo "SKIP: $(cat "$tmp/SKIP")"
	exit 4
fi
. ./host-usr.sh
host_usr_mount || exit 1
trap host_usr_umount EXIT
if [ ! -x /usr/sbin/mosquitto ]; then
	echo "SKIP: no /usr/sbin/mosquitto on the host (tools/deps.sh fleet)"
	exit 4
fi
. ./tap.sh

# A root that exists for mosquitto's user switch (it stays root: "user
# root"), and the loopback interface the broker listens on.
[ -e /etc/passwd ] || echo "root:x:0:0:root:/root:/bin/sh" >/etc/passwd
ip link set lo up
cat >"$tmp/mosquitto.conf" <<EOF
listener 1883 127.0.0.1
allow_anonymous true
user root
EOF
/usr/sbin/mosquitto -c "$tmp/mosquitto.conf" >"$tmp/broker.log" 2>&1 &
broker_pid=$!

# wait_for PATTERN FILE [TENTHS]: until PATTERN is in FILE (30 s at most).
wait_for() {
	i=0
	until grep -q -- "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt "${3:-300}" ] || return 1
		sleep 0.1
	done
}
wait_for ' running$' "$tmp/broker.log"
result broker_started $? "$(cat "$tmp/broker.log")"

"$tmp/tools/qpu-fleet" --id fleet-vm --quiet --interval 1 --out "$tmp/out.jsonl" \
	127.0.0.1 >"$tmp/fleet.log" 2>&1 &
fleet_pid=$!
wait_for "subscribed to qpu/+/+" "$tmp/fleet.log"
result fleet_subscribed $? "$(cat "$tmp/fleet.log")"

# board NAME DEVICE: qpu-detect on DEVICE publishing stream NAME; its
# exit status into NAME.rc.
board() {
	"$tmp/tools/qpu-detect" -q -d "$2" -m "$tmp/det.qnn" --mqtt 127.0.0.1 --stream "$1" \
		--health-interval 1 "$tmp/in.y4m" >"$tmp/$1.jsonl" 2>"$tmp/$1.log"
	echo $? >"$tmp/$1.rc"
}
boards="qpu emu1 emu2"
board qpu /dev/qpu &
p1=$!
board emu1 emu &
p2=$!
board emu2 emu &
wait "$p1" "$p2" $!
for s in $boards; do
	rc=$(cat "$tmp/$s.rc")
	lines=$(wc -l <"$tmp/$s.jsonl")
	[ "$rc" -eq 0 ] && [ "$lines" -eq "$frames" ] && ! grep -q "dropping\|never acknowledged" "$tmp/$s.log"
	result "board_${s}_ran_and_was_acknowledged" $? \
		"exit status $rc, $lines JSON lines: $(cat "$tmp/$s.log")"
done

# Every frame seen by qpu-fleet (10 s at most), then its last table rows.
i=0
while [ "$(grep -c '"type":"detections".*"dup":false' "$tmp/out.jsonl")" -lt $((3 * frames)) ] &&
	[ $i -lt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
sleep 0.3
kill "$fleet_pid"
wait "$fleet_pid"

# frames_of NAME: the stream's frame numbers as qpu-fleet got them, first
# deliveries only, one line.
frames_of() {
	grep "^{\"type\":\"detections\",\"stream\":\"$1\"" "$tmp/out.jsonl" | grep '"dup":false' |
		sed 's/.*"payload":{[^}]*"frame":\([0-9]*\).*/\1/' | tr '\n' ' '
}
want=$(i=0; while [ $i -lt "$frames" ]; do printf '%d ' $i; i=$((i + 1)); done)
for s in $boards; do
	got=$(frames_of "$s")
	last=$(grep "^{\"type\":\"status\",\"stream\":\"$s\"" "$tmp/out.jsonl" | tail -n 1)
	[ "$got" = "$want" ] && case $last in *'"payload":"offline"'*) true ;; *) false ;; esac
	result "stream_${s}_every_frame_once_in_order" $? "frames [$got], last status $last"
done
# The /dev/qpu board's last health: qpu.ko's device and telemetry (the
# simulated V3D's clock), nothing left in the pipeline; the emulator's:
# none, each null with its reason.
health() {
	grep "^{\"type\":\"health\",\"stream\":\"$1\"" "$tmp/out.jsonl" | tail -n 1
}
h=$(health qpu)
echo "# $h"
case $h in
*'"device":"in-process emulator"'* | *'"device":""'*) false ;;
*'"telemetry":"qpu.ko","clock_hz":'[1-9]*'"queue_depth":0,"null_reasons":{'*) true ;;
*) false ;;
esac
result health_of_qpu_board_from_qpu_ko $? "$h"
h=$(health emu1)
case $h in
*'"clock_hz":null,"temp_mc":null,"throttled":null,'*'"null_reasons":{"clock_hz":"an emulated'*) true ;;
*) false ;;
esac
result health_of_emu_board_null_with_reasons $? "$h"

kill "$broker_pid"
wait "$broker_pid"
tap_end
