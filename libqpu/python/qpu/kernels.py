# SPDX-License-Identifier: MIT
"""The sample kernels of <qpu_kernels.h> (struct qpu_kernels) on numpy
arrays of one device: dev.kernels.vector_add(a, b) and so on.

Operands are arrays of the device (Device.array()), used in place with no
copy, or any other array (numpy arrays, lists, views of device arrays that
are not contiguous), which is copied into device memory first: a copy,
each call. Vectors may have any length and images any number of pixels:
where a kernel works in blocks (16 floats, 64 pixels), the wrapper pads a
copy of the operands to the next block and copies the result back, so only
lengths that are not a multiple of a block lose the zero-copy path. The
wrappers of libqpu check the rest against what each kernel takes and say
what was wrong (KernelError). After each call, last_stats says what the job
did.
"""

import collections
import errno
import ctypes

import numpy as np

from . import _lib
from ._lib import lib
from .device import _device_array, _new_array
from .errors import KernelError

Reduction = collections.namedtuple("Reduction", "sum min max")

VECTOR_BLOCK = 16   # floats: <qpu_kernels.h>'s vectors are a multiple of it
PIXEL_BLOCK = 64    # pixels: and its images


def _round_up(n, block):
    return -(-n // block) * block


def _stats_dict(s):
    d = {"qpus": s.qpus, "instructions": s.instructions if s.instructions_known else None,
         "tmu_bytes": s.tmu_bytes, "uniform_bytes": s.uniform_bytes,
         "dma_load_bytes": s.dma_load_bytes, "dma_store_bytes": s.dma_store_bytes,
         "elapsed_ns": s.elapsed_ns}
    d["counters"] = ({n: getattr(s.counters, n) for n, _ in _lib.JobCounters._fields_}
                     if s.counters_known else None)
    return d


class Kernels:
    """The sample kernels on one device (Device.kernels)."""

    def __init__(self, dev):
        self._h = dev._h
        if not self._h.kernels_ptr:
            p = lib.qpu_kernels_new(self._h.check())
            if not p:
                raise MemoryError("qpu_kernels_new")
            self._h.kernels_ptr = p
        self.num_qpus = dev.num_qpus
        self.last_stats = None

    def _k(self):
        self._h.check()
        return self._h.kernels_ptr

    def _is_ours(self, a):
        buf = getattr(a, "_qpu_buffer", None) if isinstance(a, np.ndarray) else None
        return buf is not None and buf._dev is self._h

    def _operand(self, a, what, dtype, size=None, pad=0):
        """a as a contiguous device array of dtype: itself when it is one of
        this device's (zero copy) and of size elements (None: any), else a
        copy, flat and padded to size with pad (None: a's last value)."""
        if self._is_ours(a) and a.flags.c_contiguous and (size is None or a.size == size):
            return self._arr(a, what, dtype)
        if getattr(a, "_qpu_buffer", None) is not None and (
                not self._is_ours(a) or a.dtype != np.dtype(dtype)):
            # another device's array, or one to convert: never behind the caller's back
            self._arr(a, what, dtype)
        host = np.ascontiguousarray(a, dtype=dtype)
        if size is None:
            size = host.size
        out = _new_array(self._h, size if size != host.size else host.shape, dtype)
        flat = out.reshape(-1)
        flat[:host.size] = host.reshape(-1)
        if size > host.size:
            flat[host.size:] = (host.reshape(-1)[-1] if pad is None and host.size else pad or 0)
        return out

    def _arr(self, a, what, dtype, ndim=None):
        a = _device_array(a, what, self._h)
        if a.dtype != np.dtype(dtype):
            raise TypeError("%s must be %s, not %s" % (what, np.dtype(dtype), a.dtype))
        if ndim is not None and a.ndim != ndim:
            raise ValueError("%s must have %d dimensions, not shape %s" % (what, ndim, a.shape))
        return a

    def _contig(self, a, what):
        if not a.flags.c_contiguous:
            raise ValueError("%s must be C-contiguous" % what)
        return a

    def _vector(self, a, what):
        a = self._contig(self._arr(a, what, np.float32), what)
        return _lib.Vector(a.buffer.check(), a.offset, a.size)

    def _image(self, a, what, channels):
        a = self._contig(self._arr(a, what, np.uint8), what)
        if channels == 3 and (a.ndim != 3 or a.shape[2] != 3):
            raise ValueError("%s must be height x width x 3, not shape %s" % (what, a.shape))
        if channels == 1 and a.ndim != 2:
            raise ValueError("%s must be height x width, not shape %s" % (what, a.shape))
        return _lib.Image(a.buffer.check(), a.offset, a.shape[1], a.shape[0],
                          a.shape[1] * channels)

    def _matrix(self, a, what):
        a = self._arr(a, what, np.float32, 2)
        if a.strides[1] != 4 or a.strides[0] % 4 or a.strides[0] < 4 * a.shape[1]:
            raise ValueError("%s must have contiguous rows of float32" % what)
        return _lib.Matrix(a.buffer.check(), a.offset, a.shape[0], a.shape[1], a.strides[0] // 4)

    def _qpus(self, qpus):
        return self.num_qpus if qpus is None else int(qpus)

    def _run(self, fn, *args):
        stats = _lib.KernelStats()
        ret = fn(self._k(), *args, ctypes.byref(stats))
        if ret:
            raise KernelError(ret, lib.qpu_kernels_last_error(self._k()).decode()
                              or "%s failed (%d)" % (fn.__name__, ret))
        self.last_stats = _stats_dict(stats)

    def _vectors(self, n, *operands):
        """The (name, array) operands as float32 device vectors of n
        elements rounded up to a block (zero-padded copies unless usable
        as they are)."""
        if n < 1:
            raise ValueError("a vector has at least one element")
        size = _round_up(n, VECTOR_BLOCK)
        return [self._operand(a, what, np.float32, size) for what, a in operands]

    def _result(self, dev_out, out, n):
        """dev_out's first n elements as out: dev_out itself, or copied into
        out (any writable array), or a device array of n elements."""
        if out is dev_out:
            return out
        if out is None:
            return dev_out if dev_out.size == n else dev_out[:n]
        np.copyto(np.asarray(out).reshape(-1), dev_out.reshape(-1)[:n], casting="same_kind")
        return out

    @staticmethod
    def _length(*operands):
        sizes = {what: np.size(a) for what, a in operands}
        if len(set(sizes.values())) != 1:
            raise ValueError("the vectors differ in length: %s" %
                             ", ".join("%s %d" % kv for kv in sizes.items()))
        return next(iter(sizes.values()))

    def vector_add(self, a, b, out=None, qpus=None):
        """out = a + b of float32 vectors of any length (a new device array
        when out is None)."""
        n = self._length(("a", a), ("b", b), *((("out", out),) if out is not None else ()))
        da, db = self._vectors(n, ("a", a), ("b", b))
        do = (self._vectors(n, ("out", out))[0] if out is not None
              else _new_array(self._h, _round_up(n, VECTOR_BLOCK), np.float32))
        self._run(lib.qpu_vector_add, self._qpus(qpus), ctypes.byref(self._vector(da, "a")),
                  ctypes.byref(self._vector(db, "b")), ctypes.byref(self._vector(do, "out")))
        return self._result(do, out, n)

    def saxpy(self, alpha, x, y, qpus=None):
        """y = alpha * x + y in place (float32 vectors of any length; y a
        writable array); returns y."""
        if not isinstance(y, np.ndarray):
            raise TypeError("saxpy() updates y in place: y is an array, not %s"
                            % type(y).__name__)
        n = self._length(("x", x), ("y", y))
        dx, dy = self._vectors(n, ("x", x), ("y", y))
        self._run(lib.qpu_saxpy, self._qpus(qpus), float(alpha), ctypes.byref(self._vector(dx, "x")),
                  ctypes.byref(self._vector(dy, "y")))
        return self._result(dy, y, n)

    def reduce(self, x, qpus=None):
        """(sum, min, max) of a float32 vector of any length in one pass. A
        padded copy repeats the last value, which min and max ignore and
        the sum takes back out."""
        n = np.size(x)
        if n < 1:
            raise ValueError("a vector has at least one element")
        size = _round_up(n, VECTOR_BLOCK)
        dx = self._operand(x, "x", np.float32, size, pad=None)
        r = _lib.ReduceResult()
        self._run(lib.qpu_reduce, self._qpus(qpus), ctypes.byref(self._vector(dx, "x")),
                  ctypes.byref(r))
        total = r.sum
        if size > n:
            total = float(np.float32(r.sum) - np.float32(dx[-1]) * np.float32(size - n))
        return Reduction(total, r.min, r.max)

    def _pixels(self, a, what, channels):
        """a (an image of channels bytes a pixel) as a device image whose
        pixel count is a multiple of PIXEL_BLOCK: itself, or a copy padded
        into a 1-row image; with its height and width."""
        shape = np.shape(a)
        if channels == 3 and (len(shape) != 3 or shape[2] != 3):
            raise ValueError("%s must be height x width x 3, not shape %s" % (what, shape))
        if channels == 1 and len(shape) != 2:
            raise ValueError("%s must be height x width, not shape %s" % (what, shape))
        pixels = shape[0] * shape[1]
        if pixels < 1:
            raise ValueError("%s has no pixels" % what)
        if pixels % PIXEL_BLOCK == 0:
            return self._operand(a, what, np.uint8, None), shape[:2]
        padded = _round_up(pixels, PIXEL_BLOCK)
        dev = self._operand(a, what, np.uint8, padded * channels, pad=0)
        return dev.reshape((1, padded, channels) if channels == 3 else (1, padded)), shape[:2]

    def rgb_to_gray(self, rgb, out=None, qpus=None):
        """BT.601 luma of an H x W x 3 uint8 image, as an H x W uint8 image
        (a new device array when out is None)."""
        src, (h, w) = self._pixels(rgb, "rgb", 3)
        dst = (self._pixels(out, "out", 1)[0] if out is not None
               else _new_array(self._h, src.shape[:2], np.uint8))
        self._run(lib.qpu_rgb_to_gray, self._qpus(qpus), ctypes.byref(self._image(src, "rgb", 3)),
                  ctypes.byref(self._image(dst, "out", 1)))
        return self._image_result(dst, out, h, w)

    def threshold(self, image, t, maxval=255, out=None, qpus=None):
        """out = image > t ? maxval : 0 (H x W uint8; out may be image; a new
        device array when out is None)."""
        if not (0 <= int(t) <= 255 and 0 <= int(maxval) <= 255):
            raise ValueError("t and maxval are 0 to 255")
        src, (h, w) = self._pixels(image, "image", 1)
        dst = (src if out is image and self._is_ours(out) else
               self._pixels(out, "out", 1)[0] if out is not None
               else _new_array(self._h, src.shape, np.uint8))
        self._run(lib.qpu_threshold, self._qpus(qpus), ctypes.byref(self._image(src, "image", 1)),
                  ctypes.byref(self._image(dst, "out", 1)), int(t), int(maxval))
        return self._image_result(dst, out, h, w)

    def _image_result(self, dst, out, h, w):
        if dst.shape == (h, w):
            if out is None or out is dst:
                return dst
        flat = dst.reshape(-1)[:h * w].reshape(h, w)
        if out is None:
            return flat
        if out is not dst:
            np.copyto(out, flat)
        return out

    def yuv420_to_rgb(self, frame, out, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0), qpus=None):
        """An I420 frame (a (3 H / 2) x W uint8 array: Y, then U, then V
        planes, as OpenCV lays it out) resized into out, a 3 x h x w float32
        tensor, normalised as (c / 255 - mean) / std per channel."""
        f = self._contig(self._arr(frame, "frame", np.uint8, 2), "frame")
        if f.shape[0] % 3 or f.shape[1] % 2:
            raise ValueError("an I420 frame is (3 H / 2) x W with H and W even, not %s"
                             % (f.shape,))
        h, w = f.shape[0] * 2 // 3, f.shape[1]
        if h % 2:
            raise ValueError("an I420 frame's height must be even (shape %s)" % (f.shape,))
        o = self._contig(self._arr(out, "out", np.float32, 3), "out")
        if o.shape[0] != 3:
            raise ValueError("out must be 3 x height x width, not shape %s" % (o.shape,))
        base = f.offset
        src = _lib.Yuv420(f.buffer.check(), base, base + w * h, base + w * h + w * h // 4,
                          w, h, w, w // 2)
        dst = _lib.PlanarRgb(o.buffer.check(), o.offset, o.shape[2], o.shape[1])
        m = (ctypes.c_float * 3)(*[float(v) for v in mean])
        s = (ctypes.c_float * 3)(*[float(v) for v in std])
        if len(mean) != 3 or len(std) != 3:
            raise ValueError("mean and std have one value per channel (3)")
        self._run(lib.qpu_yuv420_to_rgb, self._qpus(qpus), ctypes.byref(src), ctypes.byref(dst),
                  m, s)
        return out

    def _matrix_operand(self, a, what):
        """a as a device matrix: itself (any row stride), else a copy."""
        if self._is_ours(a):
            return a
        if np.ndim(a) != 2:
            raise ValueError("%s must have 2 dimensions, not shape %s" % (what, np.shape(a)))
        return self._operand(a, what, np.float32)

    def sgemm(self, a, b, c=None, alpha=1.0, beta=0.0, qpus=None):
        """c = alpha * a @ b + beta * c (float32 matrices of any shape);
        returns c (a new device array when c is None)."""
        a, b = self._matrix_operand(a, "a"), self._matrix_operand(b, "b")
        ma, mb = self._matrix(a, "a"), self._matrix(b, "b")
        if c is None:
            if beta != 0:
                raise ValueError("beta needs c")
            dc = _new_array(self._h, (a.shape[0], b.shape[1]), np.float32)
        else:
            dc = self._matrix_operand(c, "c")
        self._run(lib.qpu_sgemm, self._qpus(qpus), float(alpha), ctypes.byref(ma),
                  ctypes.byref(mb), float(beta), ctypes.byref(self._matrix(dc, "c")))
        if c is None or c is dc:
            return dc
        np.copyto(c, dc)
        return c

    def drop_cache(self):
        """Free the code and scratch memory the kernels keep on the device."""
        lib.qpu_kernels_drop_cache(self._k())


    # --- qpu_preprocess(): appended -----------------------------------------------------

    _FRAME_SHAPES = {"nv12": "(3 H / 2) x W", "i420": "(3 H / 2) x W",
                     "yuyv": "H x W x 2", "rgb888": "H x W x 3"}
    _TENSOR_TYPES = {np.dtype(np.float32): 0, np.dtype(np.uint8): 1, np.dtype(np.int8): 2}

    def _frame(self, frame, fmt):
        """A device frame array as a struct qpu_frame (tightly packed planes)."""
        if fmt not in _lib.PIX_FORMATS:
            raise ValueError("format %r: one of %s" % (fmt, ", ".join(_lib.PIX_FORMATS)))
        f = self._contig(self._arr(frame, "frame", np.uint8), "frame")
        shape = f.shape
        if fmt in ("nv12", "i420"):
            if f.ndim != 2 or shape[0] % 3:
                raise ValueError("a %s frame is %s, not %s" % (fmt, self._FRAME_SHAPES[fmt], shape))
            h, w = shape[0] * 2 // 3, shape[1]
        else:
            if f.ndim != 3 or shape[2] != (2 if fmt == "yuyv" else 3):
                raise ValueError("a %s frame is %s, not %s" % (fmt, self._FRAME_SHAPES[fmt], shape))
            h, w = shape[0], shape[1]
        s = _lib.Frame(f.buffer.check(), _lib.PIX_FORMATS[fmt], w, h)
        base = f.offset
        if fmt == "nv12":
            s.offset[:] = [base, base + w * h, 0]
            s.stride[:] = [w, w, 0]
        elif fmt == "i420":
            s.offset[:] = [base, base + w * h, base + w * h + (w // 2) * (h // 2)]
            s.stride[:] = [w, w // 2, w // 2]
        else:
            s.offset[:] = [base, 0, 0]
            s.stride[:] = [w * shape[2], 0, 0]
        return s

    def preprocess(self, frame, out, fmt="nv12", layout="nchw", crop=None,
                   mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0), letterbox=False, pad=114.0,
                   bgr=False, colorspace="bt601-full", scale=1.0, zero_point=0,
                   cpu=False, qpus=None):
        """Crop, resize (bilinear), convert and normalise a camera frame into
        out in one pass (qpu_preprocess(); cpu=True: qpu_preprocess_cpu()).

        frame: a device uint8 array, NV12 or I420 (3 H / 2) x W, YUYV H x W x 2,
        RGB888 H x W x 3. out: a device array, 3 x h x w (layout "nchw") or
        h x w x 3 ("nhwc"); float32 for (c / 255 - mean) / std, uint8 or int8
        for that quantised: round(value / scale) + zero_point. crop: (x, y,
        width, height) or None for the whole frame. letterbox: keep the aspect
        ratio, the border pad (0..255) before normalisation; placement() says
        where the image went. Returns out."""
        p, _ = self._preprocess_args(frame, out, fmt, layout, crop, mean, std, letterbox,
                                     pad, bgr, colorspace, scale, zero_point)
        if cpu:
            ret = lib.qpu_preprocess_cpu(self._k(), ctypes.byref(p))
            if ret:
                raise KernelError(ret, lib.qpu_kernels_last_error(self._k()).decode())
        else:
            self._run(lib.qpu_preprocess, self._qpus(qpus), ctypes.byref(p))
        return out

    def placement(self, frame, out, fmt="nv12", layout="nchw", crop=None, letterbox=False):
        """(x, y, width, height) of out's pixels that show the frame (the
        rest is padding), as preprocess() with these arguments lays it out."""
        p, _ = self._preprocess_args(frame, out, fmt, layout, crop, (0, 0, 0), (1, 1, 1),
                                     letterbox, 0.0, False, "bt601-full", 1.0, 0)
        r = _lib.Rect()
        if lib.qpu_preprocess_placement(ctypes.byref(p), ctypes.byref(r)):
            raise ValueError("preprocess would refuse these sizes")
        return (r.x, r.y, r.width, r.height)

    def _preprocess_args(self, frame, out, fmt, layout, crop, mean, std, letterbox, pad, bgr,
                         colorspace, scale, zero_point):
        src = self._frame(frame, fmt)
        o = self._contig(self._arr(out, "out", out.dtype if isinstance(out, np.ndarray)
                                   else np.float32, 3), "out")
        if o.dtype not in self._TENSOR_TYPES:
            raise TypeError("out must be float32, uint8 or int8, not %s" % o.dtype)
        if layout not in ("nchw", "nhwc"):
            raise ValueError("layout %r: 'nchw' or 'nhwc'" % (layout,))
        nhwc = layout == "nhwc"
        if (o.shape[2] if nhwc else o.shape[0]) != 3:
            raise ValueError("out must be %s, not shape %s"
                             % ("h x w x 3" if nhwc else "3 x h x w", o.shape))
        if colorspace not in _lib.COLORSPACES:
            raise ValueError("colorspace %r: one of %s"
                             % (colorspace, ", ".join(_lib.COLORSPACES)))
        if len(mean) != 3 or len(std) != 3:
            raise ValueError("mean and std have one value per channel (3)")
        p = _lib.Preprocess()
        p.src = src
        if crop is not None:
            p.crop = _lib.Rect(*[int(v) for v in crop])
        p.dst_bo = o.buffer.check()
        p.dst_offset = o.offset
        p.dst_height, p.dst_width = (o.shape[0], o.shape[1]) if nhwc else (o.shape[1], o.shape[2])
        p.layout = int(nhwc)
        p.type = self._TENSOR_TYPES[o.dtype]
        p.colorspace = _lib.COLORSPACES[colorspace]
        p.flags = ((_lib.PREPROCESS_LETTERBOX if letterbox else 0) |
                   (_lib.PREPROCESS_BGR if bgr else 0))
        p.pad = float(pad)
        p.mean[:] = [float(v) for v in mean]
        p.std[:] = [float(v) for v in std]
        p.scale = float(scale)
        p.zero_point = int(zero_point)
        return p, o

    # --- post-processing (<qpu_kernels.h>'s "DOC: post-processing") ---------------------
    # Detections are numpy structured arrays of DETECTION (struct qpu_detection's
    # layout): x1, y1, x2, y2, score, class_id, index. Decoding and labelling run on the
    # CPU; nms() on the QPUs unless cpu=True, with the same result either way.

    def _post(self, fn, *args):
        """fn(kernels, *args) of a call that does not report stats."""
        ret = fn(self._k(), *args)
        if ret:
            raise KernelError(ret, lib.qpu_kernels_last_error(self._k()).decode()
                              or "%s failed (%d)" % (fn.__name__, ret))

    def _decode(self, fn, params, *arrays):
        """Call a decoder, growing the output until every detection fits."""
        ptrs = [a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)) for a in arrays]
        room, count = 256, ctypes.c_size_t()
        while True:
            out = np.zeros(room, DETECTION)
            ret = fn(self._k(), ctypes.byref(params), *ptrs,
                     out.ctypes.data_as(ctypes.POINTER(_lib.Detection)), room,
                     ctypes.byref(count))
            if ret == -errno.ENOSPC and count.value > room:
                room = count.value
                continue
            if ret:
                raise KernelError(ret, lib.qpu_kernels_last_error(self._k()).decode())
            return out[:count.value]

    def decode_ssd(self, loc, scores, anchors, scale=(10.0, 10.0, 5.0, 5.0),
                   score_threshold=0.5, first_class=1, width=1.0, height=1.0):
        """SSD outputs (loc: N x 4 ty, tx, th, tw; scores: N x C; anchors: N x 4
        cy, cx, h, w, normalized) to the detections above score_threshold,
        boxes times width and height (qpu_decode_ssd_cpu())."""
        loc = np.ascontiguousarray(loc, np.float32).reshape(-1, 4)
        anchors = np.ascontiguousarray(anchors, np.float32).reshape(-1, 4)
        scores = np.ascontiguousarray(scores, np.float32)
        scores = scores.reshape(loc.shape[0], -1) if loc.shape[0] else scores.reshape(0, 1)
        if anchors.shape != loc.shape:
            raise ValueError("loc and anchors must both be N x 4, not %s and %s"
                             % (loc.shape, anchors.shape))
        p = _lib.SsdParams(loc.shape[0], scores.shape[1], int(first_class),
                           (ctypes.c_float * 4)(*scale), score_threshold, width, height)
        return self._decode(lib.qpu_decode_ssd_cpu, p, loc, scores, anchors)

    def decode_yolo(self, head, anchor_wh, stride, score_threshold=0.25):
        """A YOLOv5 head (A * (5 + C) x H x W raw logits, or A x (5 + C) x H x W)
        and its A anchors' (width, height) to the detections above
        score_threshold (qpu_decode_yolo_cpu())."""
        head = np.ascontiguousarray(head, np.float32)
        anchor_wh = np.ascontiguousarray(anchor_wh, np.float32).reshape(-1, 2)
        a = anchor_wh.shape[0]
        if head.ndim not in (3, 4) or a < 1 or (head.size // (head.shape[-1] * head.shape[-2])) % a:
            raise ValueError("head must be A * (5 + C) x H x W for %d anchors, not %s"
                             % (a, head.shape))
        channels = head.size // (head.shape[-1] * head.shape[-2]) // a
        p = _lib.YoloParams(head.shape[-1], head.shape[-2], a, max(channels - 5, 0), stride,
                            score_threshold)
        return self._decode(lib.qpu_decode_yolo_cpu, p, head, anchor_wh)

    def nms(self, dets, iou_threshold=0.45, scale=1.0, max_out=0, cpu=False, qpus=None):
        """Class-wise NMS of a DETECTION array: the indices kept, by score
        (qpu_nms() on the QPUs, or qpu_nms_cpu() with cpu=True: the same).
        scale: grid steps a coordinate unit (<qpu_kernels.h>'s "DOC: NMS
        arithmetic": at most 2048 steps across)."""
        d = np.ascontiguousarray(dets, DETECTION)
        n = d.shape[0]
        keep = np.zeros(max(n, 1), np.uint32)
        kept = ctypes.c_size_t()
        p = _lib.NmsParams(iou_threshold, scale, int(max_out))
        args = (d.ctypes.data_as(ctypes.POINTER(_lib.Detection)), n, ctypes.byref(p),
                keep.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)), n, ctypes.byref(kept))
        if cpu:
            self._post(lib.qpu_nms_cpu, *args)
        else:
            self._run(lib.qpu_nms, self._qpus(qpus), *args)
        return keep[:kept.value]

    def ccl(self, mask, threshold=0, connectivity=8):
        """Connected components of the pixels of an H x W uint8 mask above
        threshold: (labels, count), labels H x W uint32, 0 the background,
        components 1..count in scan order (qpu_ccl_cpu())."""
        m = np.asarray(mask, np.uint8)
        if m.ndim != 2 or m.strides[1] != 1:
            m = np.ascontiguousarray(m)
        if m.ndim != 2:
            raise ValueError("mask must be H x W, not shape %s" % (m.shape,))
        labels = np.zeros(m.shape, np.uint32)
        count = ctypes.c_uint32()
        self._post(lib.qpu_ccl_cpu, m.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)),
                   m.shape[1], m.shape[0], m.strides[0], int(threshold), int(connectivity),
                   labels.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)),
                   ctypes.byref(count))
        return labels, count.value


# struct qpu_detection as a numpy dtype
DETECTION = np.dtype([("x1", "<f4"), ("y1", "<f4"), ("x2", "<f4"), ("y2", "<f4"),
                      ("score", "<f4"), ("class_id", "<u4"), ("index", "<u4")])
