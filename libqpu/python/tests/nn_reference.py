# SPDX-License-Identifier: MIT
"""numpy references of the ONNX operators qpu.nn runs, written from the
ONNX specification (Debian's onnx 1.12 has no onnx.reference), and a
runner of a whole onnx.helper graph through them.

Integer operators follow the specification's rounding: the real result
rounded half to even (np.rint), then saturated; the requantization
multiplier of QLinearConv and QLinearMatMul is the float32
x_scale * w_scale / y_scale and the product with the int32 accumulator is
in float64, as numpy promotes int32 * float32."""

import numpy as np
from onnx import numpy_helper


def _pads(attrs, x_hw, k):
    s = attrs.get("strides", [1, 1])
    pads = list(attrs.get("pads", [0, 0, 0, 0]))
    auto = attrs.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        for i in range(2):
            out = -(-x_hw[i] // s[i])
            total = max((out - 1) * s[i] + k[i] - x_hw[i], 0)
            lo = total // 2 if auto == "SAME_UPPER" else total - total // 2
            pads[i], pads[i + 2] = lo, total - lo
    elif auto == "VALID":
        pads = [0, 0, 0, 0]
    return s, pads


def _windows(x, k, s, pads, fill):
    """(N, C, OH, OW, KH, KW) windows of a padded NCHW x."""
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                constant_values=fill)
    n, c, h, w = xp.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    st = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp, (n, c, oh, ow, k[0], k[1]),
        (st[0], st[1], st[2] * s[0], st[3] * s[1], st[2], st[3]))


def conv_int_or_float(x, w, b, attrs):
    g = attrs.get("group", 1)
    k = w.shape[2:]
    s, pads = _pads(attrs, x.shape[2:], k)
    win = _windows(x, k, s, pads, 0)
    m, cg = w.shape[0], w.shape[1]
    outs = []
    for gi in range(g):
        xs = win[:, gi * cg:(gi + 1) * cg]
        ws = w[gi * (m // g):(gi + 1) * (m // g)]
        outs.append(np.einsum("ncyxij,mcij->nmyx", xs, ws, dtype=x.dtype))
    y = np.concatenate(outs, axis=1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def requant(acc, mult, zp, dtype):
    r = acc.astype(np.int32) * mult + np.float64(zp)
    info = np.iinfo(dtype)
    return np.clip(np.rint(r), info.min, info.max).astype(dtype)


def _q(arr):
    return None if arr is None else np.asarray(arr)


def op(node, ins, opset=13):
    """The outputs of one node (a NodeProto) on numpy inputs (None: empty)."""
    a = {}
    for at in node.attribute:
        from onnx import helper
        a[at.name] = helper.get_attribute_value(at)
    t = node.op_type
    x = ins[0]
    if t == "Conv":
        return [conv_int_or_float(x.astype(np.float64), ins[1].astype(np.float64),
                                  ins[2] if len(ins) > 2 else None, a).astype(np.float32)]
    if t == "QLinearConv":
        xz = ins[2] if ins[2] is not None else 0
        wz = ins[5] if ins[5] is not None else np.zeros(1, ins[3].dtype)
        m = ins[3].shape[0]
        xi = x.astype(np.int64) - np.int64(xz)
        wi = ins[3].astype(np.int64) - np.broadcast_to(np.asarray(wz, np.int64).reshape(-1),
                                                       (m,)).reshape(-1, 1, 1, 1)
        acc = conv_int_or_float(xi, wi, ins[8] if len(ins) > 8 else None, a)
        mult = (np.float32(ins[1]) * np.asarray(ins[4], np.float32)) / np.float32(ins[6])
        mult = np.broadcast_to(mult.reshape(-1), (m,)).reshape(1, -1, 1, 1)
        yz = ins[7] if len(ins) > 7 and ins[7] is not None else np.uint8(0)
        return [requant(acc, mult.astype(np.float32), yz, np.asarray(yz).dtype)]
    if t == "Gemm":
        A = x.T if a.get("transA", 0) else x
        B = ins[1].T if a.get("transB", 0) else ins[1]
        y = np.float32(a.get("alpha", 1.0)) * (A.astype(np.float64) @ B)
        if len(ins) > 2 and ins[2] is not None:
            y = y + np.float32(a.get("beta", 1.0)) * ins[2]
        return [y.astype(np.float32)]
    if t == "MatMul":
        return [np.matmul(x.astype(np.float64), ins[1]).astype(np.float32)]
    if t == "QLinearMatMul":
        az = np.int64(ins[2] if ins[2] is not None else 0)
        bz = np.asarray(ins[5] if ins[5] is not None else 0, np.int64)
        acc = np.matmul(x.astype(np.int64) - az, ins[3].astype(np.int64) - bz)
        mult = (np.float32(ins[1]) * np.asarray(ins[4], np.float32)) / np.float32(ins[6])
        yz = ins[7] if ins[7] is not None else np.uint8(0)
        return [requant(acc, mult.astype(np.float32), yz, np.asarray(yz).dtype)]
    if t in ("MaxPool", "AveragePool"):
        k = a["kernel_shape"]
        s, pads = _pads(a, x.shape[2:], k)
        ceil = a.get("ceil_mode", 0)
        h, w = x.shape[2:]
        oh = [(h + pads[0] + pads[2] - k[0]) // s[0] + 1, (w + pads[1] + pads[3] - k[1]) // s[1] + 1]
        extra = [0, 0]
        if ceil:
            for i, size in enumerate((h, w)):
                span = size + pads[i] + pads[i + 2] - k[i]
                o = -(-span // s[i]) + 1
                if (o - 1) * s[i] >= size + pads[i]:
                    o -= 1
                extra[i] = max(0, (o - 1) * s[i] + k[i] - (size + pads[i] + pads[i + 2]))
                oh[i] = o
        pp = [pads[0], pads[1], pads[2] + extra[0], pads[3] + extra[1]]
        fill = -np.inf if t == "MaxPool" else 0.0
        win = _windows(x, k, s, pp, fill)[:, :, :oh[0], :oh[1]]
        if t == "MaxPool":
            return [win.max(axis=(4, 5)).astype(np.float32)]
        ones = np.ones((1, 1) + x.shape[2:], np.float32)
        if a.get("count_include_pad", 0):  # pads count, the ceil_mode overhang does not
            ones = np.pad(ones, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                          constant_values=1.0)
            cnt = _windows(ones, k, s, [0, 0, extra[0], extra[1]], 0)
        else:
            cnt = _windows(ones, k, s, pp, 0)
        cnt = cnt[:, :, :oh[0], :oh[1]].sum(axis=(4, 5))
        return [(win.sum(axis=(4, 5), dtype=np.float64) / cnt).astype(np.float32)]
    if t == "GlobalAveragePool":
        return [x.mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(np.float32)]
    if t == "Relu":
        return [np.maximum(x, 0)]
    if t == "Clip":
        lo = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("min", -np.inf)
        hi = ins[2] if len(ins) > 2 and ins[2] is not None else a.get("max", np.inf)
        return [np.clip(x, lo, hi).astype(x.dtype)]  # Clip keeps its input type
    if t == "Sigmoid":
        return [(1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)]
    if t == "LeakyRelu":
        return [np.where(x >= 0, x, np.float32(a.get("alpha", 0.01)) * x).astype(np.float32)]
    if t == "HardSwish":
        return [(x * np.clip(x / 6.0 + 0.5, 0, 1)).astype(np.float32)]
    if t == "Add":
        return [x + ins[1]]
    if t == "Mul":
        return [x * ins[1]]
    if t == "QLinearAdd":
        va = (ins[0].astype(np.int32) - np.int32(ins[2])).astype(np.float32) * np.float32(ins[1])
        vb = (ins[3].astype(np.int32) - np.int32(ins[5])).astype(np.float32) * np.float32(ins[4])
        q = np.rint((va + vb) / np.float32(ins[6])) + np.float32(ins[7])
        info = np.iinfo(np.asarray(ins[7]).dtype)
        return [np.clip(q, info.min, info.max).astype(np.asarray(ins[7]).dtype)]
    if t == "Concat":
        return [np.concatenate(ins, axis=a["axis"])]
    if t == "Reshape":
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(ins[1])]
        return [x.reshape(shape)]
    if t == "Flatten":
        ax = a.get("axis", 1) % (x.ndim + 1) if a.get("axis", 1) < 0 else a.get("axis", 1)
        return [x.reshape(int(np.prod(x.shape[:ax])), -1)]
    if t == "Identity":
        return [x]
    if t == "Transpose":
        return [np.transpose(x, a.get("perm"))]
    if t == "Softmax":
        ax = a.get("axis", 1 if opset < 13 else -1)
        if opset < 13:
            ax = ax % x.ndim
            flat = x.reshape(int(np.prod(x.shape[:ax])), -1).astype(np.float64)
            e = np.exp(flat - flat.max(axis=1, keepdims=True))
            return [(e / e.sum(axis=1, keepdims=True)).reshape(x.shape).astype(np.float32)]
        e = np.exp(x.astype(np.float64) - x.max(axis=ax, keepdims=True))
        return [(e / e.sum(axis=ax, keepdims=True)).astype(np.float32)]
    if t == "Resize":
        return [resize(x, ins, a, opset)]
    if t == "QuantizeLinear":
        s, zp = ins[1], ins[2] if len(ins) > 2 and ins[2] is not None else np.uint8(0)
        s, zp = _per_axis(s, x, a), _per_axis(np.asarray(zp), x, a)
        info = np.iinfo(np.asarray(zp).dtype)
        q = np.rint(x.astype(np.float32) / s) + zp.astype(np.float32)
        return [np.clip(q, info.min, info.max).astype(np.asarray(zp).dtype)]
    if t == "DequantizeLinear":
        zp = ins[2] if len(ins) > 2 and ins[2] is not None else np.zeros((), x.dtype)
        s, zp = _per_axis(ins[1], x, a), _per_axis(np.asarray(zp), x, a)
        return [((x.astype(np.float32) - zp.astype(np.float32)) * s).astype(np.float32)]
    raise NotImplementedError(t)


def _per_axis(p, x, a):
    p = np.asarray(p)
    if p.size <= 1:
        return p.reshape(())
    shape = [1] * x.ndim
    shape[a.get("axis", 1)] = -1
    return p.reshape(shape)


def resize(x, ins, a, opset):
    def s(v):
        return v.decode() if isinstance(v, bytes) else v
    mode = s(a.get("mode", "nearest"))
    coord = s(a.get("coordinate_transformation_mode",
                    "asymmetric" if opset < 11 else "half_pixel"))
    nearest = s(a.get("nearest_mode", "floor" if opset < 11 else "round_prefer_floor"))
    scales_in = ins[1] if opset < 11 else (ins[2] if len(ins) > 2 else None)
    sizes = ins[3] if opset >= 11 and len(ins) > 3 else None
    h, w = x.shape[2:]
    if sizes is not None and sizes.size:
        oh, ow = int(sizes[2]), int(sizes[3])
        sh, sw = oh / h, ow / w
    else:
        sh, sw = float(scales_in[2]), float(scales_in[3])
        oh, ow = int(np.floor(h * sh)), int(np.floor(w * sw))

    def coords(n_out, n_in, scale):
        o = np.arange(n_out, dtype=np.float64)
        if coord == "asymmetric":
            return o / scale
        if coord == "align_corners":
            return np.zeros(n_out) if n_out == 1 else o * (n_in - 1) / (n_out - 1)
        if coord == "pytorch_half_pixel":
            return (o + 0.5) / scale - 0.5 if n_out > 1 else np.zeros(n_out)
        return (o + 0.5) / scale - 0.5

    ch, cw = coords(oh, h, sh), coords(ow, w, sw)
    if mode == "nearest":
        def pick(c, n):
            if nearest == "floor":
                i = np.floor(c)
            elif nearest == "ceil":
                i = np.ceil(c)
            elif nearest == "round_prefer_ceil":
                i = np.floor(c + 0.5)
            else:
                i = np.where(c == np.floor(c) + 0.5, np.floor(c), np.floor(c + 0.5))
            return np.clip(i, 0, n - 1).astype(np.int64)
        return x[:, :, pick(ch, h)][:, :, :, pick(cw, w)]
    hc, wc = np.clip(ch, 0, h - 1), np.clip(cw, 0, w - 1)
    h0, w0 = np.floor(hc).astype(np.int64), np.floor(wc).astype(np.int64)
    h1, w1 = np.minimum(h0 + 1, h - 1), np.minimum(w0 + 1, w - 1)
    fh, fw = (hc - h0)[:, None], (wc - w0)[None, :]
    xd = x.astype(np.float64)
    top = xd[:, :, h0][:, :, :, w0] * (1 - fw) + xd[:, :, h0][:, :, :, w1] * fw
    bot = xd[:, :, h1][:, :, :, w0] * (1 - fw) + xd[:, :, h1][:, :, :, w1] * fw
    return (top * (1 - fh) + bot * fh).astype(np.float32)


def run(model, feeds):
    """The outputs of an onnx ModelProto on a dict of numpy inputs."""
    opset = max((i.version for i in model.opset_import if i.domain in ("", "ai.onnx")),
                default=13)
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        if node.op_type == "Constant":
            from onnx import helper
            env[node.output[0]] = numpy_helper.to_array(
                helper.get_attribute_value(node.attribute[0]))
            continue
        ins = [env[n] if n else None for n in node.input]
        for name, val in zip(node.output, op(node, ins, opset)):
            env[name] = val
    return [env[o.name] for o in model.graph.output]
