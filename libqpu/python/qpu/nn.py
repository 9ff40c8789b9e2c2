# SPDX-License-Identifier: MIT
"""Neural networks on the QPUs and the CPU (<qpu_nn.h>) from Python.

    import numpy as np, qpu.nn
    net = qpu.nn.load("mobilenet.onnx", device="emu")   # or "cpu", "/dev/qpu"
    (probs,) = net.run(image)                            # numpy in, numpy out
    for node in net.plan():                              # where each node ran, why
        print(node["name"], node["where"], node["why"])

ONNX files are read with Debian's python3-onnx and handed to libqpu as a
.qnn image (qpu.nn_convert); libqpu checks every node at load and refuses
what it cannot run (NnError names the node, its operator and what is
missing). `python3 -m qpu.nn convert model.onnx model.qnn` writes the
file C programs load with qpu_nn_load().
"""

import ctypes
import os
import sys

import numpy as np

from ._lib import lib, cstr, pystr
from .closable import Closable
from .device import Device
from .errors import Error

# --- <qpu_nn.h>: numbers, structs, prototypes (tests/test_nn.py checks them) ---

DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64}
LAYOUT_NCHW, LAYOUT_NHWC = 0, 1
BIND_CPU_ONLY, BIND_REFERENCE, BIND_QPU_ALL, BIND_NO_XNNPACK = 1 << 0, 1 << 1, 1 << 2, 1 << 3
BIND_QDQ_INT8 = 1 << 4
MAX_RANK = 6
WHERE_NAMES = {0: "none", 1: "cpu", 2: "cpu-ref", 3: "qpu", 4: "folded", 5: "fused", 6: "view"}


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("layout", ctypes.c_int),
                ("rank", ctypes.c_uint), ("dims", ctypes.c_int64 * MAX_RANK),
                ("quantized", ctypes.c_int), ("scale", ctypes.c_float),
                ("zero_point", ctypes.c_int32), ("bytes", ctypes.c_size_t),
                ("data", ctypes.c_void_p), ("bo", ctypes.c_void_p), ("offset", ctypes.c_size_t)]


class NodeInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("op", ctypes.c_char_p), ("where", ctypes.c_int),
                ("why", ctypes.c_char_p), ("fused", ctypes.c_char_p),
                ("macs", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("last_ns", ctypes.c_uint64), ("model_ns", ctypes.c_uint64),
                ("model_flops_pct", ctypes.c_double), ("model_bw_pct", ctypes.c_double)]


_vp, _int, _uint, _sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
_P = ctypes.POINTER
PROTOTYPES = {
    "qpu_nn_load_mem": (_vp, [ctypes.c_char_p, _sz, ctypes.c_char_p, _sz]),
    "qpu_nn_free": (None, [_vp]),
    "qpu_nn_bind": (_int, [_vp, _vp, _uint]),
    "qpu_nn_run": (_int, [_vp]),
    "qpu_nn_last_error": (ctypes.c_char_p, [_vp]),
    "qpu_nn_input_count": (_uint, [_vp]),
    "qpu_nn_output_count": (_uint, [_vp]),
    "qpu_nn_node_count": (_uint, [_vp]),
    "qpu_nn_input": (_int, [_vp, _uint, _P(TensorInfo)]),
    "qpu_nn_output": (_int, [_vp, _uint, _P(TensorInfo)]),
    "qpu_nn_set_input_layout": (_int, [_vp, _uint, _int]),
    "qpu_nn_set_output_layout": (_int, [_vp, _uint, _int]),
    "qpu_nn_node": (_int, [_vp, _uint, _P(NodeInfo)]),
    "qpu_nn_arena_bytes": (_sz, [_vp]),
}
for _name, (_res, _args) in PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


class NnError(Error, ValueError):
    """A model libqpu refuses, or a run that failed; the message says why."""


class Graph(Closable):
    """A loaded graph bound to a device (or the CPU): run() it on numpy arrays."""

    def __init__(self, image, device=None, cpu_only=False, reference=False, qpu_all=False,
                 no_xnnpack=False, qdq_int8=False, layouts=None):
        err = ctypes.create_string_buffer(512)
        self._g = lib.qpu_nn_load_mem(image, len(image), err, len(err))
        if not self._g:
            raise NnError(pystr(err.value) or os.strerror(ctypes.get_errno()))
        self._dev = None
        if device is None:
            device = os.environ.get("QPU_DEVICE") or "cpu"
        if isinstance(device, str) and device != "cpu":
            device = Device(device)
        if isinstance(device, Device):
            self._dev = device
            self._devh = device._h  # outlives the graph (freed first, in close())
        for i, lay in enumerate((layouts or {}).get("inputs", [])):
            if lay == "nhwc" and lib.qpu_nn_set_input_layout(self._g, i, LAYOUT_NHWC):
                raise NnError("input %d cannot be NHWC (4-D only)" % i)
        for i, lay in enumerate((layouts or {}).get("outputs", [])):
            if lay == "nhwc" and lib.qpu_nn_set_output_layout(self._g, i, LAYOUT_NHWC):
                raise NnError("output %d cannot be NHWC (4-D only)" % i)
        flags = (BIND_CPU_ONLY if cpu_only else 0) | (BIND_REFERENCE if reference else 0) | \
            (BIND_QPU_ALL if qpu_all else 0) | (BIND_NO_XNNPACK if no_xnnpack else 0) | \
            (BIND_QDQ_INT8 if qdq_int8 else 0)
        ret = lib.qpu_nn_bind(self._g, self._devh.check() if self._dev else None, flags)
        if ret:
            msg = pystr(lib.qpu_nn_last_error(self._g))
            self.close()
            raise NnError("bind: %s (%s)" % (msg, os.strerror(-ret)))
        self.inputs = [self._info(lib.qpu_nn_input, i)
                       for i in range(lib.qpu_nn_input_count(self._g))]
        self.outputs = [self._info(lib.qpu_nn_output, i)
                        for i in range(lib.qpu_nn_output_count(self._g))]
        self.arena_bytes = lib.qpu_nn_arena_bytes(self._g)

    def _info(self, fn, i):
        t = TensorInfo()
        if fn(self._g, i, ctypes.byref(t)):
            raise NnError("no tensor %d" % i)
        dims = tuple(t.dims[:t.rank])
        shape = dims
        if t.layout == LAYOUT_NHWC:
            shape = (dims[0], dims[2], dims[3], dims[1])
        dtype = np.dtype(DTYPES[t.dtype])
        view = np.ctypeslib.as_array((ctypes.c_uint8 * t.bytes).from_address(t.data)) \
            if t.bytes else np.zeros(0, np.uint8)
        return {"name": pystr(t.name), "dtype": dtype, "shape": shape,
                "layout": "nhwc" if t.layout == LAYOUT_NHWC else "nchw",
                "quantization": (t.scale, t.zero_point) if t.quantized else None,
                "array": view.view(dtype).reshape(shape)}

    def _check(self):
        if not self._g:
            raise NnError("the graph is closed")

    def run(self, *args, **kwargs):
        """Runs the graph on inputs given in order or by name; returns the
        outputs as new numpy arrays, in order."""
        self._check()
        given = dict(zip((i["name"] for i in self.inputs), args))
        given.update(kwargs)
        for inp in self.inputs:
            if inp["name"] not in given:
                raise NnError("input %r is missing" % inp["name"])
            x = np.asarray(given.pop(inp["name"]))
            if x.shape != inp["shape"]:
                raise NnError("input %r has shape %s, the model wants %s"
                              % (inp["name"], x.shape, inp["shape"]))
            inp["array"][...] = x.astype(inp["dtype"], copy=False)
        if given:
            raise NnError("the model has no input %s" % ", ".join(map(repr, given)))
        if lib.qpu_nn_run(self._g):
            raise NnError(pystr(lib.qpu_nn_last_error(self._g)))
        return [o["array"].copy() for o in self.outputs]

    def plan(self):
        """Each node: name, op, where it runs, why, the fused activation,
        multiply-adds, bytes, and the last run's time (measured, and modelled
        on the device's board)."""
        self._check()
        out = []
        for i in range(lib.qpu_nn_node_count(self._g)):
            n = NodeInfo()
            lib.qpu_nn_node(self._g, i, ctypes.byref(n))
            out.append({"name": pystr(n.name), "op": pystr(n.op),
                        "where": WHERE_NAMES.get(n.where, "none"), "why": pystr(n.why),
                        "fused": pystr(n.fused), "macs": n.macs, "bytes": n.bytes,
                        "last_ns": n.last_ns, "model_ns": n.model_ns,
                        "model_flops_pct": n.model_flops_pct,
                        "model_bw_pct": n.model_bw_pct})
        return out

    def close(self):
        if self._g:
            for t in getattr(self, "inputs", []) + getattr(self, "outputs", []):
                t["array"] = None
            lib.qpu_nn_free(self._g)
            self._g = None


def load(model, device=None, shapes=None, **options):
    """Loads an ONNX model (path, bytes or onnx.ModelProto) or a .qnn file
    (path ending in .qnn) on `device`: "cpu" for the CPU alone, "emu",
    "/dev/qpu" or a qpu.Device; None: $QPU_DEVICE, else the CPU. Options: cpu_only, reference,
    qpu_all, no_xnnpack, qdq_int8 (the bind flags), layouts={"inputs": ["nhwc"]}.

    QDQ models (quantize_static's DequantizeLinear -> Conv/Gemm/MatMul/Add
    -> QuantizeLinear, with Relu or Clip between) run by default literally,
    in float (faster on every board today). qdq_int8=True (or
    $QPU_NN_QDQ=int8) runs them as the integer operators ONNX Runtime fuses
    them into (QLinearConv, QLinearMatMul, QLinearAdd; on the QPUs where
    placed): the result equals ONNX's QLinearConv on the same integers
    exactly, and the literal float graph within one quantization step (its
    float rounding is not ONNX's to fix). The plan says, for each node,
    which it did and why."""
    if isinstance(model, (str, os.PathLike)) and os.fspath(model).endswith(".qnn"):
        with open(model, "rb") as f:
            image = f.read()
    else:
        from .nn_convert import to_qnn
        image = to_qnn(model, shapes)
    return Graph(image, device, **options)


def main(argv=None):
    """python3 -m qpu.nn convert IN.onnx OUT.qnn [--shape NAME=1,3,224,224]..."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 3 or argv[0] != "convert":
        sys.stderr.write("usage: python3 -m qpu.nn convert IN.onnx OUT.qnn "
                         "[--shape NAME=D,D,...]...\n")
        return 2
    shapes = {}
    rest = argv[3:]
    while rest:
        if rest[0] != "--shape" or len(rest) < 2 or "=" not in rest[1]:
            sys.stderr.write("qpu.nn convert: bad option %r\n" % rest[0])
            return 2
        name, dims = rest[1].split("=", 1)
        try:
            shapes[name] = tuple(int(d) for d in dims.split(","))
        except ValueError:
            sys.stderr.write("qpu.nn convert: bad shape %r\n" % dims)
            return 2
        rest = rest[2:]
    from .nn_convert import ConvertError, to_qnn
    try:
        image = to_qnn(argv[1], shapes)
    except (ConvertError, OSError) as e:
        sys.stderr.write("qpu.nn convert: %s\n" % e)
        return 1
    # the library's checks now, so that a model it refuses is not written
    err = ctypes.create_string_buffer(512)
    g = lib.qpu_nn_load_mem(image, len(image), err, len(err))
    if not g:
        sys.stderr.write("qpu.nn convert: %s: %s\n" % (argv[1], pystr(err.value)))
        return 1
    lib.qpu_nn_free(g)
    with open(argv[2], "wb") as f:
        f.write(image)
    return 0


if __name__ == "__main__":
    sys.exit(main())
