#!/bin/sh
# SPDX-License-Identifier: MIT
#
# vm-payload: fleet.tar, what test-fleet-vm.sh runs in the check-vm guest:
# tools/qpu-detect and tools/qpu-fleet as built (linked with libmosquitto),
# lib/libqpu.so.0 where their rpath finds it, the tiny detector of
# qpu.pipeline converted to det.qnn, and in.y4m, FRAMES frames of 32x32.
# Without libmosquitto's tools or python3-onnx the tar holds only SKIP, the
# reason, and the guest step skips.
# Usage: vm-payload.sh BUILD OUT.tar FRAMES
set -u
build=$1 out=$2 frames=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
dir=$(dirname "$out")/fleet
rm -rf "$dir" && mkdir -p "$dir/tools" "$dir/lib" || exit 1

skip() {
	echo "$1" >"$dir/SKIP"
	echo "vm-payload.sh: the fleet's VM test will skip: $1" >&2
	tar -cf "$out" -C "$dir" SKIP
	exit 0
}
if [ ! -x "$build/tools/qpu-fleet" ] ||
	! "$build/tools/qpu-detect" --help | grep -q -- --mqtt-queue; then
	skip "the build found no libmosquitto (tools/deps.sh fleet)"
fi
"$PYTHON" -c 'import onnx, numpy' 2>/dev/null ||
	skip "no python3-onnx for the tiny detector (tools/deps.sh python)"

cp "$build/tools/qpu-detect" "$build/tools/qpu-fleet" "$dir/tools/" &&
	cp -L "$build/libqpu.so.0" "$dir/lib/" || exit 1
PYTHONPATH=$src/libqpu/python QPU_LIBRARY=$build/libqpu.so.0
export PYTHON PYTHONPATH QPU_LIBRARY
"$PYTHON" -m qpu.pipeline tiny-detector "$dir/det.onnx" >/dev/null &&
	"$build/tools/qpu-nn" convert "$dir/det.onnx" "$dir/det.qnn" >/dev/null || exit 1
rm "$dir/det.onnx"
"$PYTHON" - "$dir/in.y4m" "$frames" <<'PY' || exit 1
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"YUV4MPEG2 W32 H32 F60:1 Ip A1:1 C420jpeg\n")
    for i in range(int(sys.argv[2])):
        f.write(b"FRAME\n" + bytes((i * 7 + j * 13) % 256 for j in range(1536)))
PY
tar -cf "$out" -C "$dir" tools lib det.qnn in.y4m
