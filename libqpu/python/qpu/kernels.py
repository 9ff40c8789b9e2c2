# SPDX-License-Identifier: MIT
"""The sample kernels of <qpu_kernels.h> (struct qpu_kernels) on numpy
arrays of one device: dev.kernels.vector_add(a, b) and so on.

Operands are arrays of the device (Device.array()); the wrappers of libqpu
check the shapes against what each kernel takes and say what was wrong
(KernelError). After each call, last_stats says what the job did.
"""

import collections
import ctypes

import numpy as np

from . import _lib
from ._lib import lib
from .device import _device_array, _new_array
from .errors import KernelError

Reduction = collections.namedtuple("Reduction", "sum min max")


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

    def vector_add(self, a, b, out=None, qpus=None):
        """out = a + b (float32 vectors, lengths a multiple of 16)."""
        va, vb = self._vector(a, "a"), self._vector(b, "b")
        out = _alloc(a, out)
        self._run(lib.qpu_vector_add, self._qpus(qpus), ctypes.byref(va), ctypes.byref(vb),
                  ctypes.byref(self._vector(out, "out")))
        return out

    def saxpy(self, alpha, x, y, qpus=None):
        """y = alpha * x + y in place; returns y."""
        vx, vy = self._vector(x, "x"), self._vector(y, "y")
        self._run(lib.qpu_saxpy, self._qpus(qpus), float(alpha), ctypes.byref(vx),
                  ctypes.byref(vy))
        return y

    def reduce(self, x, qpus=None):
        """(sum, min, max) of a float32 vector in one pass."""
        vx = self._vector(x, "x")
        r = _lib.ReduceResult()
        self._run(lib.qpu_reduce, self._qpus(qpus), ctypes.byref(vx), ctypes.byref(r))
        return Reduction(r.sum, r.min, r.max)

    def rgb_to_gray(self, rgb, out=None, qpus=None):
        """BT.601 luma of an H x W x 3 uint8 image, as an H x W uint8 image."""
        src = self._image(rgb, "rgb", 3)
        out = _alloc(rgb, out, rgb.shape[:2] if rgb.ndim == 3 else None)
        self._run(lib.qpu_rgb_to_gray, self._qpus(qpus), ctypes.byref(src),
                  ctypes.byref(self._image(out, "out", 1)))
        return out

    def threshold(self, image, t, maxval=255, out=None, qpus=None):
        """out = image > t ? maxval : 0 (H x W uint8; out may be image)."""
        src = self._image(image, "image", 1)
        out = _alloc(image, out)
        if not (0 <= int(t) <= 255 and 0 <= int(maxval) <= 255):
            raise ValueError("t and maxval are 0 to 255")
        self._run(lib.qpu_threshold, self._qpus(qpus), ctypes.byref(src),
                  ctypes.byref(self._image(out, "out", 1)), int(t), int(maxval))
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

    def sgemm(self, a, b, c=None, alpha=1.0, beta=0.0, qpus=None):
        """c = alpha * a @ b + beta * c (float32 matrices); returns c."""
        ma, mb = self._matrix(a, "a"), self._matrix(b, "b")
        if c is None:
            if beta != 0:
                raise ValueError("beta needs c")
            c = _alloc(a, None, (a.shape[0], b.shape[1]))
        self._run(lib.qpu_sgemm, self._qpus(qpus), float(alpha), ctypes.byref(ma),
                  ctypes.byref(mb), float(beta), ctypes.byref(self._matrix(c, "c")))
        return c

    def drop_cache(self):
        """Free the code and scratch memory the kernels keep on the device."""
        lib.qpu_kernels_drop_cache(self._k())


def _alloc(like, out, shape=None):
    """out, or a new zeroed array of like's dtype on like's device."""
    if out is not None:
        return out
    buf = like.buffer
    buf.check()
    return _new_array(buf._dev, like.shape if shape is None else shape, like.dtype)
