#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Object detection through a pipeline (what qpu-detect does): I420 frames
of a Y4M video (or, without one, moving squares) through pre-processing, an
ONNX detector (default: the tiny test detector, generated) and NMS; prints
each frame's boxes and the latency percentiles.

usage: detect.py [-d DEVICE] [-m MODEL.onnx] [VIDEO.y4m]
"""

import argparse, os, tempfile
import numpy as np
import onnx
import qpu.pipeline


def frames(path, w=32, h=32):
    """(width, height, I420 frames) of a Y4M file, or 16 synthetic ones."""
    if not path:
        ys = [np.pad(np.full((8, 8), 230, np.uint8), ((i, 24 - i), (8, 16))) for i in range(16)]
        return w, h, [np.concatenate([y.ravel(), np.full(w * h // 2, 128, np.uint8)]) for y in ys]
    data = open(path, "rb").read()
    head, _, body = data.partition(b"\n")
    w, h = (int(t[1:]) for t in head.split() if t[:1] in (b"W", b"H"))
    size = w * h * 3 // 2
    return w, h, [f.split(b"\n", 1)[1][:size] for f in body.split(b"FRAME")[1:]]


def main():
    p = argparse.ArgumentParser(description="Detections on the QPUs, frame by frame.")
    p.add_argument("-d", "--device", help="/dev/qpu, emu, cpu (default $QPU_DEVICE, else the CPU)")
    p.add_argument("-m", "--model", help="an ONNX detector (default: the tiny test one)")
    p.add_argument("video", nargs="?", help="a 4:2:0 Y4M file (default: synthetic frames)")
    a = p.parse_args()
    w, h, video = frames(a.video)
    with tempfile.TemporaryDirectory() as tmp:
        model = a.model or os.path.join(tmp, "det.onnx")
        if not a.model:
            onnx.save(qpu.pipeline.tiny_detector(32), model)
        with qpu.pipeline.Detector(model, w, h, "i420", device=a.device) as det:
            for f in video:
                det.push(f)
            for r in det.finish():
                print(r["frame"], [(d["label"], round(d["score"], 2)) for d in r["detections"]])
            lat = det.stats()["latency"]
    assert len(det.results) == len(video)
    print("p50 %.2f ms, p99 %.2f ms, jitter %.2f ms" %
          (lat["p50_ns"] / 1e6, lat["p99_ns"] / 1e6, lat["jitter_ns"] / 1e6))
    print("detect.py: ok")


if __name__ == "__main__":
    main()
