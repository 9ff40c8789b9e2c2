#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-fleet-mqtt: boards publishing to MQTT (qpu-detect --mqtt, through
# tools/fleet/qpu_mqtt.c) and qpu-fleet reading them, against a mosquitto
# this test starts on 127.0.0.1 at a free port. Three boards, three
# qpu-detect processes each on its own emulator device, each fed by a
# "camera" (a Y4M FIFO written at 60 frames a second), with the tiny
# detector of test-qpu-detect, and qpu-fleet: every frame of every stream arrives, in
# order per stream (QoS 1's resends marked as duplicates, none missing);
# the broker stopped and started again mid-run loses nothing (it keeps the
# sessions: persistence); a board killed mid-run: its last will "offline"
# arrives, the others go on; a board with a small queue while the broker is
# away drops, counts and says so. Bad configuration (broker unreachable,
# bad stream name or port, password file) is an error at start. Skips
# without mosquitto and libmosquitto (tools/deps.sh fleet) or python3-onnx.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
build=$(cd "$(dirname "$QPU_DIS")/.." && pwd)
fleet=$build/tools/qpu-fleet
board=$build/tools/qpu-detect
src=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
# shellcheck source=selftests/lib/check-lib.sh
. "$(dirname "$0")/../lib/check-lib.sh"

mosquitto=$(command -v mosquitto || echo /usr/sbin/mosquitto)
if [ ! -x "$mosquitto" ] || [ ! -x "$fleet" ] || [ ! -x "$board" ]; then
	echo "no mosquitto, qpu-fleet or qpu-detect: run tools/deps.sh fleet, then make"
	exit 77
fi
if ! "$board" --help | grep -q -- --mqtt-queue; then
	echo "qpu-detect has no --mqtt: run tools/deps.sh fleet, then make"
	exit 77
fi
if ! "$PYTHON" -c 'import onnx, numpy' 2>/dev/null; then
	echo "no python3-onnx for $PYTHON: run tools/deps.sh python"
	exit 77
fi

pids=
cleanup() {
	for p in $pids; do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
export QPU_DEVICE=emu

free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
closed_port=$(free_port)
broker=127.0.0.1:$port

# The broker keeps sessions and queued messages across a restart; as root
# it would switch to the user "mosquitto", who may not write $tmp.
cat >"$tmp/mosquitto.conf" <<EOF
listener $port 127.0.0.1
allow_anonymous true
user $(id -un)
persistence true
persistence_location $tmp/
max_queued_messages 100000
EOF

start_broker() {
	"$mosquitto" -c "$tmp/mosquitto.conf" >>"$tmp/broker.log" 2>&1 &
	broker_pid=$!
	pids="$pids $broker_pid"
	n=0
	until [ "$(grep -c ' running$' "$tmp/broker.log")" -ge "$1" ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || { echo "mosquitto did not start:"; cat "$tmp/broker.log"; exit 1; }
		sleep 0.05
	done
}

# error NAME PATTERN CMD...: CMD exits 1 (2 for qpu-detect's options) at
# once, PATTERN on stderr.
error() {
	pattern=$1
	shift
	timeout 10 "$@" >"$tmp/err.out" 2>"$tmp/err.err"
	status=$?
	cat "$tmp/err.err"
	[ "$status" -eq 1 ] || [ "$status" -eq 2 ] || { echo "exit status $status, expected 1"; return 1; }
	grep -q -- "$pattern" "$tmp/err.err" || { echo "no '$pattern'"; return 1; }
}

# The detector and a camera: pace.py writes a Y4M stream of 32x32 frames
# into a FIFO at 60 frames a second, as a camera would deliver them.
PYTHONPATH=$src/libqpu/python QPU_LIBRARY=$build/libqpu.so.0
export PYTHON PYTHONPATH QPU_LIBRARY
# An ASan build's libqpu, loaded into python, wants the ASan runtime first
# (and python's own allocations are no leaks of ours).
py_env=
if ldd "$build/libqpu.so.0" 2>/dev/null | grep -q libasan; then
	py_env="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0"
fi
# shellcheck disable=SC2086
env $py_env "$PYTHON" -m qpu.pipeline tiny-detector "$tmp/det.onnx" >/dev/null || exit 1
# shellcheck disable=SC2086
env $py_env "$build/tools/qpu-nn" convert "$tmp/det.onnx" "$tmp/det.qnn" >/dev/null || exit 1
cat >"$tmp/pace.py" <<'EOF'
import sys, time
path, frames, fps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
try:
    with open(path, "wb", buffering=0) as f:
        f.write(b"YUV4MPEG2 W32 H32 F60:1 Ip A1:1 C420jpeg\n")
        start = time.monotonic()
        for i in range(frames):
            wait = start + i / fps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            f.write(b"FRAME\n" + bytes((i * 7 + j * 13) % 256 for j in range(1536)))
except BrokenPipeError:
    pass
EOF
"$PYTHON" "$tmp/pace.py" "$tmp/one.y4m" 2 1000 && [ -s "$tmp/one.y4m" ] || exit 1

# board STREAM FRAMES [OPTION]...: qpu-detect on a camera of FRAMES frames,
# its JSON lines to STREAM.jsonl, its messages to STREAM.log.
board() {
	name=$1 count=$2
	shift 2
	rm -f "$tmp/$name.y4m"
	mkfifo "$tmp/$name.y4m"
	"$PYTHON" "$tmp/pace.py" "$tmp/$name.y4m" "$count" 60 &
	camera=$!
	"$board" -q -m "$tmp/det.qnn" --mqtt "$broker" --stream "$name" "$@" "$tmp/$name.y4m" \
		>"$tmp/$name.jsonl" 2>"$tmp/$name.log"
	status=$?
	kill "$camera" 2>/dev/null
	return $status
}

check board_unreachable_broker error "broker 127.0.0.1:$closed_port: Connection refused" \
	"$board" -m "$tmp/det.qnn" --mqtt "127.0.0.1:$closed_port" --stream cam1 "$tmp/one.y4m"
check board_bad_stream error "stream name 'cam/1': '/' may not be in a topic level" \
	"$board" -m "$tmp/det.qnn" --mqtt "$broker" --stream cam/1 "$tmp/one.y4m"
check board_bad_port error "broker port '99999': not a port" \
	"$board" -m "$tmp/det.qnn" --mqtt 127.0.0.1:99999 --stream cam1 "$tmp/one.y4m"
check board_no_stream error "needs --stream NAME" \
	"$board" -m "$tmp/det.qnn" --mqtt "$broker" "$tmp/one.y4m"
check board_stream_without_mqtt error "give both" \
	"$board" -m "$tmp/det.qnn" --stream cam1 "$tmp/one.y4m"
check fleet_unreachable_broker error "^qpu-fleet: broker 127.0.0.1:$closed_port: Connection refused" \
	"$fleet" "127.0.0.1:$closed_port"
check fleet_bad_stream error "stream name 'cam#': '#' may not be in a topic level" \
	"$fleet" --stream 'cam#' "$broker"
check fleet_no_broker error "^qpu-fleet: no broker" "$fleet" -q
check fleet_password_file_missing error "password file $tmp/none: No such file" \
	"$fleet" --user me --password-file "$tmp/none" "$broker"
check fleet_password_without_user error "a password but no user name" \
	env QPU_MQTT_PASSWORD=x "$fleet" "$broker"
check fleet_tls_without_ca error "TLS needs the broker's CA file" \
	"$fleet" --cert "$tmp/c.pem" --key "$tmp/k.pem" "$broker"

start_broker 1
"$fleet" --id fleet-test --quiet --interval 1 --out "$tmp/out.jsonl" "$broker" \
	>"$tmp/fleet.log" 2>&1 &
fleet_pid=$!
pids="$pids $fleet_pid"

# wait_for PATTERN FILE: until PATTERN is in FILE, 30 s at most (a loaded
# machine starts ASan builds slowly).
wait_for() {
	n=0
	until grep -q -- "$1" "$2" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 300 ] || { echo "no '$1' in $2 after 30 s"; return 1; }
		sleep 0.1
	done
}
wait_for "subscribed to qpu/+/+" "$tmp/fleet.log"

frames=150
for s in cam1 cam2 cam3; do
	board "$s" $frames --health-interval 1 &
	eval "pid_$s=\$!"
	pids="$pids $!"
done
# victim dies mid-run (SIGKILL: no goodbye, only the last will); small has
# room for 8 messages, too few for the broker's absence.
rm -f "$tmp/victim.y4m"
mkfifo "$tmp/victim.y4m"
"$PYTHON" "$tmp/pace.py" "$tmp/victim.y4m" 1000 60 &
pids="$pids $!"
"$board" -q -m "$tmp/det.qnn" --mqtt "$broker" --stream victim "$tmp/victim.y4m" \
	>/dev/null 2>"$tmp/victim.log" &
victim_pid=$!
pids="$pids $victim_pid"
board small $frames --mqtt-queue 8 &
small_pid=$!
pids="$pids $small_pid"

# Mid-run: once every board has published, the victim dies and its will
# arrives; then the broker stops, and starts again.
for s in cam1 cam2 cam3 victim small; do
	wait_for "\"type\":\"detections\",\"stream\":\"$s\"" "$tmp/out.jsonl"
done
kill -9 "$victim_pid"
wait_for '"stream":"victim".*"payload":"offline"' "$tmp/out.jsonl"
kill "$broker_pid"
wait "$broker_pid"
sleep 0.4
start_broker 2

board_ok() {
	wait "$1"
	status=$?
	cat "$2"
	[ "$status" -eq 0 ] || { echo "exit status $status"; return 1; }
	! grep -q "dropping\|never acknowledged" "$2"
}
for s in cam1 cam2 cam3; do
	eval "p=\$pid_$s"
	check "board_${s}_all_acknowledged" board_ok "$p" "$tmp/$s.log"
done
small_dropped() {
	wait "$small_pid"
	status=$?
	cat "$tmp/small.log"
	[ "$status" -eq 1 ] || { echo "exit status $status, expected 1"; return 1; }
	grep -q "qpu-mqtt: small: queue full (8 messages the broker has not acknowledged): dropping new ones" \
		"$tmp/small.log"
}
check board_small_queue_drops_and_says_so small_dropped

# Wait (10 s at most) for every frame of the three streams, then stop
# qpu-fleet: its last table rows close the file.
n=0
while [ $n -lt 100 ]; do
	got=$(grep -c '"type":"detections".*"dup":false' "$tmp/out.jsonl" 2>/dev/null)
	if [ "${got:-0}" -ge $((3 * frames)) ] &&
		grep -q '"stream":"victim".*"payload":"offline"' "$tmp/out.jsonl"; then
		break
	fi
	n=$((n + 1))
	sleep 0.1
done
sleep 0.3
kill "$fleet_pid"
wait "$fleet_pid"

# The assertions on qpu-fleet's JSON lines, all read once: a line
# "NAME ok" or "NAME what is wrong" per check into $tmp/verdicts.
"$PYTHON" - "$tmp/out.jsonl" "$frames" "$tmp" >"$tmp/verdicts" 2>&1 <<'EOF'
import json, sys
path, frames, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
msgs = [json.loads(line) for line in open(path)]
def frames_of(s):
    return [m["payload"]["frame"] for m in msgs
            if m["type"] == "detections" and m["stream"] == s and not m["dup"]]
def statuses(s):
    return [m["payload"] for m in msgs if m["type"] == "status" and m["stream"] == s]
def stream(s):
    got = frames_of(s)
    if got != list(range(frames)):
        missing = sorted(set(range(frames)) - set(got))
        return f"{len(got)} frames, missing {missing[:10]}, in order: {got == sorted(got)}"
    d = [m for m in msgs if m["type"] == "detections" and m["stream"] == s]
    for m in d:
        p = m["payload"]
        if p["stream"] != s or p["latency_ns"] <= 0 or p["done_ns"] <= p["capture_ns"]:
            return f"bad frame {p}"
        for box in p["detections"]:
            if set(box) != {"label", "class", "score", "box"} or len(box["box"]) != 4 \
                    or not 0 <= box["score"] <= 1:
                return f"bad detection in {p}"
    # the boxes qpu-detect wrote itself, frame by frame
    own = [json.loads(line) for line in open(f"{tmp}/{s}.jsonl")]
    sent = {m["payload"]["frame"]: m["payload"]["detections"] for m in d}
    for o in own:
        a, b = sent[o["frame"]], o["detections"]
        if len(a) != len(b) or any(abs(x["score"] - y["score"]) > 6e-5 for x, y in zip(a, b)):
            return f"frame {o['frame']}: {o['detections']} published as {sent[o['frame']]}"
    # each frame's stages as its own line has them (ms there, ns here)
    staged = {m["payload"]["frame"]: m["payload"]["stages"] for m in d}
    for o in own:
        a, b = staged[o["frame"]], o["stages"]
        if not b or set(a) != set(b) or any(
                abs(a[k]["ns"] - b[k]["ms"] * 1e6) > 1000 or a[k]["on"] != b[k]["on"] or
                abs(a[k].get("model_ns", 0) - b[k].get("model_ms", 0) * 1e6) > 1000 or
                a[k].get("recovered", False) != b[k].get("recovered", False) for k in b):
            return f"frame {o['frame']}: stages {b} published as {a}"
    if len(d) - len(got) != sum(1 for m in d if m["dup"]):
        return "duplicates not all marked"
    st = statuses(s)
    # (a resubscription brings the retained status again: any order before)
    if "online" not in st or st[-1] != "offline":
        return f"status messages {st}"
    if not any(m["type"] == "health" and m["stream"] == s and
               m["payload"]["device"] == "in-process emulator" for m in msgs):
        return "no health message"
    return "ok"
def victim():
    got = frames_of("victim")
    if not got or got != list(range(len(got))):
        return f"frames {got[:5]}...{got[-5:]} not 0..n in order"
    st = [m for m in msgs if m["type"] == "status" and m["stream"] == "victim"]
    if not st or st[-1]["payload"] != "offline":
        return f"no last will: status messages {[m['payload'] for m in st]}"
    later = [m for m in msgs if m["type"] == "detections" and m["stream"] == "cam1"
             and m["recv_ns"] > st[-1]["recv_ns"]]
    if not later:
        return "no cam1 frame after the victim's last will"
    return "ok"
def small():
    got = frames_of("small")
    if not got or got != sorted(got):
        return "frames out of order"
    return "ok" if len(got) < frames else "nothing dropped"
def health():
    keys = {"stream", "time_ns", "device", "telemetry", "clock_hz", "temp_mc", "throttled",
            "recoveries", "queue_depth", "null_reasons", "mqtt_queued", "mqtt_dropped",
            "mqtt_reconnects"}
    hs = [m["payload"] for m in msgs if m["type"] == "health"]
    if len(hs) < 3:
        return f"{len(hs)} health messages"
    for h in hs:
        if set(h) != keys:
            return f"fields {sorted(set(h) ^ keys)} differ in {h}"
        nulls = {k for k, v in h.items() if v is None}
        if set(h["null_reasons"]) != nulls or not all(h["null_reasons"].values()):
            return f"null fields {sorted(nulls)} against reasons {h['null_reasons']}"
        # the emulator has no clock, sensor or firmware; the pipeline's
        # counts are always there
        if nulls != {"clock_hz", "temp_mc", "throttled"} or h["telemetry"] != "none" \
                or "emulated" not in h["null_reasons"]["clock_hz"]:
            return f"emulator's health {h}"
        if h["recoveries"] != 0 or not 0 <= h["queue_depth"] <= 16:
            return f"pipeline's counts in {h}"
    for s in ("cam1", "cam2", "cam3"):
        last = [m["payload"] for m in msgs if m["type"] == "health" and m["stream"] == s][-1]
        if last["queue_depth"] != 0:
            return f"{s}: the last report, after the last frame, has {last}"
    return "ok"
def table():
    rows = {m["stream"]: m for m in msgs if m["type"] == "stream"}
    for s in ("cam1", "cam2", "cam3"):
        r = rows.get(s)
        if not r or r["frames"] != frames or r["gaps"] != 0 or r["status"] != "offline":
            return f"{s}: last table row {r}"
    if rows.get("victim", {}).get("status") != "offline":
        return f"victim: last table row {rows.get('victim')}"
    return "ok"
for s in ("cam1", "cam2", "cam3"):
    print(s, stream(s))
print("victim", victim())
print("small", small())
print("table", table())
print("health", health())
EOF
verdict() {
	grep "^$1 " "$tmp/verdicts" || cat "$tmp/verdicts"
	grep -qx "$1 ok" "$tmp/verdicts"
}
for s in cam1 cam2 cam3; do
	check "stream_${s}_every_frame_once_in_order" verdict "$s"
done
check victim_last_will_others_go_on verdict victim
check small_queue_frames_in_order verdict small
check fleet_table_rows verdict table
check health_fields_and_null_reasons verdict health
resent() {
	cat "$tmp"/cam*.log
	grep -q "connected to the broker again, resending" "$tmp/cam1.log"
}
check boards_reconnected_and_resent resent
kill "$broker_pid" 2>/dev/null
check_end
