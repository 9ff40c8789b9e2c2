#!/bin/sh
# SPDX-License-Identifier: MIT
#
# qpu-detect-camera-vm: the V4L2 path end to end in the VM (check-vm): the
# guest kernel's virtual camera vivid through qpu-detect --camera on
# qpu.ko's /dev/qpu with the tiny detector (det.qnn, generated on the host
# by `python3 -m qpu.pipeline tiny-detector` and qpu-nn convert). Asserts
# the stages' placement (pre-processing, inference and NMS on the QPUs for
# every frame, no recovery), one JSON line per frame in order with no
# error and the camera's sequence rising, and that every frame was the
# camera's buffer read in place (qpu-detect's imported/copied counts: the pipeline's frame
# is the imported buffer's mapping, which test-runtime's
# vivid_frames_are_the_cameras_pages shows to be the camera's pages);
# then the refusals at start. Prints TAP.

DETECT=${DETECT:-./qpu-detect}
MODEL=${MODEL:-./det.qnn}
# Within the stages' first QPU_PIPELINE_TIMEOUT_RUNS runs, whose jobs get
# the device's default timeout: a derived one (a few times the runs seen)
# could end a job that a loaded TCG guest slowed, and recover it on the CPU.
FRAMES=8
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# result(), tap_end (check-vm copies it beside this script)
. ./tap.sh

# vivid's first capture node (its sysfs name: vivid-000-vid-cap)
cam=
for d in /sys/class/video4linux/video*; do
	case "$(cat "$d/name" 2>/dev/null)" in
	*vid-cap*) cam=/dev/${d##*/}; break ;;
	esac
done
if [ -z "$cam" ] || [ ! -s "$MODEL" ]; then
	echo "# SKIP no vivid capture node or no $MODEL (python3-onnx on the host)"
	echo "1..0 # SKIP no vivid or no model"
	exit 0
fi

# A camera run: NV12, pre-processed on the QPUs (qpu_preprocess()) in place.
"$DETECT" -d /dev/qpu -m "$MODEL" --camera "$cam" --camera-format NV12 -s 320x180 \
	-n $FRAMES -j 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
result camera_run_exits_0 $rc "exit $rc: $(cat "$tmp/err")"

lines=$(grep -c '^{"frame":' "$tmp/out")
[ "$lines" -eq $FRAMES ]
result "camera_${FRAMES}_json_lines" $? "$lines lines"

# frame numbers 0..N-1 in order, each imported with a rising sequence, no error
awk -v n=$FRAMES '
	{ if (!match($0, /"frame":[0-9]+/)) exit 1
	  f = substr($0, RSTART + 8, RLENGTH - 8) + 0
	  if (f != next_frame++) { print "frame " f " out of order"; exit 1 }
	  if ($0 ~ /"error"/) { print "frame " f ": " $0; exit 1 }
	  if ($0 !~ /"imported":true/) { print "frame " f " not imported"; exit 1 }
	  if ($0 !~ /"preprocess":[{][^}]*"on":"qpu"/ || $0 !~ /"infer":[{][^}]*"on":"qpu"/ ||
	      $0 !~ /"detect":[{][^}]*"on":"qpu"/) { print "frame " f ": a stage off the QPUs: " $0; exit 1 }
	  if (!match($0, /"sequence":[0-9]+/)) { print "frame " f " no sequence"; exit 1 }
	  s = substr($0, RSTART + 11, RLENGTH - 11) + 0
	  if (f && s <= last) { print "frame " f ": sequence " s " after " last; exit 1 }
	  last = s }
	END { if (next_frame != n) exit 1 }' "$tmp/out" >"$tmp/why"
result camera_frames_in_order_imported_no_error $? "$(cat "$tmp/why")"

grep -q "camera $cam: 320x180 NV12, 4 buffers; $FRAMES frames imported, 0 copied" "$tmp/err"
result camera_frames_imported_not_copied $? "$(grep '^camera' "$tmp/err")"

# the table: stage, place, frames, ..., recoveries
awk -v n=$FRAMES '$1 == "preprocess" || $1 == "infer" || $1 == "detect" {
		if ($2 != "qpu" || $3 != n || $9 != 0) { print; bad = 1 }
		seen++ }
	END { exit bad || seen != 3 }' "$tmp/err" >"$tmp/why"
result camera_stages_on_the_qpus $? "$(cat "$tmp/why")"

# refusals at start, exit 1, each naming its cause
refused() {
	name=$1 want=$2
	shift 2
	"$DETECT" -d /dev/qpu -m "$MODEL" -n 1 "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "$want" "$tmp/err"
	result "$name" $? "exit $rc: $(cat "$tmp/err")"
}
refused camera_no_such_device "cannot open /dev/video99: No such file or directory" \
	--camera /dev/video99
refused camera_not_a_capture_device "/dev/qpu is not a V4L2 single-planar capture device" \
	--camera /dev/qpu
refused camera_size_it_changes "gives .* frames, not the 322x180 asked: ask --size" \
	--camera "$cam" --camera-format YU12 -s 322x180
refused camera_odd_size "a YU12 frame needs an even width and height" \
	--camera "$cam" --camera-format YU12 -s 321x180
tap_end
