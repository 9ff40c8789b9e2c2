#!/bin/sh
# SPDX-License-Identifier: MIT
#
# test-qpu-detect: qpu-detect on the emulator and the CPU with the tiny
# detector that `python3 -m qpu.pipeline tiny-detector` generates (python3-
# onnx; converted once with qpu-nn convert): a Y4M video, a raw NV12 file
# and a directory of PPM/PGM images (one of another size, refused in its
# JSON line) to JSON lines and PNG files; --bench's table and figures;
# input errors with exit 1 and option errors with exit 2.
# qpu-detect and qpu-nn are looked up next to QPU_DIS.

: "${QPU_DIS:?QPU_DIS must name the qpu-dis binary}"
bin=$(cd "$(dirname "$QPU_DIS")" && pwd)
detect=$bin/qpu-detect
src=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
if [ ! -x "$detect" ] || [ ! -x "$bin/qpu-nn" ]; then
	echo "qpu-detect or qpu-nn not built (make tools)"
	exit 77
fi
if ! "$PYTHON" -c 'import onnx, numpy' 2>/dev/null; then
	echo "no python3-onnx for $PYTHON: skipped"
	exit 77
fi
QPU_LIBRARY=$bin/../libqpu.so.0
PYTHONPATH=$src/libqpu/python
export PYTHON PYTHONPATH QPU_LIBRARY
# Under check-asan libqpu is built with ASan, which must be the first
# library a process loads: python, which loads libqpu late, preloads it
# (and python's own allocations are no leaks of ours).
py_env=
if ldd "$QPU_LIBRARY" 2>/dev/null | grep -q libasan; then
	py_env="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0"
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

check() {
	if "$@"; then passed=$((passed + 1)); else echo "FAIL: $*" >&2; failed=$((failed + 1)); fi
}

# The model and the inputs: 8 frames of 32x32 noise as Y4M and NV12, and
# images: three 32x32 PPM, one 16x16 PPM, one 32x32 PGM.
# shellcheck disable=SC2086
env $py_env "$PYTHON" -m qpu.pipeline tiny-detector "$tmp/det.onnx" || exit 1
# shellcheck disable=SC2086
env $py_env "$bin/qpu-nn" convert "$tmp/det.onnx" "$tmp/det.qnn" >/dev/null || exit 1
# shellcheck disable=SC2086
env $py_env "$PYTHON" - "$tmp" <<'EOF' || exit 1
import os, sys
import numpy as np
d = sys.argv[1]
rng = np.random.RandomState(3)
with open(os.path.join(d, "v.y4m"), "wb") as f:
    f.write(b"YUV4MPEG2 W32 H32 F30:1 Ip A1:1 C420jpeg\n")
    for _ in range(8):
        f.write(b"FRAME\n" + rng.randint(0, 256, 1536).astype(np.uint8).tobytes())
rng.randint(0, 256, 1536 * 8).astype(np.uint8).tofile(os.path.join(d, "v.nv12"))
with open(os.path.join(d, "c422.y4m"), "wb") as f:
    f.write(b"YUV4MPEG2 W32 H32 F30:1 C422\n")
os.mkdir(os.path.join(d, "img"))
for i, (side, magic, ch) in enumerate([(32, b"P6", 3), (32, b"P6", 3), (16, b"P6", 3),
                                       (32, b"P6", 3), (32, b"P5", 1)]):
    with open(os.path.join(d, "img", "im%d.%s" % (i, "ppm" if ch == 3 else "pgm")), "wb") as f:
        f.write(magic + b"\n# a comment\n%d %d\n255\n" % (side, side))
        f.write(rng.randint(0, 256, side * side * ch).astype(np.uint8).tobytes())
EOF

# Y4M on the emulator's QPUs, JSON lines and PNG files.
"$detect" -d emu -m "$tmp/det.qnn" -o "$tmp/out" "$tmp/v.y4m" 2>"$tmp/table"
check [ $? -eq 0 ]
check [ "$(wc -l <"$tmp/out/detections.jsonl")" -eq 8 ]
check grep -q '^{"frame":7,"width":32,"height":32,"latency_ms":[0-9.]*,"recoveries":0,"stages":{[^}]*}[^}]*}[^}]*}},"candidates":[0-9]*,"detections":\[' \
	"$tmp/out/detections.jsonl"
# Each frame's stages: time, where, in order; every stage on the QPUs.
check [ "$(grep -c '"stages":{"preprocess":{"ms":[0-9.]*,"on":"qpu"},"infer":{"ms":[0-9.]*,"on":"qpu"},"detect":{"ms":[0-9.]*,"on":"qpu"}}' \
	"$tmp/out/detections.jsonl")" -eq 8 ]
check [ "$(ls "$tmp/out"/frame-*.png | wc -l)" -eq 8 ]
check [ "$(head -c 4 "$tmp/out/frame-000000.png" | tail -c 3)" = PNG ]
check grep -q '^preprocess *qpu *8 ' "$tmp/table"
check grep -q '^infer .* 8 ' "$tmp/table"
check grep -q '^detect *qpu *8 ' "$tmp/table"
check grep -q '^end to end *8 .*0 failed (0 refused), telemetry: none' "$tmp/table"

# The same on the CPU: the same frames, the same boxes' count.
"$detect" --cpu -q -m "$tmp/det.qnn" "$tmp/v.y4m" >"$tmp/cpu.jsonl"
check [ $? -eq 0 ]
check [ "$(grep -o '"label"' "$tmp/cpu.jsonl" | wc -l)" -eq \
	"$(grep -o '"label"' "$tmp/out/detections.jsonl" | wc -l)" ]
check [ "$(grep -c '"stages":{"preprocess":{"ms":[0-9.]*,"on":"cpu"},"infer":{"ms":[0-9.]*,"on":"cpu"},"detect":{"ms":[0-9.]*,"on":"cpu"}}' \
	"$tmp/cpu.jsonl")" -eq 8 ]

# Raw NV12 (fused pre-processing on the QPUs), 5 of 8.
"$detect" -d emu -m "$tmp/det.qnn" -s 32x32 -n 5 "$tmp/v.nv12" >"$tmp/nv12.jsonl" 2>"$tmp/table"
check [ $? -eq 0 ]
check [ "$(wc -l <"$tmp/nv12.jsonl")" -eq 5 ]
check grep -q '^preprocess *qpu ' "$tmp/table"

# Images: the 16x16 one and the PGM are refused, in their lines.
"$detect" --cpu -q -m "$tmp/det.qnn" "$tmp/img" >"$tmp/img.jsonl"
check [ $? -eq 0 ]
check [ "$(wc -l <"$tmp/img.jsonl")" -eq 5 ]
check grep -q '"frame":2,.*"error":"refused: a 16x16 rgb24 frame, the pipeline takes 32x32 rgb24"' \
	"$tmp/img.jsonl"
check grep -q '"frame":4,.*"error":"refused: a 32x32 gray8 frame, the pipeline takes 32x32 rgb24"' \
	"$tmp/img.jsonl"
check [ "$(grep -c '"detections"' "$tmp/img.jsonl")" -eq 3 ]

# --bench: the table and the figures, nothing else.
"$detect" -d emu -m "$tmp/det.qnn" --bench "$tmp/v.y4m" >"$tmp/bench" 2>&1
check [ $? -eq 0 ]
check grep -q '^end to end ' "$tmp/bench"
check grep -q '"frames":{"submitted":8,"delivered":8,"failed":0,"refused":0}' "$tmp/bench"
check grep -q '"p99_ns":' "$tmp/bench"
check [ "$(grep -c '"frame":' "$tmp/bench")" -eq 0 ]

# Input errors: exit 1 with the reason.
"$detect" -d emu -m "$tmp/det.qnn" "$tmp/c422.y4m" >/dev/null 2>"$tmp/err"
check [ $? -eq 1 ]
check grep -q 'colour space C422: qpu-detect reads 4:2:0' "$tmp/err"
"$detect" --cpu -m "$tmp/det.qnn" "$tmp/missing.y4m" >/dev/null 2>"$tmp/err"
check [ $? -eq 1 ]
check grep -q 'No such file or directory' "$tmp/err"
"$detect" --cpu -m "$src/selftests/fuzz/corpus/nn/dw-pool-gemm.qnn" "$tmp/v.y4m" >/dev/null 2>"$tmp/err"
check [ $? -eq 1 ]
check grep -q 'is not float \[1, 3, H, W\]\|is not float \[1, 1\*(5+classes), GH, GW\]' "$tmp/err"
"$detect" --cpu -m "$tmp/det.qnn" "$tmp/out" >/dev/null 2>"$tmp/err"
check [ $? -eq 1 ]
check grep -q 'no .ppm or .pgm image' "$tmp/err"

# Option errors: exit 2.
for args in "" "$tmp/v.y4m" "-m $tmp/det.qnn" "-m $tmp/det.qnn $tmp/v.nv12" \
	"-m $tmp/det.qnn -s 33x32 $tmp/v.nv12" "-m $tmp/det.qnn -s 32 $tmp/v.nv12" \
	"-m $tmp/det.qnn -s 32x32 $tmp/v.y4m" "-m $tmp/det.qnn --score 2 $tmp/v.y4m" \
	"-m $tmp/det.qnn -n 0 $tmp/v.y4m" "-m $tmp/det.qnn --cpu -d emu $tmp/v.y4m" \
	"-m $tmp/det.qnn --bench -o $tmp/o2 $tmp/v.y4m" "-m $tmp/det.qnn -j 17 $tmp/v.y4m" \
	"-m $tmp/det.qnn --bogus $tmp/v.y4m" "-m $tmp/det.qnn $tmp/v.y4m $tmp/v.y4m"; do
	# shellcheck disable=SC2086
	"$detect" $args >/dev/null 2>"$tmp/err"
	check [ $? -eq 2 ]
	check grep -q "Try 'qpu-detect --help'" "$tmp/err"
done
"$detect" --help | grep -q '^usage: qpu-detect -m MODEL'
check [ $? -eq 0 ]

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
