# SPDX-License-Identifier: MIT
"""Camera pipelines (<qpu_pipeline.h>) from Python: frames through
pre-processing, an ONNX detector and NMS, each stage on the QPUs or the
CPU, several frames in flight, recovery of failed jobs on the CPU.

    import qpu.pipeline
    with qpu.pipeline.Detector("det.onnx", 640, 480, device="emu") as det:
        for frame in frames:            # I420 bytes (or numpy), 640x480
            det.push(frame)
        for r in det.finish():          # one dict per frame, in order
            print(r["frame"], r["detections"])
        print(det.stats()["latency"]["p99_ns"])

`python3 -m qpu.pipeline tiny-detector OUT.onnx [--size S]` writes the
tiny ONNX detector the tests and examples use (python3-onnx), generated
with seeded random weights: a YOLO-shaped head that Detector decodes.
"""

import ctypes
import json
import os
import sys
import tempfile

import numpy as np

from ._lib import lib, pystr
from .closable import Closable
from .device import Device
from .errors import Error

# --- <qpu_pipeline.h>: numbers, structs, prototypes ---------------------------

FORMATS = {"i420": 1, "nv12": 2, "rgb24": 3, "gray8": 4, "yuyv": 5}
PLACES = {0: None, 1: "qpu", 2: "cpu"}
MAX_IN_FLIGHT = 16
MAX_STAGES = 8


class StageTime(ctypes.Structure):
    _fields_ = [("start_ns", ctypes.c_uint64), ("end_ns", ctypes.c_uint64),
                ("model_ns", ctypes.c_uint64), ("place", ctypes.c_int),
                ("recovered", ctypes.c_uint), ("timeout_ms", ctypes.c_uint)]


class Frame(ctypes.Structure):
    _fields_ = [("index", ctypes.c_uint64), ("format", ctypes.c_int),
                ("width", ctypes.c_uint), ("height", ctypes.c_uint),
                ("user", ctypes.c_void_p), ("status", ctypes.c_int),
                ("error", ctypes.c_char_p), ("data", ctypes.c_void_p),
                ("bytes", ctypes.c_size_t), ("latency_ns", ctypes.c_uint64),
                ("model_ns", ctypes.c_uint64), ("recoveries", ctypes.c_uint),
                ("frame_data", ctypes.c_void_p), ("bo", ctypes.c_void_p),
                ("offset", ctypes.c_size_t * 3), ("stride", ctypes.c_size_t * 3),
                ("stage_count", ctypes.c_uint), ("stages", StageTime * MAX_STAGES)]


class Box(ctypes.Structure):
    _fields_ = [("x0", ctypes.c_float), ("y0", ctypes.c_float), ("x1", ctypes.c_float),
                ("y1", ctypes.c_float), ("score", ctypes.c_float), ("label", ctypes.c_int32)]


class Input(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("bytes", ctypes.c_size_t), ("bo", ctypes.c_void_p)]


SINK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(Frame))


class Config(ctypes.Structure):
    _fields_ = [("dev", ctypes.c_void_p), ("format", ctypes.c_int),
                ("width", ctypes.c_uint), ("height", ctypes.c_uint),
                ("in_flight", ctypes.c_uint), ("stats_window", ctypes.c_uint),
                ("telemetry_ms", ctypes.c_uint), ("telemetry", ctypes.c_void_p),
                ("telemetry_ctx", ctypes.c_void_p), ("sink", SINK),
                ("sink_ctx", ctypes.c_void_p), ("warn", ctypes.c_void_p),
                ("warn_ctx", ctypes.c_void_p)]


class Stage(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("place", ctypes.c_int), ("can", ctypes.c_uint),
                ("why", ctypes.c_char_p), ("in_bytes", ctypes.c_size_t),
                ("out_bytes", ctypes.c_size_t), ("run", ctypes.c_void_p),
                ("fini", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class Preprocess(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("width", ctypes.c_uint), ("height", ctypes.c_uint),
                ("out_width", ctypes.c_uint), ("out_height", ctypes.c_uint),
                ("mean", ctypes.c_float * 3), ("std", ctypes.c_float * 3)]


class Detect(ctypes.Structure):
    _fields_ = [("grid_w", ctypes.c_uint), ("grid_h", ctypes.c_uint), ("anchors", ctypes.c_uint),
                ("classes", ctypes.c_uint), ("score_threshold", ctypes.c_float),
                ("iou_threshold", ctypes.c_float), ("max_boxes", ctypes.c_uint)]


_vp, _int, _uint, _sz, _P = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, \
    ctypes.POINTER
PROTOTYPES = {
    "qpu_pipeline_new": (_vp, [_P(Config)]),
    "qpu_pipeline_add_stage": (_int, [_vp, _P(Stage)]),
    "qpu_pipeline_start": (_int, [_vp]),
    "qpu_pipeline_acquire": (_int, [_vp, _int, _P(Input)]),
    "qpu_pipeline_submit": (_int, [_vp, _int, _uint, _uint, _vp]),
    "qpu_pipeline_finish": (_int, [_vp]),
    "qpu_pipeline_free": (None, [_vp]),
    "qpu_pipeline_last_error": (ctypes.c_char_p, [_vp]),
    "qpu_pipeline_stats_json": (_int, [_vp, ctypes.c_char_p, _sz]),
    "qpu_pipeline_stage_preprocess": (_int, [_vp, _P(Preprocess), _P(Stage), ctypes.c_char_p,
                                             _sz]),
    "qpu_pipeline_stage_infer": (_int, [_vp, ctypes.c_char_p, _sz, _uint, _P(Stage),
                                        ctypes.c_char_p, _sz]),
    "qpu_pipeline_stage_detect": (_int, [_P(Detect), _P(Stage), ctypes.c_char_p, _sz]),
    "qpu_pipeline_frame_bytes": (_sz, [_int, _uint, _uint]),
}
for _name, (_res, _args) in PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


class PipelineError(Error, ValueError):
    """A pipeline or stage libqpu refuses; the message says why."""


def frame_bytes(fmt, width, height):
    """Bytes of a packed frame, or PipelineError for a size a pipeline refuses."""
    n = lib.qpu_pipeline_frame_bytes(FORMATS.get(fmt, 0), width, height)
    if not n:
        raise PipelineError("%dx%d is no %s frame size" % (width, height, fmt))
    return n


def _model_shapes(qnn, anchors):
    """(input width, height, grid w, grid h, classes) of a detector .qnn."""
    from . import nn
    g = nn.load(qnn, device="cpu")
    try:
        (i,), (o,) = g.inputs, g.outputs
        _, _, h, w = i["shape"]
        _, ch, gh, gw = o["shape"]
    finally:
        g.close()
    if ch % anchors or ch // anchors < 5:
        raise PipelineError("output has %d channels, not %d * (5 + classes)" % (ch, anchors))
    return w, h, gw, gh, ch // anchors - 5


class Detector(Closable):
    """Pre-processing, `model` (.onnx or .qnn) and NMS on frames of
    `width` x `height` in `fmt` ("i420", "nv12", "rgb24", "gray8").
    `device`: "cpu", "emu", "/dev/qpu", a qpu.Device, or None for
    $QPU_DEVICE (else the CPU)."""

    def __init__(self, model, width, height, fmt="i420", device=None, anchors=1, score=0.5,
                 iou=0.45, in_flight=3, max_boxes=100):
        self._pl = None
        self._tmp = None
        self._dev = None    # close() runs even when a check below refuses
        self.results = []
        self._fmt, self._w, self._h = fmt, width, height
        self._bytes = frame_bytes(fmt, width, height)
        if device is None:
            device = os.environ.get("QPU_DEVICE") or "cpu"
        self._dev = Device(device) if isinstance(device, str) and device != "cpu" else \
            (device if isinstance(device, Device) else None)
        devh = self._dev._h.check() if self._dev else None
        qnn = os.fspath(model)
        if not qnn.endswith(".qnn"):
            from .nn_convert import to_qnn
            self._tmp = tempfile.NamedTemporaryFile(suffix=".qnn")
            self._tmp.write(to_qnn(qnn))
            self._tmp.flush()
            qnn = self._tmp.name
        iw, ih, gw, gh, classes = _model_shapes(qnn, anchors)
        self._sink = SINK(self._on_frame)
        cfg = Config(dev=devh, format=FORMATS[fmt], width=width, height=height,
                     in_flight=in_flight, sink=self._sink)
        self._pl = lib.qpu_pipeline_new(ctypes.byref(cfg))
        if not self._pl:
            raise PipelineError(pystr(lib.qpu_last_error()))
        err = ctypes.create_string_buffer(512)
        st = Stage()
        pre = Preprocess(format=FORMATS[fmt], width=width, height=height, out_width=iw,
                         out_height=ih, std=(ctypes.c_float * 3)(1, 1, 1))
        self._add(lib.qpu_pipeline_stage_preprocess(devh, ctypes.byref(pre), ctypes.byref(st),
                                                    err, len(err)), st, err)
        self._add(lib.qpu_pipeline_stage_infer(devh, qnn.encode(), iw * ih * 12, 0,
                                               ctypes.byref(st), err, len(err)), st, err)
        det = Detect(grid_w=gw, grid_h=gh, anchors=anchors, classes=classes,
                     score_threshold=score, iou_threshold=iou, max_boxes=max_boxes)
        self._add(lib.qpu_pipeline_stage_detect(ctypes.byref(det), ctypes.byref(st), err,
                                                len(err)), st, err)
        if lib.qpu_pipeline_start(self._pl):
            raise PipelineError(pystr(lib.qpu_pipeline_last_error(self._pl)))

    def _add(self, ret, st, err):
        if ret:
            raise PipelineError(pystr(err.value) or os.strerror(-ret))
        if lib.qpu_pipeline_add_stage(self._pl, ctypes.byref(st)):
            raise PipelineError(pystr(lib.qpu_pipeline_last_error(self._pl)))

    def _on_frame(self, _ctx, fp):
        f = fp.contents
        r = {"frame": f.index, "latency_ns": f.latency_ns, "model_ns": f.model_ns,
             "recoveries": f.recoveries,
             # each stage that ran the frame: its time, where, modelled time
             "stages": [{"ns": t.end_ns - t.start_ns, "on": PLACES[t.place],
                         "model_ns": t.model_ns, "recovered": bool(t.recovered)}
                        for t in f.stages[:f.stage_count] if PLACES.get(t.place)]}
        if f.status:
            r["error"] = pystr(f.error)
        else:
            count = ctypes.c_uint32.from_address(f.data).value
            boxes = (Box * count).from_address(f.data + 8)
            r["detections"] = [{"label": b.label, "score": b.score,
                                "box": (b.x0 * f.width, b.y0 * f.height, b.x1 * f.width,
                                        b.y1 * f.height)} for b in boxes]
        self.results.append(r)

    def push(self, frame, fmt=None, width=None, height=None):
        """Sends one frame (bytes or a numpy array of the configured size;
        another format or size is refused in its result); waits only for a
        free slot."""
        inp = Input()
        if lib.qpu_pipeline_acquire(self._pl, -1, ctypes.byref(inp)):
            raise PipelineError(pystr(lib.qpu_pipeline_last_error(self._pl)))
        data = np.frombuffer(bytes(frame) if not isinstance(frame, np.ndarray) else
                             frame.tobytes(), np.uint8)
        n = min(len(data), self._bytes)
        ctypes.memmove(inp.data, data.ctypes.data, n)
        lib.qpu_pipeline_submit(self._pl, FORMATS[fmt or self._fmt], width or self._w,
                                height or self._h, None)

    def finish(self):
        """Waits for every frame; returns the results, one dict per frame."""
        lib.qpu_pipeline_finish(self._pl)
        return self.results

    def stats(self):
        """Every figure (qpu_pipeline_stats_json()) as a dict."""
        buf = ctypes.create_string_buffer(16384)
        lib.qpu_pipeline_stats_json(self._pl, buf, len(buf))
        return json.loads(buf.value.decode())

    def close(self):
        if self._pl:
            lib.qpu_pipeline_free(self._pl)
            self._pl = None
        if self._dev is not None:
            self._dev.close()
            self._dev = None
        if self._tmp is not None:
            self._tmp.close()
            self._tmp = None


def tiny_detector(size=32, anchors=1, classes=3, seed=1):
    """A tiny ONNX detector (onnx.ModelProto) with seeded random weights:
    image [1, 3, S, S] -> Conv 3x3/2 (8) + Relu -> Conv 3x3/2 (16) + Relu
    -> Conv 1x1 (A * (5 + C)) -> Sigmoid -> head [1, A*(5+C), S/4, S/4].
    Per anchor the head has x, y in the cell, w, h of the image, objectness
    and the classes; the objectness bias makes a few cells pass 0.5."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if size < 4 or size % 4:
        raise ValueError("size must be a multiple of 4")
    rng = np.random.RandomState(seed)
    out_ch = anchors * (5 + classes)

    def conv_w(m, c, k):
        return (rng.standard_normal((m, c, k, k)) * np.sqrt(2.0 / (c * k * k))).astype(np.float32)

    bias3 = np.zeros(out_ch, np.float32)
    for a in range(anchors):
        base = a * (5 + classes)
        bias3[base + 2:base + 4] = -1.0    # boxes about a quarter of the image
        bias3[base + 4] = -0.5             # objectness: some cells pass 0.5
    inits = [numpy_helper.from_array(conv_w(8, 3, 3), "w1"),
             numpy_helper.from_array(np.zeros(8, np.float32), "b1"),
             numpy_helper.from_array(conv_w(16, 8, 3), "w2"),
             numpy_helper.from_array(np.zeros(16, np.float32), "b2"),
             numpy_helper.from_array(conv_w(out_ch, 16, 1), "w3"),
             numpy_helper.from_array(bias3, "b3")]
    conv = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    nodes = [helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", **conv),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", **conv),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="head_conv",
                              kernel_shape=[1, 1]),
             helper.make_node("Sigmoid", ["c3"], ["head"], name="head_sigmoid")]
    graph = helper.make_graph(
        nodes, "tiny_detector",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("head", TensorProto.FLOAT,
                                       [1, out_ch, size // 4, size // 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="qpu.pipeline.tiny_detector")
    onnx.checker.check_model(model)
    return model


def main(argv):
    """python3 -m qpu.pipeline tiny-detector OUT.onnx [--size S] [--anchors A] [--classes C]"""
    import argparse
    p = argparse.ArgumentParser(prog="python3 -m qpu.pipeline",
                                description="Write the tiny ONNX detector (YOLO-shaped head).")
    p.add_argument("command", choices=["tiny-detector"])
    p.add_argument("out", help="the .onnx file to write")
    p.add_argument("--size", type=int, default=32, help="input side, a multiple of 4 (32)")
    p.add_argument("--anchors", type=int, default=1, help="boxes per cell (1)")
    p.add_argument("--classes", type=int, default=3, help="classes (3)")
    p.add_argument("--seed", type=int, default=1, help="the weights' seed (1)")
    a = p.parse_args(argv)
    try:
        model = tiny_detector(a.size, a.anchors, a.classes, a.seed)
    except ValueError as e:
        p.error(str(e))
    import onnx
    onnx.save(model, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
