# SPDX-License-Identifier: MIT
"""qpu.nn: every operator against numpy references written from the ONNX
specification (nn_reference.py), on the CPU's fast path, its reference and
the QPUs of the device under test; edge shapes; small whole models built
with onnx.helper; every refusal; the converter and the .qnn file."""

import os
import subprocess
import sys
import zlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import qpu.nn  # noqa: E402
from qpu import nn_convert  # noqa: E402
import nn_reference as ref  # noqa: E402
from conftest import DEVICE  # noqa: E402

rng = np.random.default_rng(37)


@pytest.fixture(autouse=True)
def _seeded_per_test(request):
    """Each test's random data from its own name: the same whether it runs
    alone (-k) or after others, so a case that passes in the suite passes
    alone too."""
    rng.bit_generator.state = np.random.default_rng(
        zlib.crc32(request.node.name.encode())).bit_generator.state
F = TensorProto.FLOAT
NP2ONNX = {np.dtype(np.float32): F, np.dtype(np.uint8): TensorProto.UINT8,
           np.dtype(np.int8): TensorProto.INT8, np.dtype(np.int32): TensorProto.INT32,
           np.dtype(np.int64): TensorProto.INT64}


def make_model(nodes, inputs, outputs, inits=None, opset=13, ms=False):
    """inputs: {name: array} (their shapes and types); outputs: names;
    inits: {name: array} constants."""
    g = helper.make_graph(
        nodes, "t",
        [helper.make_tensor_value_info(n, NP2ONNX[a.dtype], a.shape) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, F, None) for n in outputs],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (inits or {}).items()])
    ops = [helper.make_opsetid("", opset)]
    if ms:
        ops.append(helper.make_opsetid("com.microsoft", 1))
    return helper.make_model(g, opset_imports=ops)


# the CPU's fast path (through XNNPACK where the machine has it), the same
# with libqpu's own code, its portable reference, and the QPUs
BACKENDS = [("cpu", {}), ("cpu-own", {"no_xnnpack": True}), ("ref", {"reference": True}),
            ("qpu", {"qpu_all": True})]


def run_all(model, feeds, exact=False, rtol=1e-4, atol=1e-5, backends=BACKENDS):
    want = ref.run(model, feeds)
    for name, opts in backends:
        dev = DEVICE if name == "qpu" else "cpu"
        with qpu.nn.load(model, device=dev, **opts) as net:
            got = net.run(**feeds)
        for g, w in zip(got, want):
            assert g.shape == w.shape, name
            if exact:
                assert g.dtype == w.dtype, name
                np.testing.assert_array_equal(g, w, err_msg=name)
            else:
                scale = max(float(np.abs(w).max()), 1.0) if w.size else 1.0
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale, err_msg=name)
    return want


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


# --- float operators ---------------------------------------------------------------

CONV_CASES = [
    # (N, C, H, W), (M, k), attrs
    ((1, 3, 8, 8), (4, 3), {"pads": [1, 1, 1, 1]}),
    ((2, 5, 7, 9), (6, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ((1, 1, 1, 1), (3, 1), {}),
    ((1, 7, 5, 5), (7, 3), {"pads": [1, 1, 1, 1], "group": 7}),   # depthwise, odd
    ((1, 8, 9, 9), (8, 3), {"pads": [0, 1, 1, 0], "strides": [2, 2], "group": 8}),
    ((1, 6, 6, 6), (4, 3), {"group": 2, "auto_pad": "SAME_UPPER"}),
    ((1, 4, 7, 7), (5, 3), {"auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    ((1, 4, 7, 6), (5, 2), {"auto_pad": "VALID", "strides": [1, 2]}),
    ((1, 16, 12, 12), (32, 1), {}),                              # 1x1 on the QPUs
    ((1, 3, 16, 16), (32, 3), {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
]


@pytest.mark.parametrize("xs,mk,attrs", CONV_CASES)
def test_conv(xs, mk, attrs):
    m, k = mk
    g = attrs.get("group", 1)
    w = f32(m, xs[1] // g, k, k)
    b = f32(m)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)
    run_all(make_model([node], {"x": f32(*xs)}, ["y"], {"w": w, "b": b}), {"x": f32(*xs)})


@pytest.mark.parametrize("act,attrs,extra", [
    ("Relu", {}, {}), ("LeakyRelu", {"alpha": 0.2}, {}), ("HardSwish", {}, {}),
    ("Sigmoid", {}, {}), ("Clip", {}, {"lo": np.float32(0), "hi": np.float32(6)})])
def test_conv_fused_activation(act, attrs, extra):
    x = f32(1, 8, 10, 10, lo=-4, hi=4)
    inits = {"w": f32(16, 8, 3, 3), "b": f32(16)}
    ins = ["c"] + (["lo", "hi"] if extra else [])
    inits.update(extra)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node(act, ins, ["y"], **attrs)]
    model = make_model(nodes, {"x": x}, ["y"], inits)
    run_all(model, {"x": x})
    with qpu.nn.load(model) as net:
        plan = net.plan()
    assert plan[0]["fused"] == act and plan[1]["where"] == "fused"


@pytest.mark.parametrize("ta,tb,c_shape", [(0, 0, (5,)), (0, 1, (3, 5)), (1, 0, None),
                                          (1, 1, (1,)), (0, 1, (3, 1))])
def test_gemm(ta, tb, c_shape):
    a = f32(*((7, 3) if ta else (3, 7)))
    b = f32(*((5, 7) if tb else (7, 5)))
    inits = {"b": b}
    ins = ["a", "b"]
    if c_shape:
        inits["c"] = f32(*c_shape)
        ins.append("c")
    node = helper.make_node("Gemm", ins, ["y"], transA=ta, transB=tb, alpha=0.5, beta=2.0)
    run_all(make_model([node], {"a": a}, ["y"], inits), {"a": a})


def test_gemm_large_on_qpus():
    a = f32(4, 300)
    model = make_model([helper.make_node("Gemm", ["a", "b", "c"], ["y"], transB=1)],
                       {"a": a}, ["y"], {"b": f32(100, 300), "c": f32(100)})
    run_all(model, {"a": a})
    with qpu.nn.load(model, device=DEVICE, qpu_all=True) as net:
        net.run(a)
        assert net.plan()[0]["where"] == "qpu"


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 6)),
                                  ((2, 1, 3, 4), (5, 4, 2)), ((64, 128), (128, 32))])
def test_matmul(sa, sb):
    a = f32(*sa)
    run_all(make_model([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": a}, ["y"],
                       {"b": f32(*sb)}), {"a": a})


@pytest.mark.parametrize("op,attrs,shape", [
    ("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2]}, (1, 3, 8, 8)),
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, (2, 2, 7, 7)),
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, (1, 2, 8, 8)),
    ("MaxPool", {"kernel_shape": [1, 1]}, (1, 1, 1, 1)),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1]},
     (1, 3, 5, 5)),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
                     "count_include_pad": 1}, (1, 3, 6, 6)),
    ("AveragePool", {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}, (1, 2, 5, 5)),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"},
     (1, 2, 7, 7)),
    ("GlobalAveragePool", {}, (2, 5, 7, 3)),
])
def test_pool(op, attrs, shape):
    x = f32(*shape)
    run_all(make_model([helper.make_node(op, ["x"], ["y"], **attrs)], {"x": x}, ["y"]), {"x": x})


def qpu_plan(model):
    """The plan of the device's QPU backend with every able node on the QPUs."""
    with qpu.nn.load(model, device=DEVICE, qpu_all=True) as net:
        return net.plan()


# depthwise 3x3 (libqpu/kernels/dwconv.qasm): (N, C, H, W), attrs, fused activation
DW_QPU_CASES = [
    ((1, 4, 5, 5), {"pads": [1, 1, 1, 1]}, None),
    ((1, 5, 17, 33), {"pads": [1, 1, 1, 1]}, "Relu"),               # 3 vectors, a tail of 1
    ((1, 6, 17, 33), {"pads": [0, 0, 1, 1], "strides": [2, 2]}, "Clip"),
    ((2, 3, 16, 16), {"pads": [1, 1, 1, 1], "strides": [2, 2]}, "Clip"),   # batch 2
    ((1, 3, 1, 1), {"pads": [1, 1, 1, 1]}, "Relu"),                 # 1x1 image
    ((1, 2, 9, 40), {"pads": [2, 0, 0, 2], "strides": [1, 2]}, None),
    ((1, 13, 20, 7), {"strides": [3, 3]}, "LeakyRelu"),             # activation on the CPU
    ((1, 3, 8, 8), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, None),
]


def dw_model(xs, attrs, act):
    """A depthwise 3x3 convolution of input shape @xs, then @act; and its input."""
    c = xs[1]
    inits = {"w": f32(c, 1, 3, 3), "b": f32(c)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c" if act else "y"], group=c, **attrs)]
    if act == "Clip":
        inits.update(lo=np.float32(0), hi=np.float32(6))
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
    elif act:
        nodes.append(helper.make_node(act, ["c"], ["y"]))
    x = f32(*xs, lo=-4, hi=4)
    return make_model(nodes, {"x": x}, ["y"], inits), x


@pytest.mark.parametrize("xs,attrs,act", DW_QPU_CASES)
def test_depthwise_on_qpus(xs, attrs, act):
    model, x = dw_model(xs, attrs, act)
    run_all(model, {"x": x}, rtol=1e-5)
    plan = qpu_plan(model)
    assert plan[0]["where"] == "qpu", plan[0]["why"]


def v3d_run(model, x, dev):
    """@model on V3D device @dev with every able node on the QPUs, against
    the reference within 1e-4 (MaxPool's exactly); its plan."""
    want = ref.run(model, {"x": x})[0]
    with qpu.nn.load(model, device=dev, qpu_all=True) as net:
        got = net.run(x)[0]
        plan = net.plan()
    if model.graph.node[0].op_type == "MaxPool":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4,
                                   atol=1e-5 * max(float(np.abs(want).max()), 1.0))
    return plan


V3D_DEVICES = ["emu:v3d42", "emu:v3d71"]


@pytest.mark.parametrize("dev", V3D_DEVICES)
@pytest.mark.parametrize("xs,attrs,act", DW_QPU_CASES)
def test_depthwise_on_v3d(dev, xs, attrs, act):
    """v3d/dwconv.qasm: horizontal strides 1 and 2 on the QPUs; 3 on the CPU,
    the plan saying why."""
    model, x = dw_model(xs, attrs, act)
    plan = v3d_run(model, x, dev)
    if attrs.get("strides", [1, 1])[1] > 2:
        assert plan[0]["where"] == "cpu"
        assert plan[0]["why"].startswith("no QPU kernel for Conv with a horizontal stride "
                                         "over V3D's 2")
    else:
        assert plan[0]["where"] == "qpu", plan[0]["why"]


# depthwise convolutions the kernel does not take: planned on the CPU, saying why
DW_CPU_CASES = [
    ((1, 4, 9, 9), (4, 5), {"pads": [2, 2, 2, 2]}, "with a depthwise kernel other than 3x3"),
    ((1, 4, 9, 9), (8, 3), {"pads": [1, 1, 1, 1]}, "with groups of more than one channel"),
    ((1, 4, 8, 8), (4, 3), {"strides": [16, 16]}, "with strides over 15"),
    ((1, 4, 1, 1), (4, 3), {"pads": [2, 2, 2, 2]}, "with pads larger than the input"),
]


@pytest.mark.parametrize("xs,mk,attrs,why", DW_CPU_CASES)
def test_depthwise_refused_to_the_cpu(xs, mk, attrs, why):
    m, k = mk
    c = xs[1]
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], group=c, **attrs)
    x = f32(*xs)
    model = make_model([node], {"x": x}, ["y"], {"w": f32(m, 1, k, k), "b": f32(m)})
    run_all(model, {"x": x})
    plan = qpu_plan(model)
    assert plan[0]["where"] == "cpu"
    assert plan[0]["why"].startswith("no QPU kernel for Conv " + why)


POOL_QPU_CASES = [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, (1, 3, 9, 9)),
    ("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2]}, (2, 3, 8, 37)),
    ("MaxPool", {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [0, 1, 1, 0],
                 "ceil_mode": 1}, (1, 3, 9, 10)),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
     (1, 3, 9, 9)),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1],
                     "count_include_pad": 1}, (1, 3, 9, 9)),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, (1, 3, 10, 9)),
    ("GlobalAveragePool", {}, (2, 5, 7, 7)),
    ("GlobalAveragePool", {}, (1, 40, 7, 7)),
    ("GlobalAveragePool", {}, (1, 3, 1, 1)),
]


@pytest.mark.parametrize("op,attrs,shape", POOL_QPU_CASES)
def test_pool_on_qpus(op, attrs, shape):
    x = f32(*shape, lo=-4, hi=4)
    model = make_model([helper.make_node(op, ["x"], ["y"], **attrs)], {"x": x}, ["y"])
    run_all(model, {"x": x}, exact=op == "MaxPool", rtol=1e-5)
    plan = qpu_plan(model)
    assert plan[0]["where"] == "qpu", plan[0]["why"]


@pytest.mark.parametrize("dev", V3D_DEVICES)
@pytest.mark.parametrize("op,attrs,shape", POOL_QPU_CASES)
def test_pool_on_v3d(dev, op, attrs, shape):
    """v3d/pool.qasm: every pooling case of the QPUs on the emulated V3Ds."""
    x = f32(*shape, lo=-4, hi=4)
    model = make_model([helper.make_node(op, ["x"], ["y"], **attrs)], {"x": x}, ["y"])
    plan = v3d_run(model, x, dev)
    assert plan[0]["where"] == "qpu", plan[0]["why"]


def test_pool_refused_to_the_cpu():
    x = f32(1, 2, 40, 40)
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[16, 16])
    model = make_model([node], {"x": x}, ["y"])
    run_all(model, {"x": x}, exact=True)
    plan = qpu_plan(model)
    assert plan[0]["where"] == "cpu"
    assert plan[0]["why"] == "no QPU kernel for MaxPool with strides over 15"


@pytest.mark.parametrize("op,attrs", [("Relu", {}), ("Sigmoid", {}), ("LeakyRelu", {}),
                                      ("LeakyRelu", {"alpha": 0.3}), ("HardSwish", {})])
def test_unary(op, attrs):
    x = f32(2, 3, 5, lo=-8, hi=8)
    run_all(make_model([helper.make_node(op, ["x"], ["y"], **attrs)], {"x": x}, ["y"]), {"x": x})


def test_clip_opsets():
    x = f32(4, 9, lo=-8, hi=8)
    run_all(make_model([helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], {"x": x}, ["y"],
                       {"lo": np.float32(0), "hi": np.float32(6)}), {"x": x})
    run_all(make_model([helper.make_node("Clip", ["x", "", "hi"], ["y"])], {"x": x}, ["y"],
                       {"hi": np.float32(1)}), {"x": x})
    run_all(make_model([helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=2.0)], {"x": x},
                       ["y"], opset=6), {"x": x})


@pytest.mark.parametrize("op", ["Add", "Mul"])
@pytest.mark.parametrize("sa,sb", [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (3, 1, 1)),
                                  ((1, 3, 1, 5), (2, 1, 4, 1)), ((4,), (2, 3, 4))])
def test_binary(op, sa, sb):
    a, b = f32(*sa), f32(*sb)
    run_all(make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, ["y"]),
            {"a": a, "b": b})


def test_concat_reshape_flatten_transpose():
    a, b = f32(1, 3, 4, 4), f32(1, 5, 4, 4)
    nodes = [helper.make_node("Concat", ["a", "b"], ["c"], axis=1),
             helper.make_node("Transpose", ["c"], ["t"], perm=[0, 2, 3, 1]),
             helper.make_node("Reshape", ["t", "s"], ["r"]),
             helper.make_node("Flatten", ["r"], ["y"], axis=2),
             helper.make_node("Concat", ["a", "a"], ["z"], axis=-1),
             helper.make_node("Identity", ["z"], ["i"])]
    model = make_model(nodes, {"a": a, "b": b}, ["y", "i"],
                       {"s": np.array([0, -1, 8, 2], np.int64)})
    run_all(model, {"a": a, "b": b}, exact=True)


@pytest.mark.parametrize("opset,axis,shape", [(13, -1, (2, 3, 10)), (13, 1, (2, 7, 3)),
                                              (11, 1, (2, 3, 4)), (11, 2, (2, 3, 4, 5))])
def test_softmax(opset, axis, shape):
    x = f32(*shape, lo=-5, hi=5)
    run_all(make_model([helper.make_node("Softmax", ["x"], ["y"], axis=axis)], {"x": x}, ["y"],
                       opset=opset), {"x": x})


@pytest.mark.parametrize("mode,coord,nearest,scales,sizes", [
    ("nearest", "asymmetric", "floor", [1, 1, 2, 2], None),
    ("nearest", "half_pixel", "round_prefer_floor", [1, 1, 1.5, 2.5], None),
    ("nearest", "align_corners", "round_prefer_ceil", None, [1, 3, 7, 3]),
    ("nearest", "pytorch_half_pixel", "ceil", [1, 1, 0.5, 0.5], None),
    ("linear", "half_pixel", "round_prefer_floor", [1, 1, 2, 2], None),
    ("linear", "align_corners", "round_prefer_floor", None, [1, 3, 9, 5]),
    ("linear", "asymmetric", "round_prefer_floor", [1, 1, 3, 1.5], None),
    ("linear", "pytorch_half_pixel", "round_prefer_floor", None, [1, 3, 1, 8]),
])
def test_resize(mode, coord, nearest, scales, sizes):
    x = f32(1, 3, 4, 5)
    inits = {"roi": np.zeros(0, np.float32)}
    ins = ["x", "roi"]
    if scales:
        inits["scales"] = np.array(scales, np.float32)
        ins.append("scales")
    else:
        inits["scales"] = np.zeros(0, np.float32)
        inits["sizes"] = np.array(sizes, np.int64)
        ins += ["scales", "sizes"]
    node = helper.make_node("Resize", ins, ["y"], mode=mode,
                            coordinate_transformation_mode=coord, nearest_mode=nearest)
    run_all(make_model([node], {"x": x}, ["y"], inits), {"x": x})


def test_resize_opset10():
    x = f32(1, 2, 3, 3)
    node = helper.make_node("Resize", ["x", "s"], ["y"], mode="nearest")
    run_all(make_model([node], {"x": x}, ["y"], {"s": np.array([1, 1, 2, 3], np.float32)},
                       opset=10), {"x": x})


# --- integer operators: exactly ONNX's --------------------------------------------------

@pytest.mark.parametrize("dtype,axis", [(np.uint8, None), (np.int8, None), (np.int8, 1),
                                        (np.uint8, 0)])
def test_quantize_dequantize(dtype, axis):
    x = f32(3, 4, 5, lo=-3, hi=3)
    x[0, 0, :3] = [0.25, 0.75, -0.25]  # halves: to even
    ch = x.shape[axis] if axis is not None else 1
    s = rng.uniform(0.01, 0.05, ch).astype(np.float32).reshape(-1 if axis is not None else ())
    zp = rng.integers(-10 if dtype == np.int8 else 100, 10 if dtype == np.int8 else 150,
                      ch).astype(dtype).reshape(s.shape)
    kw = {"axis": axis} if axis is not None else {}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **kw),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **kw)]
    model = make_model(nodes, {"x": x}, ["q", "y"], {"s": s, "z": zp})
    model.graph.output[0].type.tensor_type.elem_type = NP2ONNX[np.dtype(dtype)]
    run_all(model, {"x": x}, exact=True)


def test_quantize_rounds_half_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 300.0, -300.0], np.float32)
    model = make_model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"])], {"x": x},
                       ["q"], {"s": np.float32(1.0), "z": np.int8(0)})
    (q,) = run_all(model, {"x": x}, exact=True, backends=BACKENDS[:1])
    assert q.tolist() == [0, 2, 2, 0, -2, 127, -128]


def qconv_model(xs, m, k, attrs, xt=np.uint8, wt=np.int8, per_channel=True, bias=True):
    g = attrs.get("group", 1)
    lo, hi = np.iinfo(xt).min, np.iinfo(xt).max
    x = rng.integers(lo, hi + 1, xs).astype(xt)
    w = rng.integers(np.iinfo(wt).min, np.iinfo(wt).max + 1, (m, xs[1] // g, k, k)).astype(wt)
    ws = rng.uniform(0.001, 0.01, m if per_channel else ()).astype(np.float32)
    wz = np.zeros(m if per_channel else (), wt)
    inits = {"xs": np.float32(0.02), "xz": xt(lo + 7), "w": w, "ws": ws, "wz": wz,
             "ys": np.float32(0.05), "yz": np.uint8(128)}
    ins = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
    if bias:
        inits["b"] = rng.integers(-2000, 2000, m).astype(np.int32)
        ins.append("b")
    model = make_model([helper.make_node("QLinearConv", ins, ["y"], **attrs)], {"x": x}, ["y"],
                       inits)
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT8
    return model, x


@pytest.mark.parametrize("xs,m,k,attrs,xt,pc", [
    ((1, 3, 6, 6), 4, 3, {"pads": [1, 1, 1, 1]}, np.uint8, True),
    ((2, 4, 5, 7), 6, 3, {"strides": [2, 2], "pads": [1, 1, 1, 1]}, np.int8, False),
    ((1, 6, 5, 5), 6, 3, {"group": 6, "pads": [1, 1, 1, 1]}, np.uint8, True),
    ((1, 5, 1, 1), 3, 1, {}, np.uint8, False),
])
def test_qlinearconv_exact(xs, m, k, attrs, xt, pc):
    model, x = qconv_model(xs, m, k, attrs, xt=xt, per_channel=pc)
    run_all(model, {"x": x}, exact=True)


DW8_CASES = [
    # (N, C, H, W), attrs, x type, y type, x zero point, y zero point
    ((2, 5, 7, 7), {"pads": [1, 1, 1, 1]}, np.uint8, np.uint8, 0, 255),
    ((1, 3, 14, 14), {"pads": [0, 0, 1, 1], "strides": [2, 2]}, np.int8, np.int8, 127, -128),
    ((1, 4, 1, 1), {"pads": [1, 1, 1, 1]}, np.int8, np.uint8, -128, 0),
    ((3, 7, 9, 70), {"pads": [1, 1, 1, 1], "strides": [1, 2]}, np.uint8, np.int8, 255, 5),
    ((1, 2, 6, 5), {"pads": [0, 1, 2, 0]}, np.uint8, np.uint8, 17, 128),
]


@pytest.mark.parametrize("dev", [DEVICE] + V3D_DEVICES)
@pytest.mark.parametrize("per_channel", [True, False])
@pytest.mark.parametrize("xs,attrs,xt,yt,xz,yz", DW8_CASES)
def test_depthwise_qlinearconv_on_the_qpus(xs, attrs, xt, yt, xz, yz, per_channel, dev):
    """A depthwise QLinearConv 3x3 (batches, odd channels and widths,
    strides 1 and 2, one- and two-sided pads, int8 and uint8 both sides,
    zero points at the ends, weights' scales and zero points per channel
    or per tensor): byte for byte the numpy reference, on the QPUs' byte
    program of each generation."""
    c = xs[1]
    wshape = c if per_channel else ()
    x = rng.integers(np.iinfo(xt).min, np.iinfo(xt).max + 1, xs).astype(xt)
    x.flat[::7] = np.iinfo(xt).min
    x.flat[1::7] = np.iinfo(xt).max
    inits = {"xs": np.float32(0.02), "xz": xt(xz),
             "w": rng.integers(-128, 128, (c, 1, 3, 3)).astype(np.int8),
             "ws": rng.uniform(0.001, 0.03 if per_channel else 0.004, wshape).astype(np.float32),
             "wz": rng.integers(-3, 4, wshape).astype(np.int8),
             "ys": np.float32(0.03), "yz": yt(yz),
             "b": rng.integers(-3000, 3000, c).astype(np.int32)}
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                            ["y"], group=c, kernel_shape=[3, 3], **attrs)
    model = make_model([node], {"x": x}, ["y"], inits)
    model.graph.output[0].type.tensor_type.elem_type = NP2ONNX[np.dtype(yt)]
    (want,) = run_all(model, {"x": x}, exact=True)
    assert want.size < 16 or len(np.unique(want)) > 8   # not all saturated
    with qpu.nn.load(model, device=dev, qpu_all=True) as net:
        np.testing.assert_array_equal(net.run(x)[0], want)
        (p,) = net.plan()
    assert p["where"] == "qpu", p


DW8_MULT_RANGE = {"emu": "about 2^-15 to 2^22", "emu:v3d42": "2^-18 to 2^23",
                  "emu:v3d71": "2^-18 to 2^23"}


@pytest.mark.parametrize("dev", [DEVICE] + V3D_DEVICES)
@pytest.mark.parametrize("change,why", [
    ({"strides": [1, 3]}, "a horizontal stride over the byte program's 2"),
    ({"bias": 1 << 24}, "sums that may reach 2^24 (a bias too large to requantize exactly)"),
    ({"ys": 1e-12}, "a multiplier outside %s (not requantized exactly)"),
    ({"ys": 1e4}, "a multiplier outside %s (not requantized exactly)"),
])
def test_depthwise_qlinearconv_refused_on_the_qpus(change, why, dev):
    """What the byte program cannot keep exact stays on the CPU with the
    reason, exact there; each generation's program its own range of
    multipliers."""
    if "%s" in why:
        if dev not in DW8_MULT_RANGE:
            pytest.skip("the multipliers' range of %s's program is not listed" % dev)
        why = why % DW8_MULT_RANGE[dev]
    x = rng.integers(0, 256, (1, 3, 6, 6)).astype(np.uint8)
    b = rng.integers(-100, 100, 3).astype(np.int32)
    b[1] = change.get("bias", b[1])
    inits = {"xs": np.float32(0.02), "xz": np.uint8(3),
             "w": rng.integers(-128, 128, (3, 1, 3, 3)).astype(np.int8),
             "ws": np.full(3, 0.01, np.float32), "wz": np.zeros(3, np.int8),
             "ys": np.float32(change.get("ys", 0.03)), "yz": np.uint8(128), "b": b}
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                            ["y"], group=3, kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                            strides=change.get("strides", [1, 1]))
    model = make_model([node], {"x": x}, ["y"], inits)
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT8
    want = ref.run(model, {"x": x})[0]
    with qpu.nn.load(model, device=dev, qpu_all=True) as net:
        np.testing.assert_array_equal(net.run(x)[0], want)
        (p,) = net.plan()
    assert p["where"] == "cpu" and p["why"] == "no QPU kernel for QLinearConv with " + why, p


@pytest.mark.parametrize("per_col", [False, True])
def test_qlinearmatmul_exact(per_col):
    a = rng.integers(0, 256, (3, 4, 16)).astype(np.uint8) if not per_col else \
        rng.integers(0, 256, (4, 16)).astype(np.uint8)
    b = rng.integers(-128, 128, (16, 5)).astype(np.int8)
    bs = rng.uniform(0.001, 0.01, 5 if per_col else ()).astype(np.float32)
    inits = {"as": np.float32(0.03), "az": np.uint8(120), "b": b, "bs": bs,
             "bz": np.zeros(bs.shape, np.int8), "ys": np.float32(0.07), "yz": np.int8(-3)}
    model = make_model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz",
                                                           "ys", "yz"], ["y"])],
                       {"a": a}, ["y"], inits)
    run_all(model, {"a": a}, exact=True)


# The INT8 fast path's kernels (libqpu/nn/ops_fast_int8.c), each forced
# through $QPU_NN_QFAST where this CPU runs it, and the /proc/cpuinfo flags
# it needs.
QFAST_KERNELS = [("c", ()), ("sse2", ("sse2",)), ("avx2", ("avx2",)),
                 ("avx512", ("avx512bw",)), ("avx512vnni", ("avx512bw", "avx512_vnni"))]


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


@pytest.fixture(params=QFAST_KERNELS, ids=[k for k, _ in QFAST_KERNELS])
def qfast_kernel(request, monkeypatch):
    name, flags = request.param
    if name != "c" and os.uname().machine != "x86_64":
        pytest.skip("an amd64 kernel")
    missing = [f for f in flags if f not in cpu_flags()]
    if missing:
        pytest.skip("this CPU lacks " + " ".join(missing))
    monkeypatch.setenv("QPU_NN_QFAST", name)
    return name


def qconv_edge(xs, m, k, attrs, xt, wt, xz, wz, ys, bias_range, per_channel=True):
    """A QLinearConv of random operands with the zero points, output scale
    and bias range given (uint8 output, zero point 128)."""
    g = attrs.get("group", 1)
    x = rng.integers(np.iinfo(xt).min, np.iinfo(xt).max + 1, xs).astype(xt)
    w = rng.integers(np.iinfo(wt).min, np.iinfo(wt).max + 1, (m, xs[1] // g, k, k)).astype(wt)
    ws = rng.uniform(0.001, 0.01, m if per_channel else ()).astype(np.float32)
    wzs = (np.full(m, wz) if per_channel else np.array(wz)).astype(wt)
    if per_channel and m > 1:    # a different zero point per channel, the extreme one kept
        wzs[1::2] = np.clip(wz + rng.integers(-9, 10, wzs[1::2].shape), np.iinfo(wt).min,
                            np.iinfo(wt).max)
    inits = {"xs": np.float32(0.02), "xz": xt(xz), "w": w, "ws": ws, "wz": wzs,
             "ys": np.float32(ys), "yz": np.uint8(128),
             "b": rng.integers(-bias_range, bias_range + 1, m).astype(np.int32)}
    model = make_model([helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys",
                                                         "yz", "b"], ["y"], **attrs)],
                       {"x": x}, ["y"], inits)
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT8
    return model, x


QFAST_CONVS = [
    # xs, m, k, attrs, x type, w type, xz, wz, y scale, bias range
    ((1, 5, 6, 7), 37, 1, {}, np.uint8, np.int8, 255, -128, 0.05, 2000),   # K odd, M and P odd
    ((2, 3, 9, 11), 8, 3, {"strides": [2, 2], "pads": [1, 1, 1, 1]}, np.int8, np.int8, -128, 127,
     0.05, 2000),                                                          # K 27, stride 2
    ((1, 7, 1, 1), 9, 3, {"pads": [1, 1, 1, 1]}, np.uint8, np.uint8, 0, 255, 0.05, 2000),  # 1x1
    ((1, 4, 5, 5), 6, 3, {"group": 2, "pads": [0, 1, 2, 1]}, np.uint8, np.int8, 7, 0, 0.05,
     2000),                                                                # groups, odd pads
    ((1, 70, 3, 3), 5, 1, {}, np.uint8, np.int8, 0, 127, 0.0002, 1 << 30),  # saturates both ways
    ((1, 1040, 2, 3), 3, 3, {"pads": [1, 1, 1, 1]}, np.uint8, np.uint8, 255, 0, 0.05,
     1 << 20),                                                             # |acc| >= 2^29
    # depthwise: strides 1, 2 (even and odd widths, TF's pads) and 3, 5x5, a 1x1 image
    ((1, 19, 14, 14), 19, 3, {"group": 19, "pads": [1, 1, 1, 1]}, np.uint8, np.int8, 3, 0, 0.05,
     2000),
    ((1, 17, 12, 12), 17, 3, {"group": 17, "strides": [2, 2], "pads": [0, 0, 1, 1]}, np.int8,
     np.int8, 127, -128, 0.05, 2000),
    ((2, 6, 9, 13), 6, 3, {"group": 6, "strides": [2, 2], "pads": [1, 1, 1, 1]}, np.uint8,
     np.uint8, 255, 255, 0.05, 2000),
    ((1, 5, 11, 10), 5, 5, {"group": 5, "strides": [3, 3], "pads": [2, 1, 2, 2]}, np.int8,
     np.uint8, -128, 0, 0.05, 2000),
    ((1, 33, 1, 1), 33, 3, {"group": 33, "pads": [1, 1, 1, 1]}, np.uint8, np.int8, 0, -128,
     0.0005, 1 << 29),
    ((1, 3, 40, 37), 3, 3, {"group": 3, "pads": [1, 1, 1, 1]}, np.uint8, np.int8, 128, 5, 0.05,
     2000),
    ((2, 6, 7, 9), 6, 3, {"group": 6, "pads": [2, 0, 0, 2]}, np.uint8, np.int8, 250, 3, 0.05,
     2000),                                                                # short rows, pads one side
]


@pytest.mark.parametrize("case", QFAST_CONVS, ids=[str(i) for i in range(len(QFAST_CONVS))])
def test_qlinearconv_fast_kernels_exact(qfast_kernel, case):
    """QLinearConv on the CPU's INT8 fast path, each SIMD kernel forced,
    byte for byte the reference's: K not a multiple of any vector (odd,
    27), positions and channels not of any tile, 1x1 images, strides 2 and
    3 with uneven pads, groups, zero points at the extremes (per channel),
    saturation both ways, sums past 2^29 (requantized element by element)."""
    model, x = qconv_edge(*case)
    with qpu.nn.load(model, device="cpu") as net:
        assert net.plan()[0]["where"] == "cpu", net.plan()[0]
    run_all(model, {"x": x}, exact=True, backends=BACKENDS[:3])


@pytest.mark.parametrize("rows,k,n,az,bt,bz", [(1, 1024, 1000, 3, np.int8, 0),
                                               (5, 37, 19, 255, np.uint8, 255),
                                               (3, 2, 33, 0, np.int8, -128)])
def test_qlinearmatmul_fast_kernels_exact(qfast_kernel, rows, k, n, az, bt, bz):
    """QLinearMatMul on the INT8 fast path, each kernel forced: the
    classifier's shape, K odd and 2, N past a tile, zero points at the
    extremes (per column), exact with the reference."""
    a = rng.integers(0, 256, (rows, k)).astype(np.uint8)
    b = rng.integers(np.iinfo(bt).min, np.iinfo(bt).max + 1, (k, n)).astype(bt)
    bzs = np.full(n, bz).astype(bt)
    bzs[1::3] = np.clip(bz + 7 * (1 if bz <= 0 else -1), np.iinfo(bt).min, np.iinfo(bt).max)
    inits = {"as": np.float32(0.03), "az": np.uint8(az), "b": b,
             "bs": rng.uniform(0.001, 0.01, n).astype(np.float32), "bz": bzs,
             "ys": np.float32(0.07), "yz": np.int8(-3)}
    model = make_model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz",
                                                           "ys", "yz"], ["y"])],
                       {"a": a}, ["y"], inits)
    run_all(model, {"a": a}, exact=True, backends=BACKENDS[:3])


def test_qfast_unknown_kernel_name_runs_the_best(monkeypatch):
    """A $QPU_NN_QFAST this CPU cannot run (or no such kernel) is ignored:
    the best kernel runs, exact as ever."""
    monkeypatch.setenv("QPU_NN_QFAST", "no-such-kernel")
    model, x = qconv_edge((1, 5, 6, 7), 9, 3, {"pads": [1, 1, 1, 1]}, np.uint8, np.int8, 3, 0,
                          0.05, 2000)
    run_all(model, {"x": x}, exact=True, backends=BACKENDS[:1])


@pytest.mark.parametrize("xt,xz,wz,ys", [(np.uint8, 0, 127, 0.05), (np.uint8, 255, -128, 0.05),
                                          (np.int8, -128, 127, 0.0005),
                                          (np.int8, 127, -128, 0.05)])
def test_qlinear_zero_points_at_extremes_on_the_qpus(xt, xz, wz, ys):
    """QLinearConv (K 27: not a multiple of 4) and QLinearMatMul (K 13)
    with zero points at their types' ends, saturating when ys is small:
    exactly the numpy reference, and on the QPUs' integer product."""
    lo, hi = np.iinfo(xt).min, np.iinfo(xt).max
    x = rng.integers(lo, hi + 1, (1, 3, 5, 6)).astype(xt)
    x.flat[::4] = lo
    x.flat[1::4] = hi
    w = rng.integers(-128, 128, (18, 3, 3, 3)).astype(np.int8)
    inits = {"xs": np.float32(0.02), "xz": xt(xz), "w": w,
             "ws": rng.uniform(0.001, 0.01, 18).astype(np.float32),
             "wz": np.full(18, wz, np.int8), "ys": np.float32(ys), "yz": np.uint8(9),
             "b": rng.integers(-2000, 2000, 18).astype(np.int32)}
    conv = make_model([helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys",
                                                        "yz", "b"], ["y"], pads=[1, 1, 1, 1])],
                      {"x": x}, ["y"], inits)
    conv.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT8
    a = rng.integers(lo, hi + 1, (3, 13)).astype(xt)
    b = rng.integers(-128, 128, (13, 20)).astype(np.int8)
    minits = {"as": np.float32(0.03), "az": xt(xz), "b": b,
              "bs": rng.uniform(0.001, 0.01, 20).astype(np.float32),
              "bz": np.full(20, wz, np.int8), "ys": np.float32(ys), "yz": np.uint8(200)}
    mm = make_model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys",
                                                        "yz"], ["y"])], {"a": a}, ["y"], minits)
    mm.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT8
    for model, feeds in ((conv, {"x": x}), (mm, {"a": a})):
        (want,) = run_all(model, feeds, exact=True)
        if ys < 0.001:
            assert np.isin(want, (0, 255)).mean() > 0.5  # saturation is tested
        with qpu.nn.load(model, device=DEVICE, qpu_all=True) as net:
            assert [n["where"] for n in net.plan()] == ["qpu"]


def classifier_pair(k=1024, n=1000):
    """MobileNet's classifier as QLinearMatMul (uint8 x int8, per-column
    weights) and as a float MatMul of the same shape: make bench-nn-int8."""
    g = np.random.default_rng(1)
    a = g.integers(0, 256, (1, k)).astype(np.uint8)
    inits = {"as": np.float32(0.03), "az": np.uint8(120),
             "b": g.integers(-128, 128, (k, n)).astype(np.int8),
             "bs": g.uniform(0.001, 0.01, n).astype(np.float32), "bz": np.zeros(n, np.int8),
             "ys": np.float32(0.07), "yz": np.uint8(128)}
    q = make_model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys",
                                                       "yz"], ["y"])], {"a": a}, ["y"], inits)
    f = make_model([helper.make_node("MatMul", ["a", "b"], ["y"])],
                   {"a": np.zeros((1, k), np.float32)}, ["y"],
                   {"b": g.uniform(-1, 1, (k, n)).astype(np.float32)})
    return q, f


def test_classifier_pair_int8_modelled_faster():
    """INT8 moves a quarter of the bytes: on a Pi 1, where the classifier
    is memory-bound, the QPUs' QLinearMatMul is modelled faster than the
    float MatMul (the figure of make bench-nn-int8)."""
    q, f = classifier_pair(256, 250)
    ns = []
    for model, dtype in ((q, np.uint8), (f, np.float32)):
        with qpu.nn.load(model, device="emu:board=pi1", qpu_all=True) as net:
            net.run(a=np.zeros((1, 256), dtype))
            (node,) = net.plan()
            assert node["where"] == "qpu" and node["model_ns"] > 0
            ns.append(node["model_ns"])
    assert ns[0] < ns[1] / 2


def test_qlinearadd_exact():
    a = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    b = rng.integers(0, 256, (3, 1)).astype(np.uint8)
    inits = {"as": np.float32(0.02), "az": np.uint8(100), "bs": np.float32(0.03),
             "bz": np.uint8(130), "cs": np.float32(0.04), "cz": np.uint8(128)}
    node = helper.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "cs", "cz"], ["y"],
                            domain="com.microsoft")
    run_all(make_model([node], {"a": a, "b": b}, ["y"], inits, ms=True), {"a": a, "b": b},
            exact=True)


# --- whole models -------------------------------------------------------------------------

def dw_block(nodes, inits, name, x, cin, cout, stride):
    """MobileNet v1's depthwise-separable block: dw 3x3 + ReLU6, pw 1x1 + ReLU6."""
    inits[name + "_dw"] = (rng.standard_normal((cin, 1, 3, 3)) * 0.3).astype(np.float32)
    inits[name + "_dwb"] = f32(cin, lo=-0.1, hi=0.1)
    inits[name + "_pw"] = (rng.standard_normal((cout, cin, 1, 1)) / np.sqrt(cin)).astype(np.float32)
    inits[name + "_pwb"] = f32(cout, lo=-0.1, hi=0.1)
    nodes += [
        helper.make_node("Conv", [x, name + "_dw", name + "_dwb"], [name + "_d"], group=cin,
                         pads=[1, 1, 1, 1], strides=[stride, stride]),
        helper.make_node("Clip", [name + "_d", "zero", "six"], [name + "_dr"]),
        helper.make_node("Conv", [name + "_dr", name + "_pw", name + "_pwb"], [name + "_p"]),
        helper.make_node("Clip", [name + "_p", "zero", "six"], [name + "_pr"])]
    return name + "_pr"


MOBILENET_V1 = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + \
    [(512, 1)] * 5 + [(1024, 2), (1024, 1)]


def mobilenet_v1(width=1.0, res=224, classes=1000, blocks=None):
    """MobileNet v1 (Howard et al. 2017) of width multiplier `width`, random
    weights, built with onnx.helper: 569 M multiply-adds at 1.0 and 224."""
    nodes, inits = [], {"zero": np.float32(0), "six": np.float32(6)}
    c = int(32 * width)
    inits["stem_w"] = (rng.standard_normal((c, 3, 3, 3)) * 0.2).astype(np.float32)
    inits["stem_b"] = f32(c, lo=-0.1, hi=0.1)
    nodes += [helper.make_node("Conv", ["x", "stem_w", "stem_b"], ["s"], pads=[1, 1, 1, 1],
                               strides=[2, 2]),
              helper.make_node("Clip", ["s", "zero", "six"], ["s_r"])]
    x = "s_r"
    for i, (cout, stride) in enumerate(blocks or MOBILENET_V1):
        x = dw_block(nodes, inits, "b%d" % i, x, c, int(cout * width), stride)
        c = int(cout * width)
    inits["fc_w"] = (rng.standard_normal((classes, c)) / np.sqrt(c)).astype(np.float32)
    inits["fc_b"] = f32(classes, lo=-0.1, hi=0.1)
    inits["shape"] = np.array([1, -1], np.int64)
    nodes += [helper.make_node("GlobalAveragePool", [x], ["gap"]),
              helper.make_node("Reshape", ["gap", "shape"], ["flat"]),
              helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1),
              helper.make_node("Softmax", ["logits"], ["prob"])]
    return make_model(nodes, {"x": np.zeros((1, 3, res, res), np.float32)}, ["prob"], inits)


def test_mobilenet_like_stack():
    model = mobilenet_v1(width=0.25, res=32, classes=10, blocks=MOBILENET_V1[:4])
    x = f32(1, 3, 32, 32)
    run_all(model, {"x": x})
    with qpu.nn.load(model, device=DEVICE, qpu_all=True) as net:
        net.run(x)
        plan = net.plan()
    where = {p["where"] for p in plan}
    assert {"qpu", "cpu", "fused", "view"} <= where
    assert all(p["why"] for p in plan)


@pytest.mark.parametrize("dev,qpus", [("emu:v3d42", 8), ("emu:v3d71", 12)])
def test_mobilenet_like_stack_on_v3d(dev, qpus):
    """The emulated Pi 4 and Pi 5 (their sgemm on the device's QPU count):
    the outputs within 1e-4 of the reference, planned by the board's time
    model or asked; depthwise convolutions and pooling on the QPUs when
    asked, else where the model says (the plan saying why)."""
    model = mobilenet_v1(width=0.25, res=32, classes=10, blocks=MOBILENET_V1[:4])
    x = f32(1, 3, 32, 32)
    want = ref.run(model, {"x": x})[0]
    for opts in ({}, {"qpu_all": True}):
        with qpu.nn.load(model, device=dev, **opts) as net:
            got = net.run(x)[0]
            plan = net.plan()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * float(np.abs(want).max()))
        convs = [p for p in plan if p["op"] == "Conv"]
        assert "%d QPUs" % qpus in convs[0]["why"]
        gap = [p for p in plan if p["op"] == "GlobalAveragePool"][0]
        for p in convs[1::2] + [gap]:     # the depthwise ones, the pooling
            if opts:
                assert p["where"] == "qpu", p["why"]
            else:
                assert p["why"].startswith("faster on the " + p["where"].upper()), p["why"]
    assert all(p["where"] == "qpu" for p in convs[0::2] + [p for p in plan if p["op"] == "Gemm"])


def test_ssd_lite_head():
    """SSD-lite's head on two feature maps: depthwise + pointwise box and
    class predictors, NHWC-transposed, flattened and concatenated."""
    f1, f2 = f32(1, 16, 6, 6), f32(1, 32, 3, 3)
    nodes, inits = [], {"zero": np.float32(0), "six": np.float32(6),
                        "flat": np.array([1, -1, 4], np.int64),
                        "flatc": np.array([1, -1, 3], np.int64)}
    boxes, scores = [], []
    for i, (f, c) in enumerate((("f1", 16), ("f2", 32))):
        d = dw_block(nodes, inits, "h%d" % i, f, c, c, 1)
        for kind, per, out in (("box", 4, boxes), ("cls", 3, scores)):
            inits["%s%d_w" % (kind, i)] = f32(per * 3, c, 1, 1)
            inits["%s%d_b" % (kind, i)] = f32(per * 3)
            nodes += [helper.make_node("Conv", [d, "%s%d_w" % (kind, i), "%s%d_b" % (kind, i)],
                                       ["%s%d" % (kind, i)]),
                      helper.make_node("Transpose", ["%s%d" % (kind, i)], ["%s%d_t" % (kind, i)],
                                       perm=[0, 2, 3, 1]),
                      helper.make_node("Reshape", ["%s%d_t" % (kind, i),
                                                   "flat" if per == 4 else "flatc"],
                                       ["%s%d_r" % (kind, i)])]
            out.append("%s%d_r" % (kind, i))
    nodes += [helper.make_node("Concat", boxes, ["boxes"], axis=1),
              helper.make_node("Concat", scores, ["sc"], axis=1),
              helper.make_node("Sigmoid", ["sc"], ["scores"])]
    model = make_model(nodes, {"f1": f1, "f2": f2}, ["boxes", "scores"], inits)
    want = run_all(model, {"f1": f1, "f2": f2})
    assert want[0].shape == (1, 3 * 36 + 3 * 9, 4) and want[1].shape == (1, 135, 3)


def test_qdq_model():
    """A QDQ-quantized pair of convolutions: weights stored int8 with a
    DequantizeLinear (folded at load), activations quantized and
    dequantized between them, as quantization tools export."""
    x = f32(1, 4, 8, 8)
    w1 = rng.integers(-127, 128, (8, 4, 3, 3)).astype(np.int8)
    w2 = rng.integers(-127, 128, (8, 8, 1, 1)).astype(np.int8)
    inits = {"w1q": w1, "w1s": rng.uniform(0.002, 0.01, 8).astype(np.float32),
             "w1z": np.zeros(8, np.int8), "w2q": w2, "w2s": np.float32(0.01),
             "w2z": np.int8(0), "as": np.float32(0.05), "az": np.uint8(128),
             "b1": f32(8), "b2": f32(8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "as", "az"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "as", "az"], ["xd"]),
             helper.make_node("DequantizeLinear", ["w1q", "w1s", "w1z"], ["w1"], axis=0),
             helper.make_node("Conv", ["xd", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("QuantizeLinear", ["r1", "as", "az"], ["r1q"]),
             helper.make_node("DequantizeLinear", ["r1q", "as", "az"], ["r1d"]),
             helper.make_node("DequantizeLinear", ["w2q", "w2s", "w2z"], ["w2"]),
             helper.make_node("Conv", ["r1d", "w2", "b2"], ["y"])]
    model = make_model(nodes, {"x": x}, ["y"], inits)
    run_all(model, {"x": x}, rtol=1e-4, atol=1e-4)
    with qpu.nn.load(model) as net:
        plan = {p["name"] or p["op"]: p["where"] for p in net.plan()}
    assert list(plan.values()).count("folded") == 2


# --- QDQ models: the integer operators ONNX Runtime fuses them into --------------------


def q8(v, s, z):
    """QuantizeLinear to int8 of a float (the specification's rounding)."""
    return np.int8(np.clip(np.rint(np.float32(v) / np.float32(s)) + z, -128, 127))


class QdqNet:
    """One set of integers and scales written twice: as quantize_static
    writes it (QDQ: per-tensor int8 activations, per-channel int8 weights
    of zero point 0, int32 biases of scale x_scale * w_scale) and as the
    QOperator graph of the same integers ONNX Runtime fuses it into
    (QLinearConv, QLinearMatMul, com.microsoft's QLinearAdd; a Gemm as a
    1x1 QLinearConv, which has its bias; a fused Relu or Clip as an integer
    Clip at the quantized bounds). Scales are calibrated on `x`."""

    def __init__(self, x):
        self.x, self.inits, self.qdq, self.qop, self.i = x, {}, [], [], 0
        lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
        self.cur = "xq"
        self._qparams("a", lo, hi)
        for nodes in (self.qdq, self.qop):
            nodes.append(helper.make_node("QuantizeLinear", ["x", "a_s", "a_z"], ["xq"],
                                          name="quant_x"))
        self.cur_s, self.cur_z, self.shape = "a_s", "a_z", x.shape

    def _qparams(self, name, lo, hi, zshift=0):
        s = np.float32(max(hi - lo, 1e-3) / 255.0)
        z = np.int8(np.clip(np.rint(-128 - lo / s) + zshift, -128, 127))
        self.inits[name + "_s"], self.inits[name + "_z"] = s, z
        return s, z

    def _float_range(self, nodes, name):
        m = make_model(nodes, {"x": self.x}, [name], self.inits, ms=True)
        v = ref.run(m, {"x": self.x})[0]
        return float(v.min()), float(v.max())

    def _dq(self, name):
        d = name + "_d"
        self.qdq.append(helper.make_node("DequantizeLinear", [name, self.cur_s, self.cur_z], [d],
                                         name="dq_" + name))
        return d

    def _out(self, pre, act, clip, zshift):
        """The activation and QuantizeLinear after float tensor `pre` (QDQ)
        and after int8 `pre_i` (QOperator); the next current tensor."""
        i, f = self.i, pre
        if act == "Relu":
            self.qdq.append(helper.make_node("Relu", [pre], [pre + "_r"], name="relu%d" % i))
            f = pre + "_r"
        elif act == "Clip":
            self.inits["lo%d" % i], self.inits["hi%d" % i] = np.float32(clip[0]), np.float32(clip[1])
            self.qdq.append(helper.make_node("Clip", [pre, "lo%d" % i, "hi%d" % i],
                                             [pre + "_r"], name="clip%d" % i))
            f = pre + "_r"
        elif act == "LeakyRelu":
            self.qdq.append(helper.make_node("LeakyRelu", [pre], [pre + "_r"], name="leaky%d" % i))
            f = pre + "_r"
        s, z = self._qparams("y%d" % i, *self._float_range(self.qdq, f), zshift=zshift)
        q = "q%d" % i
        self.qdq.append(helper.make_node("QuantizeLinear", [f, "y%d_s" % i, "y%d_z" % i], [q],
                                         name="quant%d" % i))
        if act in ("Relu", "Clip"):
            lo, hi = (0.0, np.inf) if act == "Relu" else clip
            self.inits["qlo%d" % i] = q8(lo, s, z)
            self.inits["qhi%d" % i] = q8(hi, s, z) if np.isfinite(hi) else np.int8(127)
            self.qop.append(helper.make_node("Clip", [q + "_pre", "qlo%d" % i, "qhi%d" % i], [q]))
        self.cur, self.cur_s, self.cur_z = q, "y%d_s" % i, "y%d_z" % i
        self.i += 1
        return q

    def _weights(self, shape, axis_len):
        i = self.i
        self.inits["w%d" % i] = rng.integers(-127, 128, shape).astype(np.int8)
        self.inits["w%d_s" % i] = rng.uniform(0.002, 0.02, axis_len).astype(np.float32)
        self.inits["w%d_z" % i] = np.zeros(axis_len, np.int8)
        self.inits["b%d" % i] = rng.integers(-2000, 2000, axis_len).astype(np.int32)
        self.inits["b%d_s" % i] = (self.inits[self.cur_s] * self.inits["w%d_s" % i]).astype(
            np.float32)
        self.inits["b%d_z" % i] = np.zeros(axis_len, np.int32)
        for t in ("w", "b"):
            self.qdq.append(helper.make_node(
                "DequantizeLinear", ["%s%d" % (t, i), "%s%d_s" % (t, i), "%s%d_z" % (t, i)],
                ["%s%d_d" % (t, i)], axis=0, name="dq_%s%d" % (t, i)))

    def conv(self, m, k, stride=1, group=1, act=None, clip=None, zshift=0):
        i, (n, c, h, w) = self.i, self.shape
        attrs = {"pads": [k // 2] * 4, "strides": [stride, stride], "group": group}
        self._weights((m, c // group, k, k), m)
        self.qdq.append(helper.make_node("Conv", [self._dq(self.cur), "w%d_d" % i, "b%d_d" % i],
                                         ["c%d" % i], name="conv%d" % i, **attrs))
        self.qop.append(helper.make_node(
            "QLinearConv", [self.cur, self.cur_s, self.cur_z, "w%d" % i, "w%d_s" % i,
                            "w%d_z" % i, "y%d_s" % i, "y%d_z" % i, "b%d" % i],
            ["q%d_pre" % i if act else "q%d" % i], **attrs))
        self.shape = (n, m, (h + 2 * (k // 2) - k) // stride + 1,
                      (w + 2 * (k // 2) - k) // stride + 1)
        return self._out("c%d" % i, act, clip, zshift)

    def add(self, other, act=None):
        """The current tensor plus int8 tensor `other` (its scale and zero point)."""
        i, (o, os_, oz) = self.i, other
        a = self._dq(self.cur)
        self.qdq.append(helper.make_node("DequantizeLinear", [o, os_, oz], [o + "_d2"]))
        self.qdq.append(helper.make_node("Add", [a, o + "_d2"], ["c%d" % i], name="add%d" % i))
        self.qop.append(helper.make_node(
            "QLinearAdd", [self.cur, self.cur_s, self.cur_z, o, os_, oz, "y%d_s" % i,
                           "y%d_z" % i], ["q%d_pre" % i if act else "q%d" % i],
            domain="com.microsoft"))
        return self._out("c%d" % i, act, None, 0)

    def flatten(self):
        """Flatten on the integers (QDQ: DequantizeLinear, Flatten, the same QuantizeLinear)."""
        q = self.cur + "_f"
        self.qdq += [helper.make_node("Flatten", [self._dq(self.cur)], [q + "_x"]),
                     helper.make_node("QuantizeLinear", [q + "_x", self.cur_s, self.cur_z], [q])]
        self.qop.append(helper.make_node("Flatten", [self.cur], [q]))
        self.cur, self.shape = q, (self.shape[0], int(np.prod(self.shape[1:])))

    def gemm(self, n_out, act=None):
        i, k = self.i, self.shape[1]
        self._weights((n_out, k), n_out)
        self.qdq.append(helper.make_node("Gemm", [self._dq(self.cur), "w%d_d" % i, "b%d_d" % i],
                                         ["c%d" % i], transB=1, name="gemm%d" % i))
        self.inits["w%d_4d" % i] = self.inits["w%d" % i].reshape(n_out, k, 1, 1)
        self.inits["sh%d" % i] = np.array([1, k, 1, 1], np.int64)
        self.inits["sh%d_o" % i] = np.array([1, n_out], np.int64)
        self.qop += [helper.make_node("Reshape", [self.cur, "sh%d" % i], ["r%d" % i]),
                     helper.make_node("QLinearConv", ["r%d" % i, self.cur_s, self.cur_z,
                                                      "w%d_4d" % i, "w%d_s" % i, "w%d_z" % i,
                                                      "y%d_s" % i, "y%d_z" % i, "b%d" % i],
                                      ["r%d_c" % i]),
                     helper.make_node("Reshape", ["r%d_c" % i, "sh%d_o" % i],
                                      ["q%d_pre" % i if act else "q%d" % i])]
        self.shape = (1, n_out)
        return self._out("c%d" % i, act, None, 0)

    def matmul(self, n_out):
        i, k = self.i, self.shape[1]
        self.inits["w%d" % i] = rng.integers(-127, 128, (k, n_out)).astype(np.int8)
        self.inits["w%d_s" % i] = rng.uniform(0.002, 0.02, n_out).astype(np.float32)
        self.inits["w%d_z" % i] = np.zeros(n_out, np.int8)
        self.qdq += [helper.make_node("DequantizeLinear", ["w%d" % i, "w%d_s" % i, "w%d_z" % i],
                                      ["w%d_d" % i], axis=1),
                     helper.make_node("MatMul", [self._dq(self.cur), "w%d_d" % i], ["c%d" % i],
                                      name="matmul%d" % i)]
        self.qop.append(helper.make_node(
            "QLinearMatMul", [self.cur, self.cur_s, self.cur_z, "w%d" % i, "w%d_s" % i,
                              "w%d_z" % i, "y%d_s" % i, "y%d_z" % i], ["q%d" % i]))
        self.shape = (1, n_out)
        return self._out("c%d" % i, None, None, 0)

    def models(self):
        """(QDQ model, QOperator model), both ending at the current int8 tensor."""
        return tuple(make_model(nodes, {"x": self.x}, [self.cur], self.inits, ms=True)
                     for nodes in (self.qdq, self.qop))


def qdq_mobilenet_like(x):
    """A MobileNet-like stack, QDQ-quantized: a 3x3 stride-2 convolution
    with Relu, a depthwise 3x3 with ReLU6, pointwise convolutions (one with
    a zero point that makes its Relu clamp), a residual Add with Relu, a
    Gemm classifier and a MatMul."""
    net = QdqNet(x)
    net.conv(8, 3, stride=2, act="Relu")
    net.conv(8, 3, group=8, act="Clip", clip=(0.0, 6.0))
    skip = (net.conv(16, 1, act="Relu", zshift=40), net.cur_s, net.cur_z)
    net.conv(16, 1)
    net.add(skip, act="Relu")
    net.flatten()
    net.gemm(10, act="Relu")
    net.matmul(7)
    return net


QDQ_DEVICES = [("cpu", {}), ("ref", {"reference": True}), (DEVICE, {"qpu_all": True}),
               ("emu:v3d42", {"qpu_all": True}), ("emu:v3d71", {"qpu_all": True})]


@pytest.mark.parametrize("dev,opts", QDQ_DEVICES, ids=[d[0] for d in QDQ_DEVICES])
def test_qdq_mobilenet_like_fused(dev, opts):
    """The QDQ stack runs as the integer operators: every output byte equal
    to the QOperator graph of the same integers (the numpy reference of
    QLinearConv, QLinearMatMul, QLinearAdd); the plan says which nodes were
    fused into int8 operators and where they ran."""
    x = f32(1, 3, 12, 12, lo=-2.0, hi=2.0)
    qdq, qop = qdq_mobilenet_like(x).models()
    want = ref.run(qop, {"x": x})[0]
    assert want.dtype == np.int8 and len(np.unique(want)) > 3   # not all saturated
    with qpu.nn.load(qdq, device=dev if dev != "ref" else "cpu", qdq_int8=True, **opts) as net:
        got = net.run(x)[0]
        plan = {p["name"]: p for p in net.plan()}
    np.testing.assert_array_equal(got, want)
    ops = {"conv0": "QLinearConv", "conv1": "QLinearConv", "conv2": "QLinearConv",
           "conv3": "QLinearConv", "add4": "QLinearAdd", "gemm5": "QLinearMatMul",
           "matmul6": "QLinearMatMul"}
    for name, op in ops.items():
        p = plan[name]
        assert p["op"] == op and "QDQ: int8 in place of DequantizeLinear" in p["why"], p
        assert p["fused"].endswith("QuantizeLinear")
    assert plan["conv0"]["fused"] == "Relu, QuantizeLinear"
    assert plan["conv1"]["fused"] == "Clip, QuantizeLinear"
    for name in ("quant0", "quant1", "quant2", "quant3", "quant4", "quant5", "quant6",
                 "relu0", "clip1", "dq_xq", "dq_q0", "dq_q2"):
        assert plan[name]["where"] == "fused", (name, plan[name])
    assert all(plan["dq_w%d" % i]["where"] == "folded" for i in range(4))
    if opts.get("qpu_all"):
        for name in ("conv0", "conv2", "conv3", "gemm5", "matmul6"):
            assert plan[name]["where"] == "qpu", plan[name]
        # the depthwise one and its ReLU6 on the generation's byte program
        assert plan["conv1"]["where"] == "qpu", plan["conv1"]
        assert plan["add4"]["where"] == "cpu"
    else:
        assert {plan[n]["where"] for n in ops} == {"cpu-ref" if dev == "ref" else "cpu"}


def test_qdq_mobilenet_like_literal(monkeypatch):
    """By default the float graph runs literally: no node fused, every
    output within one step of the float QDQ reference; qdq_int8=True and
    $QPU_NN_QDQ=int8 fuse it, in an arena under half the literal one."""
    x = f32(1, 3, 12, 12, lo=-2.0, hi=2.0)
    qdq, _ = qdq_mobilenet_like(x).models()
    want = ref.run(qdq, {"x": x})[0].astype(np.int32)
    with qpu.nn.load(qdq) as net:
        lit = net.run(x)[0]
        plan = net.plan()
        literal_arena = net.arena_bytes
    with qpu.nn.load(qdq, qdq_int8=True) as net:   # int8 tensors only: no dequantized ones
        assert net.arena_bytes * 2 < literal_arena, (net.arena_bytes, literal_arena)
    assert not any(p["op"].startswith("QLinear") for p in plan)
    assert [p["op"] for p in plan].count("Conv") == 4
    assert np.abs(lit.astype(np.int32) - want).max() <= 1
    # read at each bind (the process's environment, which os.environ sets)
    for value, fused in (("int8", True), ("float", False), ("", False)):
        monkeypatch.setenv("QPU_NN_QDQ", value)
        with qpu.nn.load(qdq) as net:
            ops = {p["op"] for p in net.plan()}
        assert ("QLinearConv" in ops) == fused and ("Conv" in ops) != fused, (value, ops)


QDQ_LAYERS = [
    ("conv 3x3 stride 2, Relu", lambda n: n.conv(6, 3, stride=2, act="Relu")),
    ("conv 1x1, Relu clamping at its zero point", lambda n: n.conv(5, 1, act="Relu", zshift=60)),
    ("depthwise 3x3, ReLU6 clamping at Q(6)", lambda n: n.conv(4, 3, group=4, act="Clip",
                                                               clip=(0.0, 0.5))),
    ("Gemm with bias", lambda n: (n.flatten(), n.gemm(9))),
    ("MatMul per column", lambda n: (n.flatten(), n.matmul(6))),
    ("Add", lambda n: n.add(("xq", "a_s", "a_z"))),
]


@pytest.mark.parametrize("build", [b for _, b in QDQ_LAYERS], ids=[n for n, _ in QDQ_LAYERS])
def test_qdq_layer_within_a_step_of_the_float_graph(build):
    """One fused layer: equal to its integer operator, within one step of
    the float QDQ graph (whose rounding order ONNX leaves open), and run
    literally (the default), within one step too."""
    x = f32(1, 4, 7, 7, lo=-3.0, hi=3.0)
    net = QdqNet(x)
    build(net)
    qdq, qop = net.models()
    exact = ref.run(qop, {"x": x})[0]
    flt = ref.run(qdq, {"x": x})[0].astype(np.int32)
    for dev, opts in (("cpu", {}), (DEVICE, {"qpu_all": True})):
        with qpu.nn.load(qdq, device=dev, qdq_int8=True, **opts) as net_:
            np.testing.assert_array_equal(net_.run(x)[0], exact)
    assert np.abs(exact.astype(np.int32) - flt).max() <= 1
    with qpu.nn.load(qdq) as net_:
        assert np.abs(net_.run(x)[0].astype(np.int32) - flt).max() <= 1


def _one_conv(mutate):
    """DQ(x) -> Conv(DQ(w), DQ(b)) -> Q, as quantize_static writes it, changed by
    `mutate(nodes, inits)`; the model and its input."""
    x = f32(1, 4, 6, 6)
    inits = {"xs": np.float32(0.02), "xz": np.int8(3), "w": rng.integers(-127, 128, (5, 4, 3, 3)).astype(np.int8),
             "ws": rng.uniform(0.002, 0.02, 5).astype(np.float32), "wz": np.zeros(5, np.int8),
             "b": rng.integers(-500, 500, 5).astype(np.int32), "ys": np.float32(0.05),
             "yz": np.int8(-5)}
    inits["bs"] = (inits["xs"] * inits["ws"]).astype(np.float32)
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dqx"),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0, name="dqw"),
             helper.make_node("DequantizeLinear", ["b", "bs"], ["bd"], axis=0, name="dqb"),
             helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["y"], name="qy")]
    outs = ["y"]
    mutate(nodes, inits, outs)
    return make_model(nodes, {"x": x}, outs, inits), x


def _set(name, **kw):
    def mutate(nodes, inits, outs):
        inits.update(kw)
    return mutate


def _insert_act(op, **attrs):
    def mutate(nodes, inits, outs):
        nodes[4].output[0] = "c0"
        nodes.insert(5, helper.make_node(op, ["c0"], ["c"], name="act", **attrs))
    return mutate


def _also_read(nodes, inits, outs):
    nodes.append(helper.make_node("Sigmoid", ["c"], ["side"], name="side"))
    outs.append("side")


def _dq_shared(nodes, inits, outs):
    nodes.append(helper.make_node("MaxPool", ["xd"], ["pool"], kernel_shape=[2, 2], name="pool"))
    outs.append("pool")


def _w_axis1(nodes, inits, outs):
    inits["ws4"] = rng.uniform(0.002, 0.02, 4).astype(np.float32)
    inits["wz4"] = np.zeros(4, np.int8)
    nodes[2] = helper.make_node("DequantizeLinear", ["w", "ws4", "wz4"], ["wd"], axis=1,
                                name="dqw")


def _float_bias(nodes, inits, outs):
    inits["bf"] = f32(5)
    nodes[4].input[2] = "bf"


def _q_per_axis(nodes, inits, outs):
    inits["ys5"], inits["yz5"] = np.full(5, 0.05, np.float32), np.zeros(5, np.int8)
    nodes[5] = helper.make_node("QuantizeLinear", ["c", "ys5", "yz5"], ["y"], axis=1, name="qy")


def _bias_zp(nodes, inits, outs):
    inits["bz"] = np.full(5, 1, np.int32)
    nodes[3].input.append("bz")


def _output_too(nodes, inits, outs):
    outs.append("c")


QDQ_KEPT_FLOAT = [
    ("float reader", _also_read, "its float output has 2 readers"),
    ("output", _output_too, "its float output is a graph output"),
    ("bias scale", _set("b", bs=np.full(5, 1e-4, np.float32)),
     "bias scale 0.0001 (channel 0) is not x_scale * w_scale"),
    ("bias zero point", _bias_zp, "bias's DequantizeLinear 'dqb' has a zero point other than 0"),
    ("float bias", _float_bias, "its bias is not a DequantizeLinear of int32 constants"),
    ("weights per-axis on axis 1", _w_axis1,
     "w's DequantizeLinear 'dqw' is per-axis on axis 1, not the output channels'"),
    ("Q per-axis", _q_per_axis, "QuantizeLinear 'qy' is per-axis"),
    ("LeakyRelu", _insert_act("LeakyRelu"),
     "its fused LeakyRelu is not exact on integers (Relu and Clip are)"),
    ("Sigmoid", _insert_act("Sigmoid"), "its fused Sigmoid is not exact on integers"),
]


@pytest.mark.parametrize("mutate,reason", [c[1:] for c in QDQ_KEPT_FLOAT],
                         ids=[c[0] for c in QDQ_KEPT_FLOAT])
def test_qdq_pattern_kept_float(mutate, reason):
    """A pattern the integer operator would not run exactly stays float:
    the plan says why, and the result is the literal graph's."""
    model, x = _one_conv(mutate)
    want = ref.run(model, {"x": x})
    with qpu.nn.load(model, qdq_int8=True) as net:
        got = net.run(x)
        conv = [p for p in net.plan() if p["name"] == "conv"][0]
    assert conv["op"] == "Conv" and "QDQ kept float: " + reason in conv["why"], conv
    for g, w in zip(got, want):
        if g.dtype == np.int8:
            assert np.abs(g.astype(np.int32) - w).max() <= 1
        else:
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_qdq_shared_dequantize():
    """x's DequantizeLinear also feeds a float MaxPool: the Conv is fused (it
    reads the integers), the DequantizeLinear stays for the MaxPool."""
    model, x = _one_conv(_dq_shared)
    with qpu.nn.load(model, qdq_int8=True) as net:
        y, pool = net.run(x)
        plan = {p["name"]: p for p in net.plan()}
    assert plan["conv"]["op"] == "QLinearConv" and plan["qy"]["where"] == "fused"
    assert plan["dqx"]["where"] == "cpu"
    want = ref.run(model, {"x": x})
    np.testing.assert_array_equal(pool, want[1])
    assert np.abs(y.astype(np.int32) - want[0]).max() <= 1


QDQ_REFUSALS = [
    (_set("s", xs=np.float32(0)), "node 'qx' (QuantizeLinear): y_scale[0] is 0: a scale must be "
     "finite and not 0"),
    (_set("s", ws=np.array([0.01, 0.01, 0, 0.01, 0.01], np.float32)),
     "node 'dqw' (DequantizeLinear): x_scale[2] is 0"),
    (_set("s", ys=np.float32(np.inf)), "node 'qy' (QuantizeLinear): y_scale[0] is inf"),
    (_set("s", ws=np.full(4, 0.01, np.float32), wz=np.zeros(4, np.int8)),
     "node 'dqw' (DequantizeLinear): x_scale has 4 values: per-tensor (1) or per-channel (5)"),
    (lambda nodes, inits, outs: nodes.__setitem__(2, helper.make_node(
        "DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=7, name="dqw")),
     "node 'dqw' (DequantizeLinear): axis 7 out of range for rank 4"),
    (lambda nodes, inits, outs: nodes[1].attribute.extend([helper.make_attribute("saturate", 1)]),
     "node 'dqx' (DequantizeLinear): attribute saturate not supported"),
    (lambda nodes, inits, outs: nodes.__setitem__(3, helper.make_node(
        "DequantizeLinear", ["b", "bs"], ["bd"], axis="a", name="dqb")),
     "node 'dqb' (DequantizeLinear): attribute axis"),
    (_set("z", wz=np.zeros(5, np.uint8)),
     "node 'dqw' (DequantizeLinear): x_zero_point is uint8, not int8"),
]


@pytest.mark.parametrize("mutate,msg", QDQ_REFUSALS, ids=[m[:48] for _, m in QDQ_REFUSALS])
def test_qdq_refusal(mutate, msg):
    model, _ = _one_conv(mutate)
    with pytest.raises(qpu.nn.NnError) as e:
        qpu.nn.load(model)
    assert msg in str(e.value)


def qdq_quantize(model, x, ops=("Conv", "Gemm", "GlobalAveragePool", "Softmax")):
    """A float model written as quantize_static writes it in QDQ form: each
    activation read by an operator of `ops` quantized per tensor (int8,
    asymmetric, calibrated on input `x` by the numpy reference) with a
    QuantizeLinear and DequantizeLinear pair; Conv and Gemm weights int8 per
    output channel (symmetric), their biases int32 of scale x_scale * w_scale."""
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    acts = []
    for node in g.node:
        if node.op_type in ops and node.input[0] not in inits and node.input[0] not in acts:
            acts.append(node.input[0])
    del probe.graph.output[:]
    probe.graph.output.extend([helper.make_tensor_value_info(a, F, None) for a in acts])
    ranges = {a: (min(float(v.min()), 0.0), max(float(v.max()), 0.0))
              for a, v in zip(acts, ref.run(probe, {g.input[0].name: x}))}
    new_inits, nodes, qparams = dict(inits), [], {}
    for a in acts:
        lo, hi = ranges[a]
        s = np.float32(max(hi - lo, 1e-6) / 255.0)
        qparams[a] = (s, np.int8(np.clip(np.rint(-128 - lo / s), -128, 127)))
        new_inits[a + "_s"], new_inits[a + "_z"] = qparams[a]

    def dq_pair(a):
        return [helper.make_node("QuantizeLinear", [a, a + "_s", a + "_z"], [a + "_q"],
                                 name=a + "_quant"),
                helper.make_node("DequantizeLinear", [a + "_q", a + "_s", a + "_z"], [a + "_dq"],
                                 name=a + "_dequant")]

    if g.input[0].name in qparams:
        nodes += dq_pair(g.input[0].name)
    for node in g.node:
        node = onnx.NodeProto.FromString(node.SerializeToString())
        if node.op_type in ops and node.input[0] in qparams:
            a = node.input[0]
            if node.op_type in ("Conv", "Gemm"):
                w = inits[node.input[1]]
                ws = (np.abs(w.reshape(w.shape[0], -1)).max(axis=1) / 127.0).astype(np.float32)
                ws = np.maximum(ws, np.float32(1e-8))
                wq = np.clip(np.rint(w / ws.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127)
                wn = node.input[1]
                new_inits[wn + "_q"], new_inits[wn + "_s"] = wq.astype(np.int8), ws
                new_inits[wn + "_z"] = np.zeros(len(ws), np.int8)
                nodes.append(helper.make_node("DequantizeLinear", [wn + "_q", wn + "_s", wn + "_z"],
                                              [wn + "_dq"], axis=0, name=wn + "_dequant"))
                node.input[1] = wn + "_dq"
                if len(node.input) > 2 and node.input[2]:
                    bn = node.input[2]
                    bs = (qparams[a][0] * ws).astype(np.float32)
                    new_inits[bn + "_q"] = np.rint(inits[bn] / bs).astype(np.int32)
                    new_inits[bn + "_s"] = bs
                    nodes.append(helper.make_node("DequantizeLinear", [bn + "_q", bn + "_s"],
                                                  [bn + "_dq"], axis=0, name=bn + "_dequant"))
                    node.input[2] = bn + "_dq"
            node.input[0] = a + "_dq"
        nodes.append(node)
        for o in node.output:
            if o in qparams:
                nodes += dq_pair(o)
    used = {i for n in nodes for i in n.input}
    out = helper.make_graph(nodes, g.name, g.input, g.output,
                            [numpy_helper.from_array(np.asarray(v), k)
                             for k, v in new_inits.items() if k in used])
    return helper.make_model(out, opset_imports=model.opset_import)


def test_qdq_quantized_mobilenet_like():
    """A float MobileNet-like stack quantized as quantize_static would:
    every Conv and the Gemm fused into integer operators (ReLU6 clamps),
    within one step per layer of the literal float graph, so the
    probabilities close to it; the plan saying what stayed float and why."""
    model = mobilenet_v1(width=0.25, res=32, classes=64, blocks=MOBILENET_V1[:4])
    x = f32(1, 3, 32, 32)
    qdq = qdq_quantize(model, x)
    qdq.graph.output.append(helper.make_tensor_value_info("logits_q", TensorProto.INT8, None))
    with qpu.nn.load(qdq, device=DEVICE, qpu_all=True, qdq_int8=True) as net:
        fused = net.run(x)
        plan = net.plan()
    with qpu.nn.load(qdq) as net:
        literal = net.run(x)
    ops = [p["op"] for p in plan if p["where"] not in ("fused", "folded", "view")]
    assert ops.count("QLinearConv") == 9 and ops.count("QLinearMatMul") == 1, ops
    assert "Conv" not in ops and "Gemm" not in ops
    assert all(p["fused"] == "Clip, QuantizeLinear" for p in plan if p["op"] == "QLinearConv")
    # the depthwise ones too, on the generation's byte program
    convs = [p for p in plan if p["op"] == "QLinearConv"]
    assert [p["where"] for p in convs] == ["qpu"] * 9, convs
    # the logits' integers: spread over the range, the fused and the literal
    # ones a step apart at most, as are the literal and the numpy reference
    want = ref.run(qdq, {"x": x})[1].astype(np.int32)
    assert want.max() - want.min() > 100
    assert np.abs(fused[1].astype(np.int32) - literal[1]).max() <= 1
    assert np.abs(literal[1].astype(np.int32) - want).max() <= 1
    np.testing.assert_allclose(fused[0], literal[0], rtol=0.1)


def test_batch_and_nhwc_io():
    model = mobilenet_v1(width=0.25, res=16, classes=5, blocks=[(64, 1), (128, 2)])
    x = f32(1, 3, 16, 16)
    with qpu.nn.load(model) as net, qpu.nn.load(model, layouts={"inputs": ["nhwc"]}) as nhwc:
        a = net.run(x)[0]
        assert nhwc.inputs[0]["shape"] == (1, 16, 16, 3)
        np.testing.assert_allclose(nhwc.run(x.transpose(0, 2, 3, 1))[0], a, rtol=1e-6)
    xb = f32(3, 8, 5, 5)
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])
    run_all(make_model([node], {"x": xb}, ["y"], {"w": f32(16, 8, 3, 3)}), {"x": xb})


@pytest.mark.parametrize("width", [0.25])
def test_mobilenet_v1_224(width):
    """MobileNet v1 at 224x224 on the CPU backend against the numpy
    reference; 0.5 and 1.0 run in make check-nn-long (QPU_NN_LONG=1)."""
    model = mobilenet_v1(width=width)
    x = f32(1, 3, 224, 224)
    want = ref.run(model, {"x": x})[0]
    with qpu.nn.load(model) as net:
        got = net.run(x)[0]
        macs = sum(p["macs"] for p in net.plan())
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    # counted from the ONNX shapes (onnx.shape_inference) outside the test
    assert macs == {0.25: 41_030_272, 0.5: 149_497_088, 1.0: 568_740_352}[width]


@pytest.mark.skipif(not os.environ.get("QPU_NN_LONG"), reason="make check-nn-long")
@pytest.mark.parametrize("width", [0.5, 1.0])
def test_mobilenet_v1_224_long(width):
    model = mobilenet_v1(width=width)
    x = f32(1, 3, 224, 224)
    want = ref.run(model, {"x": x})[0]
    for dev, opts in (("cpu", {}), (DEVICE, {"qpu_all": True})):
        with qpu.nn.load(model, device=dev, **opts) as net:
            np.testing.assert_allclose(net.run(x)[0], want, rtol=1e-4, atol=1e-6)


# --- refusals -------------------------------------------------------------------------------

REFUSALS = [
    (helper.make_node("Conv", ["x", "w"], ["y"], dilations=[2, 2]), {"w": f32(2, 3, 3, 3)},
     "node 'n' (Conv): dilations 2,2 not supported (only 1)"),
    (helper.make_node("Conv", ["x", "w"], ["y"], group=2), {"w": f32(2, 3, 3, 3)},
     "node 'n' (Conv): group 2 does not divide"),
    (helper.make_node("Conv", ["x", "w"], ["y"], foo=1), {"w": f32(2, 3, 3, 3)},
     "node 'n' (Conv): attribute foo not supported"),
    (helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_SIDEWAYS"), {"w": f32(2, 3, 3, 3)},
     "auto_pad SAME_SIDEWAYS not supported"),
    (helper.make_node("LSTM", ["x", "w"], ["y"]), {"w": f32(1)},
     "node 'n' (LSTM): operator not supported"),
    (helper.make_node("MaxPool", ["x"], ["y", "idx"], kernel_shape=[2, 2]), {},
     "node 'n' (MaxPool): the Indices output is not supported"),
    (helper.make_node("MaxPool", ["x"], ["y"]), {},
     "node 'n' (MaxPool): kernel_shape (2 values) is needed"),
    (helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], storage_order=1), {},
     "storage_order 1 not supported"),
    (helper.make_node("Resize", ["x", "", "s"], ["y"], mode="cubic"),
     {"s": np.array([1, 1, 2, 2], np.float32)}, "node 'n' (Resize): mode cubic not supported"),
    (helper.make_node("Resize", ["x", "", "s"], ["y"],
                      coordinate_transformation_mode="tf_crop_and_resize"),
     {"s": np.array([1, 1, 2, 2], np.float32)},
     "coordinate_transformation_mode tf_crop_and_resize not supported"),
    (helper.make_node("Resize", ["x", "", "s"], ["y"]),
     {"s": np.array([1, 2, 2, 2], np.float32)}, "only H and W may be resized"),
    (helper.make_node("Resize", ["x", "", "s"], ["y"], exclude_outside=1),
     {"s": np.array([1, 1, 2, 2], np.float32)}, "exclude_outside 1 not supported"),
    (helper.make_node("Reshape", ["x", "x"], ["y"]), {},
     "node 'n' (Reshape): shape must be a constant 1-D int64 tensor"),
    (helper.make_node("Reshape", ["x", "s"], ["y"]), {"s": np.array([7, -1], np.int64)},
     "elements do not reshape"),
    (helper.make_node("Transpose", ["x"], ["y"], perm=[0, 1, 1, 2]), {},
     "perm is not a permutation"),
    (helper.make_node("Concat", ["x", "x"], ["y"]), {}, "attribute axis is needed"),
    (helper.make_node("Concat", ["x", "x"], ["y"], axis=4), {}, "axis 4 out of range"),
    (helper.make_node("Gemm", ["x", "x"], ["y"]), {}, "A has rank 4, only 2 is supported"),
    (helper.make_node("MatMul", ["x", "b"], ["y"]), {"b": f32(5, 2)}, "A has 6 columns, B 5 rows"),
    (helper.make_node("Clip", ["x", "x"], ["y"]), {}, "min must be a float constant scalar"),
    (helper.make_node("Add", ["x", "b"], ["y"]), {"b": np.int64(1)}, "A is float, B int64"),
    (helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"]),
     {"s": np.float32(1), "z": np.int32(0)}, "y_zero_point is int32, not int8 or uint8"),
    (helper.make_node("QuantizeLinear", ["x", "s"], ["y"]), {"s": np.ones(5, np.float32)},
     "y_scale has 5 values: per-tensor (1) or per-channel (3) only"),
    (helper.make_node("DequantizeLinear", ["x", "s"], ["y"]), {"s": np.float32(1)},
     "x must be int8, uint8 or int32"),
    (helper.make_node("QLinearAdd", ["x"] * 8, ["y"]), {},
     "node 'n' (QLinearAdd): domain '' not supported ('com.microsoft')"),
    (helper.make_node("Softmax", ["x"], ["y"], axis=9), {}, "axis 9 out of range for rank 4"),
]


@pytest.mark.parametrize("node,inits,msg", REFUSALS, ids=[r[2][:40] for r in REFUSALS])
def test_refusal(node, inits, msg):
    node.name = "n"
    model = make_model([node], {"x": f32(1, 3, 4, 6)}, [node.output[0]], inits)
    with pytest.raises(qpu.nn.NnError) as e:
        qpu.nn.load(model)
    assert msg in str(e.value)


def test_refusal_of_symbolic_dimension_and_its_fix():
    node = helper.make_node("Relu", ["x"], ["y"])
    g = helper.make_graph([node], "t", [helper.make_tensor_value_info("x", F, ["N", 3])],
                          [helper.make_tensor_value_info("y", F, None)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(qpu.nn.NnError, match="input 'x': a dimension not known at load"):
        qpu.nn.load(model)
    with qpu.nn.load(model, shapes={"x": (2, 3)}) as net:
        assert net.run(np.array([[-1, 2, -3], [4, -5, 6]], np.float32))[0].tolist() == \
            [[0, 2, 0], [4, 0, 6]]


def test_refusal_of_float16_and_tensor_attributes():
    node = helper.make_node("Add", ["x", "h"], ["y"])
    model = make_model([node], {"x": f32(2)}, ["y"], {"h": np.ones(2, np.float16)})
    with pytest.raises(qpu.nn.NnError, match="input 'h' is of element type 10, not supported"):
        qpu.nn.load(model)
    node = helper.make_node("Relu", ["x"], ["y"], t=numpy_helper.from_array(f32(1)))
    with pytest.raises(qpu.nn.NnError, match="attribute t not supported"):
        qpu.nn.load(make_model([node], {"x": f32(2)}, ["y"]))


# --- the converter and the file --------------------------------------------------------------

def test_convert_and_load_qnn(tmp_path):
    model = mobilenet_v1(width=0.25, res=16, classes=5, blocks=[(64, 1)])
    src, dst = tmp_path / "m.onnx", tmp_path / "m.qnn"
    onnx.save(model, str(src))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(qpu.nn.__file__)))
    r = subprocess.run([sys.executable, "-m", "qpu.nn", "convert", str(src), str(dst)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    image = dst.read_bytes()
    assert image[:8] == b"QPUNN\r\n\x1a" and image[-4:] == b"QEND"
    # compact: the constants' bytes and little more
    weights = sum(numpy_helper.to_array(i).nbytes for i in model.graph.initializer)
    assert len(image) < weights + 4096
    x = f32(1, 3, 16, 16)
    with qpu.nn.load(str(dst)) as a, qpu.nn.load(model) as b:
        np.testing.assert_array_equal(a.run(x)[0], b.run(x)[0])
    bad = tmp_path / "bad.onnx"
    onnx.save(make_model([helper.make_node("LSTM", ["x"], ["y"], name="rnn")],
                         {"x": f32(2)}, ["y"]), str(bad))
    r = subprocess.run([sys.executable, "-m", "qpu.nn", "convert", str(bad), str(dst)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "node 'rnn' (LSTM): operator not supported" in r.stderr
    r = subprocess.run([sys.executable, "-m", "qpu.nn", "convert", str(src)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr


def test_truncated_qnn_is_an_error():
    image = nn_convert.to_qnn(mobilenet_v1(width=0.25, res=16, classes=5,
                                                  blocks=[(64, 1)]))
    for n in list(range(0, 200)) + list(range(200, len(image), 997)):
        with pytest.raises(qpu.nn.NnError, match="malformed or truncated|no magic"):
            qpu.nn.Graph(image[:n])
    with pytest.raises(qpu.nn.NnError, match="malformed or truncated"):
        qpu.nn.Graph(image + b"x")


def test_run_errors():
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": f32(2, 2)}, ["y"])
    with qpu.nn.load(model) as net:
        with pytest.raises(qpu.nn.NnError, match="shape"):
            net.run(f32(3))
        with pytest.raises(qpu.nn.NnError, match="missing"):
            net.run()
        with pytest.raises(qpu.nn.NnError, match="no input 'z'"):
            net.run(f32(2, 2), z=1)
    with pytest.raises(qpu.nn.NnError, match="closed"):
        net.run(f32(2, 2))


@pytest.mark.host_only
def test_package_copy_of_qpu_nn_h(tmp_path):
    """qpu/nn.py's copy of <qpu_nn.h>: numbers, struct sizes and offsets."""
    import ctypes
    from test_abi import check_against_headers
    pairs = [("QPU_NN_BIND_CPU_ONLY", qpu.nn.BIND_CPU_ONLY),
             ("QPU_NN_BIND_REFERENCE", qpu.nn.BIND_REFERENCE),
             ("QPU_NN_BIND_QPU_ALL", qpu.nn.BIND_QPU_ALL),
             ("QPU_NN_BIND_NO_XNNPACK", qpu.nn.BIND_NO_XNNPACK),
             ("QPU_NN_BIND_QDQ_INT8", qpu.nn.BIND_QDQ_INT8),
             ("QPU_NN_NHWC", qpu.nn.LAYOUT_NHWC), ("QPU_NN_MAX_RANK", qpu.nn.MAX_RANK)]
    pairs += [("QPU_NN_%s" % n, v) for v, n in ((1, "FLOAT32"), (2, "UINT8"), (3, "INT8"),
                                                (6, "INT32"), (7, "INT64"))]
    for v, name in qpu.nn.WHERE_NAMES.items():
        pairs.append(("QPU_NN_WHERE_%s" % name.upper().replace("-", "_"), v))
    for cname, cls in (("qpu_nn_tensor_info", qpu.nn.TensorInfo),
                       ("qpu_nn_node_info", qpu.nn.NodeInfo)):
        pairs.append(("sizeof(struct %s)" % cname, ctypes.sizeof(cls)))
        pairs += [("offsetof(struct %s, %s)" % (cname, f), getattr(cls, f).offset)
                  for f, _ in cls._fields_]
    check_against_headers(tmp_path, ("qpu_nn.h",), pairs)
