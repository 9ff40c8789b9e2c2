# SPDX-License-Identifier: MIT
"""Post-processing (<qpu_kernels.h>'s "DOC: post-processing") from Python:
nms() on the QPUs of the test device and of the emulated Pi 4 and Pi 5
against the CPU path and a numpy reference, the decoders against
hand-computed boxes, ccl() against known labels, and the refusals."""

import numpy as np
import pytest

import qpu
from conftest import DEVICE


# the test device, and the emulated V3D devices of a Pi 4 and a Pi 5
GENERATIONS = [DEVICE, "emu:v3d42", "emu:v3d71"]
rng = np.random.default_rng(38)


def random_dets(n, classes):
    d = np.zeros(n, qpu.DETECTION)
    c = rng.uniform(20, 300, (n // 6 + 1, 2))[rng.integers(0, n // 6 + 1, n)]
    c += rng.uniform(-8, 8, (n, 2))
    wh = rng.uniform(8, 60, (n, 2))
    d["x1"], d["y1"] = c[:, 0] - wh[:, 0] / 2, c[:, 1] - wh[:, 1] / 2
    d["x2"], d["y2"] = c[:, 0] + wh[:, 0] / 2, c[:, 1] + wh[:, 1] / 2
    d["score"] = rng.integers(0, 40, n) / 40
    d["class_id"] = rng.integers(0, classes, n)
    d["index"] = np.arange(n)
    return d


def numpy_nms(d, t, scale):
    """The rule of "DOC: NMS arithmetic", written again with numpy."""
    k = int(np.rint(np.float32(t) * 256))
    q = {f: np.clip(np.rint(d[f].astype(np.float32) * np.float32(scale)), 0, 2047).astype(np.int64)
         for f in ("x1", "y1", "x2", "y2")}
    q["x2"], q["y2"] = np.maximum(q["x2"], q["x1"]), np.maximum(q["y2"], q["y1"])
    area = (q["x2"] - q["x1"]) * (q["y2"] - q["y1"])
    order = sorted(range(len(d)), key=lambda i: (-d["score"][i], i))
    kept = []
    for i in order:
        ok = True
        for j in kept:
            if d["class_id"][j] != d["class_id"][i]:
                continue
            w = min(q["x2"][i], q["x2"][j]) - max(q["x1"][i], q["x1"][j])
            h = min(q["y2"][i], q["y2"][j]) - max(q["y1"][i], q["y1"][j])
            if w > 0 and h > 0 and (256 + k) * w * h > k * (area[i] + area[j]):
                ok = False
                break
        if ok:
            kept.append(i)
    return kept


@pytest.mark.parametrize("path", GENERATIONS)
def test_nms_matches(path):
    with qpu.Device(path) as dev:
        nms_matches(dev)


def nms_matches(dev):
    for n, classes, t in ((0, 1, 0.5), (1, 1, 0.5), (150, 1, 0.45), (150, 7, 0.3), (64, 99, 0)):
        d = random_dets(n, classes)
        want = numpy_nms(d, t, 4.0)
        got = dev.kernels.nms(d, iou_threshold=t, scale=4.0)
        assert got.dtype == np.uint32 and list(got) == want
        assert list(dev.kernels.nms(d, iou_threshold=t, scale=4.0, cpu=True)) == want
        if n:
            assert dev.kernels.last_stats["qpus"] >= 1
    d = random_dets(40, 1)
    assert list(dev.kernels.nms(d, 1.0, max_out=5, qpus=1)) == numpy_nms(d, 1.0, 1.0)[:5]


def test_nms_refusals(dev):
    """On the test device (conftest's dev)."""
    d = random_dets(4, 1)
    with pytest.raises(qpu.KernelError, match="not in \\[0, 1\\]"):
        dev.kernels.nms(d, iou_threshold=2)
    d["score"][2] = np.nan
    with pytest.raises(qpu.KernelError, match="detection 2: NaN") as e:
        dev.kernels.nms(d, cpu=True)
    assert e.value.errno == 22


def test_decode_ssd():
    with qpu.Device(DEVICE) as dev:
        out = dev.kernels.decode_ssd(loc=[[0, 0, 0, 0], [1, -2, 5 * np.log(2), 0]],
                                     scores=[[0.9, 0.6, 0.2], [0.1, np.nan, 0.7]],
                                     anchors=[[0.5, 0.5, 0.2, 0.4], [0.25, 0.75, 0.5, 0.5]],
                                     width=200, height=100)
        assert out.dtype == qpu.DETECTION and len(out) == 2
        assert np.allclose([out["x1"][0], out["y1"][0], out["x2"][0], out["y2"][0]],
                           [60, 40, 140, 60])
        assert list(out["class_id"]) == [1, 2] and list(out["index"]) == [0, 1]
        # more detections than the first guess of room: all of them
        many = dev.kernels.decode_ssd(np.zeros((300, 4)), np.full((300, 3), 0.9),
                                      np.tile([0.5, 0.5, 0.1, 0.1], (300, 1)))
        assert len(many) == 600
        with pytest.raises(ValueError):
            dev.kernels.decode_ssd(np.zeros((2, 4)), np.zeros((2, 2)), np.zeros((3, 4)))


def test_decode_yolo():
    with qpu.Device(DEVICE) as dev:
        head = np.zeros((7, 1, 2), np.float32)
        head[4, 0, 1] = -20
        head[6, 0, 0] = -20
        head[5, 0, 0] = 20
        out = dev.kernels.decode_yolo(head, [[10, 20]], stride=8, score_threshold=0.2)
        assert len(out) == 1 and out["class_id"][0] == 0
        assert np.allclose([out["x1"][0], out["y1"][0], out["x2"][0], out["y2"][0]],
                           [-1, -6, 9, 14])
        with pytest.raises(ValueError):
            dev.kernels.decode_yolo(np.zeros((7, 2, 2)), [[1, 1], [2, 2]], 8)


def test_ccl():
    with qpu.Device(DEVICE) as dev:
        m = np.array([[9, 0, 9, 0, 0], [9, 0, 9, 0, 9], [9, 9, 9, 9, 0]], np.uint8)
        labels, n = dev.kernels.ccl(m, connectivity=4)
        assert n == 2 and labels[1, 4] == 2 and labels[0, 0] == 1 and labels[0, 1] == 0
        assert dev.kernels.ccl(m, connectivity=8)[1] == 1
        assert dev.kernels.ccl(np.zeros((4, 8), np.uint8)[:, ::2])[1] == 0  # a strided view
        with pytest.raises(qpu.KernelError, match="connectivity 6"):
            dev.kernels.ccl(m, connectivity=6)
