# SPDX-License-Identifier: MIT
"""qpu.capture: a V4L2 camera's frames as device memory, never copied
(<qpu_capture.h>). The camera's driver allocates its buffers, exports each
as a dma-buf and the device imports them: a dequeued Frame's data is a
uint8 array viewing the camera's own buffer, which QPU jobs read in place.

    with qpu.Device() as dev, Capture(dev, "/dev/video0", 640, 480, "nv12") as cam:
        cam.start()
        frame = cam.dequeue(1000)     # None when no frame came in time
        y = frame.plane(0)            # rows of the luma, viewing the buffer
        ...                           # jobs on frame.data
        cam.queue(frame)              # the camera may write it again

A frame's buffer is the program's from dequeue() to queue(); the camera
owns it otherwise and writes a later frame into it, and close() unmaps it:
do not keep its arrays past those points.
"""

import ctypes
import errno

import numpy as np

from . import _lib
from ._lib import lib
from .closable import Closable
from .errors import ClosedError, DeviceError

# --- <qpu_capture.h>: numbers, structs, prototypes -------------------------------


def fourcc(code):
    """V4L2's number of a four-letter format code ("NV12")."""
    b = code.encode("ascii")
    if len(b) != 4:
        raise ValueError("a fourcc has four letters, not %r" % (code,))
    return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24


# The formats qpu_capture_open() takes, by the names qpu.pipeline uses too.
FORMATS = {"nv12": fourcc("NV12"), "i420": fourcc("YU12"), "yuyv": fourcc("YUYV"),
           "rgb24": fourcc("RGB3"), "gray8": fourcc("GREY")}
FORMAT_NAMES = {v: k for k, v in FORMATS.items()}


class CaptureConfig(ctypes.Structure):
    _fields_ = [("path", ctypes.c_char_p), ("width", ctypes.c_uint32),
                ("height", ctypes.c_uint32), ("fourcc", ctypes.c_uint32),
                ("buffers", ctypes.c_uint)]


class CaptureFrame(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("index", ctypes.c_uint), ("width", ctypes.c_uint32),
                ("height", ctypes.c_uint32), ("fourcc", ctypes.c_uint32),
                ("planes", ctypes.c_uint), ("offsets", ctypes.c_size_t * 3),
                ("strides", ctypes.c_size_t * 3), ("bytesused", ctypes.c_size_t),
                ("sequence", ctypes.c_uint32), ("timestamp_ns", ctypes.c_int64)]


_vp, _int, _P = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER
PROTOTYPES = {
    "qpu_capture_open": (_int, [_vp, _P(CaptureConfig), _P(_vp)]),
    "qpu_capture_start": (_int, [_vp]),
    "qpu_capture_dequeue": (_int, [_vp, _int, _P(CaptureFrame)]),
    "qpu_capture_queue": (_int, [_vp, _P(CaptureFrame)]),
    "qpu_capture_get_format": (_int, [_vp, _P(CaptureFrame)]),
    "qpu_capture_fd": (_int, [_vp]),
    "qpu_capture_close": (None, [_vp]),
}
_lib.declare(PROTOTYPES)


def _fail(ret, what):
    return DeviceError(ret, "%s (%s)" % (what, _lib.pystr(lib.qpu_last_error())))


class Frame:
    """One frame: its layout, the driver's sequence number and time, and
    data, the frame's bytes (bytesused of them) viewing the camera's buffer."""

    def __init__(self, capture, c, data):
        self._c = c
        self._capture = capture
        self.index = c.index
        self.width, self.height = c.width, c.height
        self.format = FORMAT_NAMES.get(c.fourcc, "0x%08x" % c.fourcc)
        self.planes = c.planes
        self.offsets = tuple(c.offsets[:c.planes])
        self.strides = tuple(c.strides[:c.planes])
        self.bytesused = c.bytesused
        self.sequence = c.sequence
        self.timestamp_ns = c.timestamp_ns
        self.data = data
        self.queued = False

    def plane(self, i):
        """Plane i as a 2-D uint8 array (rows, stride bytes) viewing the buffer."""
        if not 0 <= i < self.planes:
            raise IndexError("plane %d of a frame of %d" % (i, self.planes))
        rows = self.height // 2 if i and self.format in ("nv12", "i420") else self.height
        start = self.offsets[i]
        return self.data[start:start + rows * self.strides[i]].reshape(rows, self.strides[i])

    def __repr__(self):
        return "<qpu.capture.Frame %d %dx%d %s seq %d>" % (self.index, self.width, self.height,
                                                          self.format, self.sequence)


class Capture(Closable):
    """An open V4L2 capture node whose buffers the device imported.

    device is a qpu.Device; fmt one of FORMATS ("nv12", "i420", "yuyv",
    "rgb24", "gray8"); buffers 0 for the library's 4 (2 to 32). The driver
    may give another size than asked: format says what it gave, before the
    first frame. DeviceError (ENOENT: no such node; ENODEV: not a capture
    device with streaming I/O; EINVAL: a format it does not give, the
    message listing those it has) when the camera cannot be set up."""

    def __init__(self, device, path, width, height, fmt="nv12", buffers=0):
        self._ptr = None
        if fmt not in FORMATS:
            raise ValueError("format %r is none of %s" % (fmt, ", ".join(FORMATS)))
        if width <= 0 or height <= 0:
            raise ValueError("a frame of %dx%d pixels" % (width, height))
        self._dev = device._h
        cfg = CaptureConfig(_lib.cstr(path), width, height, FORMATS[fmt], buffers)
        ptr = _vp()
        ret = lib.qpu_capture_open(self._dev.check(), ctypes.byref(cfg), ctypes.byref(ptr))
        if ret:
            raise _fail(ret, "qpu_capture_open(%s, %dx%d %s)" % (path, width, height, fmt))
        self._ptr = ptr.value
        self.path = path
        c = CaptureFrame()
        lib.qpu_capture_get_format(self._ptr, ctypes.byref(c))
        self.format = {"width": c.width, "height": c.height,
                       "format": FORMAT_NAMES.get(c.fourcc, "0x%08x" % c.fourcc),
                       "planes": c.planes, "offsets": tuple(c.offsets[:c.planes]),
                       "strides": tuple(c.strides[:c.planes]), "bytes": c.bytesused}

    def _check(self):
        if not self._ptr:
            raise ClosedError("the capture is closed")
        self._dev.check()
        return self._ptr

    def start(self):
        """Queue every buffer and start streaming."""
        ret = lib.qpu_capture_start(self._check())
        if ret:
            raise _fail(ret, "qpu_capture_start(%s)" % self.path)

    def dequeue(self, timeout_ms=-1):
        """The next frame the camera filled (-1: wait for ever, 0: only
        look), or None when none came in time; DeviceError(EIO) for a frame
        the driver marked bad (queued back already)."""
        c = CaptureFrame()
        ret = lib.qpu_capture_dequeue(self._check(), int(timeout_ms), ctypes.byref(c))
        if ret == -errno.ETIME:
            return None
        if ret:
            raise _fail(ret, "qpu_capture_dequeue(%s)" % self.path)
        raw = (ctypes.c_ubyte * c.bytesused).from_address(lib.qpu_bo_get_map(c.bo))
        raw._qpu_capture = self		# the mapping lives while the capture does
        return Frame(self, c, np.frombuffer(raw, dtype=np.uint8))

    def queue(self, frame):
        """Give frame's buffer back to the camera (jobs reading it must have
        ended); its arrays must not be used after."""
        if frame._capture is not self:
            raise ValueError("a frame of another capture")
        if frame.queued:
            raise ValueError("frame %d is queued already" % frame.index)
        ret = lib.qpu_capture_queue(self._check(), ctypes.byref(frame._c))
        if ret:
            raise _fail(ret, "qpu_capture_queue(%s)" % self.path)
        frame.queued = True

    def fileno(self):
        """The V4L2 node's fd, readable (select, poll) when a frame is there."""
        return lib.qpu_capture_fd(self._check())

    def close(self):
        """Stop streaming, free the buffers, close the node; twice is harmless."""
        if getattr(self, "_ptr", None):
            # its buffers went with a device closed first (close the capture first)
            if not self._dev.closed:
                lib.qpu_capture_close(self._ptr)
            self._ptr = None
