# SPDX-License-Identifier: MIT
"""qpu.pipeline: its copy of <qpu_pipeline.h> against the header, the tiny
detector, and a Detector on the device under test and the CPU: every frame
back in order, a frame of another size refused in its result, the figures."""

import ctypes

import numpy as np
import pytest

from conftest import DEVICE
from test_abi import check_against_headers

onnx = pytest.importorskip("onnx")
import qpu.pipeline as pl  # noqa: E402 (after the skip)


STRUCTS = {"qpu_pipeline_frame": pl.Frame, "qpu_pipeline_box": pl.Box,
           "qpu_pipeline_input": pl.Input, "qpu_pipeline_config": pl.Config,
           "qpu_pipeline_stage": pl.Stage, "qpu_pipeline_preprocess": pl.Preprocess,
           "qpu_pipeline_detect": pl.Detect, "qpu_pipeline_stage_time": pl.StageTime}


@pytest.mark.host_only
def test_package_matches_the_header(tmp_path):
    pairs = [("QPU_PIPELINE_" + k.upper(), v) for k, v in pl.FORMATS.items()]
    pairs += [("QPU_PIPELINE_MAX_IN_FLIGHT", pl.MAX_IN_FLIGHT),
              ("QPU_PIPELINE_MAX_STAGES", pl.MAX_STAGES),
              ("offsetof(struct qpu_pipeline_detections, boxes)", 8)]
    for cname, cls in STRUCTS.items():
        pairs.append(("sizeof(struct %s)" % cname, ctypes.sizeof(cls)))
        pairs += [("offsetof(struct %s, %s)" % (cname, f), getattr(cls, f).offset)
                  for f, _ in cls._fields_]
    check_against_headers(tmp_path, ("qpu_pipeline.h",), pairs)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("model") / "det.onnx")
    onnx.save(pl.tiny_detector(32), path)
    return path


def grey(i):
    return np.concatenate([np.full(32 * 32, i, np.uint8), np.full(512, 128, np.uint8)])


@pytest.mark.parametrize("device", [DEVICE, "cpu"])
def test_detector(model, device):
    with pl.Detector(model, 32, 32, "i420", device=device, in_flight=2) as det:
        for i in range(6):
            det.push(grey(i * 40))
        det.push(np.zeros(16 * 16 * 3 // 2, np.uint8), width=16, height=16)
        res = det.finish()
        stats = det.stats()
    assert [r["frame"] for r in res] == list(range(7))
    assert all("detections" in r and r["recoveries"] == 0 for r in res[:6])
    # every stage's time and place, in order; none for the refused frame
    on = "cpu" if device == "cpu" else "qpu"
    assert all([s["on"] for s in r["stages"]] == [on] * 3 and
               all(s["ns"] > 0 for s in r["stages"]) for r in res[:6])
    assert res[6]["stages"] == []
    assert res[6]["error"] == "refused: a 16x16 i420 frame, the pipeline takes 32x32 i420"
    assert stats["frames"] == {"submitted": 7, "delivered": 7, "failed": 1, "refused": 1}
    assert [s["name"] for s in stats["stages"]] == ["preprocess", "infer", "detect"]
    # pre-processing's job and inference's first chained by its fence, no CPU wait
    assert [s["chained"] for s in stats["stages"]] == ([0, 0, 0] if device == "cpu" else [6, 6, 0])
    lat = stats["latency"]
    assert lat["count"] == 6 and lat["p50_ns"] <= lat["p90_ns"] <= lat["p99_ns"] <= lat["max_ns"]


def test_refusals(model):
    with pytest.raises(pl.PipelineError, match="33x32 is no i420 frame size"):
        pl.frame_bytes("i420", 33, 32)
    with pytest.raises(pl.PipelineError, match="31x32 is no nv12 frame size"):
        pl.Detector(model, 31, 32, "nv12", device="cpu")
    with pytest.raises(pl.PipelineError, match="not 2 \\* \\(5 \\+ classes\\)"):
        pl.Detector(model, 32, 32, device="cpu", anchors=2)
    with pytest.raises(ValueError, match="multiple of 4"):
        pl.tiny_detector(30)


def test_tiny_detector_command(tmp_path):
    out = str(tmp_path / "t.onnx")
    assert pl.main(["tiny-detector", out, "--size", "16", "--classes", "2"]) == 0
    m = onnx.load(out)
    dims = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
    assert dims == [1, 7, 4, 4]
