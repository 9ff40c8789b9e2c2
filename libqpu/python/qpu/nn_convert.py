# SPDX-License-Identifier: MIT
"""ONNX models to the .qnn format (libqpu/nn/FORMAT.md), through Debian's
python3-onnx. The converter judges nothing: it writes the graph as ONNX
has it (operators, attributes, constants) and libqpu refuses at load what
it cannot run, naming the node, its operator and what is missing.

Constant nodes become constants; a graph input of a symbolic dimension
keeps -1 unless `shapes` gives it ({"input": (1, 3, 224, 224)}).
"""

import struct

import numpy as np

MAGIC = b"QPUNN\r\n\x1a"
END = b"QEND"
MAJOR, MINOR = 1, 0
EMPTY = 0xFFFFFFFF
# ONNX AttributeProto types the format carries; others are written as
# skipped bytes and refused by the library.
ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_FLOATS, ATTR_INTS = 1, 2, 3, 6, 7
# numpy types of the element types the library reads (ONNX's numbers)
DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64}


class ConvertError(ValueError):
    """The model cannot be written (not what it cannot run: that is the
    library's refusal at load)."""


def _str(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    if len(b) > 0xFFFF or b"\0" in b:
        raise ConvertError("name too long or with a NUL: %r" % s[:40])
    return struct.pack("<H", len(b)) + b


def _onnx():
    try:
        import onnx  # noqa: F401  (Debian: python3-onnx)
        from onnx import numpy_helper
    except ImportError as e:
        raise ImportError("qpu.nn reads ONNX through python3-onnx "
                          "(apt-get install python3-onnx)") from e
    return onnx, numpy_helper


def _tensor_record(name, dtype, dims, data=None):
    out = _str(name) + struct.pack("<BB", dtype, len(dims))
    out += b"".join(struct.pack("<q", int(d)) for d in dims)
    if data is None:
        return out + b"\0"
    return out + b"\1" + struct.pack("<Q", len(data)) + data


def _array_bytes(arr, dtype):
    np_type = DTYPES.get(dtype)
    if np_type is None:
        return b""
    return np.ascontiguousarray(arr, dtype=np.dtype(np_type).newbyteorder("<")).tobytes()


def _attr_record(a, onnx):
    t = onnx.AttributeProto
    out = _str(a.name)
    if a.type == t.FLOAT:
        return out + struct.pack("<Bf", ATTR_FLOAT, a.f)
    if a.type == t.INT:
        return out + struct.pack("<Bq", ATTR_INT, a.i)
    if a.type == t.STRING:
        return out + struct.pack("<B", ATTR_STRING) + _str(a.s)
    if a.type == t.FLOATS:
        return out + struct.pack("<BI", ATTR_FLOATS, len(a.floats)) + \
            b"".join(struct.pack("<f", v) for v in a.floats)
    if a.type == t.INTS:
        return out + struct.pack("<BI", ATTR_INTS, len(a.ints)) + \
            b"".join(struct.pack("<q", v) for v in a.ints)
    return out + struct.pack("<BI", a.type & 0xFF, 0)


def _constant_value(node, numpy_helper):
    """The array of a Constant node, or None for a kind not handled."""
    for a in node.attribute:
        if a.name == "value":
            return numpy_helper.to_array(a.t), a.t.data_type
        if a.name == "value_float":
            return np.array(a.f, np.float32), 1
        if a.name == "value_floats":
            return np.array(a.floats, np.float32), 1
        if a.name == "value_int":
            return np.array(a.i, np.int64), 7
        if a.name == "value_ints":
            return np.array(a.ints, np.int64), 7
    return None


def to_qnn(model, shapes=None):
    """The .qnn image (bytes) of an ONNX model (a ModelProto, a path or
    bytes)."""
    onnx, numpy_helper = _onnx()
    if isinstance(model, (bytes, bytearray)):
        model = onnx.load_from_string(bytes(model))
    elif not isinstance(model, onnx.ModelProto):
        model = onnx.load(model)
    shapes = dict(shapes or {})
    opset = 0
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            opset = imp.version
    graph = model.graph
    index = {}
    records = []

    def add(name, dtype, dims, data=None):
        if name in index:
            raise ConvertError("tensor %r is defined twice" % name)
        index[name] = len(records)
        records.append(_tensor_record(name, dtype, dims, data))

    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        add(init.name, init.data_type, arr.shape, _array_bytes(arr, init.data_type))
    inputs = []
    for vi in graph.input:
        if vi.name in index:
            continue  # an initializer listed as an input (IR < 4)
        tt = vi.type.tensor_type
        if vi.name in shapes:
            dims = list(shapes.pop(vi.name))
        else:
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim]
        add(vi.name, tt.elem_type, dims)
        inputs.append(index[vi.name])
    if shapes:
        raise ConvertError("shapes given for inputs the model does not have: %s"
                           % ", ".join(sorted(shapes)))
    nodes = []
    count = 0
    for i, node in enumerate(graph.node):
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            value = _constant_value(node, numpy_helper)
            if value is None:
                raise ConvertError("Constant node %r: value kind not supported"
                                   % (node.name or node.output[0]))
            arr, dtype = value
            add(node.output[0], dtype, arr.shape, _array_bytes(arr, dtype))
            continue
        for name in node.output:
            if name and name not in index:
                add(name, 0, [])  # shaped and typed at load
        ins = []
        for name in node.input:
            if not name:
                ins.append(EMPTY)
            elif name in index:
                ins.append(index[name])
            else:
                raise ConvertError("node %r (%s): input %r is made by no node before it"
                                   % (node.name, node.op_type, name))
        outs = [index[name] if name else EMPTY for name in node.output]
        if len(ins) > 64 or len(outs) > 64 or len(node.attribute) > 256:
            raise ConvertError("node %r: too many inputs, outputs or attributes" % node.name)
        rec = _str(node.name or "%s_%d" % (node.op_type, i)) + _str(node.op_type) + \
            _str(node.domain)
        rec += struct.pack("<B", len(ins)) + b"".join(struct.pack("<I", v) for v in ins)
        rec += struct.pack("<B", len(outs)) + b"".join(struct.pack("<I", v) for v in outs)
        rec += struct.pack("<H", len(node.attribute))
        rec += b"".join(_attr_record(a, onnx) for a in node.attribute)
        nodes.append(rec)
        count += 1
    outputs = []
    for vi in graph.output:
        if vi.name not in index:
            raise ConvertError("output %r is made by no node" % vi.name)
        outputs.append(index[vi.name])
    head = MAGIC + struct.pack("<HHI", MAJOR, MINOR, opset)
    head += struct.pack("<IIII", len(records), len(nodes), len(inputs), len(outputs))
    body = b"".join(records)
    body += b"".join(struct.pack("<I", v) for v in inputs)
    body += b"".join(struct.pack("<I", v) for v in outputs)
    body += b"".join(nodes)
    return head + body + END


def convert(src, dst, shapes=None):
    """Writes the .qnn form of ONNX file (or model) `src` to path `dst`."""
    data = to_qnn(src, shapes)
    with open(dst, "wb") as f:
        f.write(data)
    return len(data)
