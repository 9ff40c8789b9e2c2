# SPDX-License-Identifier: MIT
"""Devices, buffers as numpy arrays, jobs, fences and results.

Lifetime rule: the C objects live as long as Python can reach them. close()
and free() end their use at once (every later use raises ClosedError), but
the memory behind a numpy view goes back only when the last array viewing it
is gone, so no array ever points at unmapped memory; likewise a closed
device stays open underneath until its last buffer and job are gone.
"""

import asyncio
import ctypes
import fcntl
import math
import os
import select
import struct
import weakref

import numpy as np

from . import _lib
from ._lib import lib
from .errors import (CanceledError, ClosedError, DeadlockError, DeviceError, FaultError,
                     JobError, JobTimeoutError, ResetError, WaitTimeout)

TIMEOUT_NONE = _lib.JOB_TIMEOUT_NONE
MAX_PROGRAMS = 12  # QPUs of every VideoCore IV; the device's own count is Device.num_qpus


class _DevHandle:
    """Owns one struct qpu_dev * (and its sample kernels)."""

    def __init__(self, ptr):
        self.ptr = ptr
        self.closed = False
        self.kernels_ptr = None
        # every live buffer, to say which one a faulting address is in
        self.buffers = weakref.WeakSet()

    def check(self):
        if self.closed:
            raise ClosedError("the device is closed")
        return self.ptr

    def __del__(self):
        if self.ptr:
            if self.kernels_ptr:
                lib.qpu_kernels_free(self.kernels_ptr)
            lib.qpu_dev_close(self.ptr)
            self.ptr = None


class Buffer:
    """One buffer object: zeroed memory mapped for the CPU, seen by QPU
    programs at bus_addr. Arrays made by Device.array() view it."""

    def __init__(self, dev, size, ptr=None):
        self._dev = dev
        if ptr is None:
            ptr = lib.qpu_bo_new(dev.check(), size)
            if not ptr:
                raise DeviceError(ctypes.get_errno(), "qpu_bo_new(%d bytes)" % size)
        self._ptr = ptr
        self._freed = False
        self.size = lib.qpu_bo_get_size(ptr)
        self.map_addr = lib.qpu_bo_get_map(ptr)
        self._bus_addr = lib.qpu_bo_get_bus_addr(ptr)
        dev.buffers.add(self)

    def _view(self):
        # A new ctypes view each time, so that no cycle delays the free: the
        # arrays hold the view, the view holds the Buffer, which holds the
        # device. The mapping thus outlives every array viewing it.
        raw = (ctypes.c_ubyte * self.size).from_address(self.map_addr)
        raw._qpu_buffer = self
        return raw

    @property
    def freed(self):
        return self._freed or self._dev.closed

    def check(self):
        if self._freed:
            raise ClosedError("the buffer was freed")
        self._dev.check()
        return self._ptr

    @property
    def bus_addr(self):
        """Where QPU programs see the buffer's first byte."""
        self.check()
        return self._bus_addr

    def free(self):
        """End the buffer's use: no job may use it any more. Its memory goes
        back once no array views it."""
        self._freed = True

    def export_dmabuf(self):
        """A new dma-buf fd of this buffer, for another driver (or another
        qpu device) to import: the caller's, to os.close(). DeviceError
        with ENOTSUP on the emulator, which has no dma-buf to give."""
        fd = ctypes.c_int(-1)
        ret = lib.qpu_bo_export_dmabuf(self.check(), ctypes.byref(fd))
        if ret:
            raise DeviceError(ret, "qpu_bo_export_dmabuf (%s)" % _lib.pystr(lib.qpu_last_error()))
        return fd.value

    def __del__(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            lib.qpu_bo_free(ptr)

    def __repr__(self):
        state = "freed" if self.freed else "0x%08x" % self._bus_addr
        return "<qpu.Buffer %d bytes at %s>" % (self.size, state)


class Array(np.ndarray):
    """A numpy array whose memory is (part of) a QPU buffer: what the QPU
    writes there is what the array reads, with no copy."""

    def __array_finalize__(self, obj):
        buf = getattr(obj, "_qpu_buffer", None)
        if buf is not None and not _inside(self, buf):
            buf = None
        self._qpu_buffer = buf

    def __array_wrap__(self, out, context=None, return_scalar=False):
        # Results of ufuncs live in new host memory: plain arrays.
        out = np.ndarray.__array_wrap__(self, out, context)
        if isinstance(out, Array) and out._qpu_buffer is None:
            return out.view(np.ndarray)
        return out

    @property
    def buffer(self):
        """The Buffer this array views (ValueError if it views none)."""
        buf = getattr(self, "_qpu_buffer", None)
        if buf is None:
            raise ValueError("this array is not in a QPU buffer (a copy?)")
        return buf

    @property
    def offset(self):
        """Bytes from the buffer's start to this array's first element."""
        return self.ctypes.data - self.buffer.map_addr

    @property
    def bus_addr(self):
        """Where QPU programs see this array's first element."""
        return self.buffer.bus_addr + self.offset

    def free(self):
        """Free the buffer this array views (see Buffer.free())."""
        self.buffer.free()


def _inside(arr, buf):
    if arr.size == 0:
        return False
    lo, hi = np.byte_bounds(arr)
    return buf.map_addr <= lo and hi <= buf.map_addr + buf.size


def _device_array(obj, what, dev=None):
    """obj as an Array in a live buffer (of dev, when given)."""
    if not isinstance(obj, Array) or obj._qpu_buffer is None:
        raise TypeError("%s must be an array of a QPU buffer (Device.array()), not %s"
                        % (what, type(obj).__name__))
    buf = obj._qpu_buffer
    buf.check()
    if dev is not None and buf._dev is not dev:
        raise ValueError("%s is a buffer of another device" % what)
    return obj


def _check_shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    if isinstance(shape, (str, bytes)):
        raise TypeError("a shape is an int or a sequence of ints, not %r" % (shape,))
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError("a shape is an int or a sequence of ints, not %r" % (shape,)) from None
    if any(s < 0 for s in shape):
        raise ValueError("negative dimension in shape %r" % (shape,))
    if math.prod(shape) == 0:
        raise ValueError("shape %r has no elements: a buffer holds at least one byte" % (shape,))
    return shape


def _check_dtype(dtype):
    dt = np.dtype(dtype)
    if dt.hasobject or dt.itemsize == 0:
        raise TypeError("dtype %s cannot live in QPU memory" % dt)
    return dt


def _buffer_array(buf, nbytes):
    """nbytes of buf as a uint8 Array viewing it."""
    flat = np.frombuffer(buf._view(), dtype=np.uint8, count=nbytes).view(Array)
    flat._qpu_buffer = buf
    return flat


def _new_array(dev_h, shape, dtype):
    shape = _check_shape(shape)
    dt = _check_dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    buf = Buffer(dev_h, nbytes)
    flat = np.frombuffer(buf._view(), dtype=np.uint8, count=nbytes)
    arr = flat.view(dt).reshape(shape).view(Array)
    arr._qpu_buffer = buf
    return arr


class Result:
    """How a job ended."""

    STATUS_NAMES = {_lib.STATUS_DONE: "done", _lib.STATUS_TIMEOUT: "timeout",
                    _lib.STATUS_FAULT: "fault", _lib.STATUS_CANCELED: "canceled",
                    _lib.STATUS_DEADLOCK: "deadlock", _lib.STATUS_RESET: "reset"}

    def __init__(self, c, context=None):
        self.status = self.STATUS_NAMES.get(c.status, "unknown")
        self.status_text = _lib.pystr(lib.qpu_job_status_str(c.status))
        self.ok = c.status == _lib.STATUS_DONE
        fault = c.status == _lib.STATUS_FAULT
        self.fault_qpu = c.fault_qpu if fault else None
        # V3D: the faulting thread's slot on that QPU (0 on VideoCore IV)
        self.fault_thread = c.fault_thread if fault else None
        self.fault_pc = c.fault_pc if fault else None
        self.fault_addr = c.fault_addr if fault else None
        names = _lib.ACCESS_NAMES
        self.fault_access = (names[c.fault_access] if c.fault_access < len(names)
                             else "unknown") if fault else None
        self.fault_access_text = _lib.pystr(lib.qpu_access_str(c.fault_access)) if fault else None
        self.instructions = (c.instructions if c.flags & _lib.JOB_RESULT_INSTRUCTIONS
                             else None)
        self.counters = ({n: getattr(c.counters, n) for n, _ in _lib.JobCounters._fields_}
                         if c.flags & _lib.JOB_RESULT_COUNTERS else None)
        self.qpus = ([(q.pc, _lib.ACTIVITY_NAMES.get(q.activity, "unknown"), q.semaphore)
                      for q in c.qpus[:c.qpu_count]]
                     if c.flags & _lib.JOB_RESULT_QPUS else None)
        #: a V3D dispatch: (batches ended, batches) when the device tells it
        self.progress = ((c.batches_done, c.batches)
                         if c.flags & _lib.JOB_RESULT_PROGRESS else None)
        #: for a fault: (file, line, column) of the instruction, when the
        #: program came from the assembler, and why the address was refused
        self.fault_source = self.fault_note = None
        if fault and context is not None:
            self.fault_source, self.fault_note = context.explain(self.fault_pc, self.fault_addr)

    def check(self):
        """Return self when the job is done, else raise its JobError."""
        cls = {"done": None, "fault": FaultError, "timeout": JobTimeoutError,
               "deadlock": DeadlockError, "canceled": CanceledError,
               "reset": ResetError}.get(self.status, JobError)
        if cls is not None:
            raise cls(self)
        return self

    def __str__(self):
        s = self.status_text
        if self.status == "fault":
            s += " on QPU %d at pc 0x%08x" % (self.fault_qpu, self.fault_pc)
            if self.fault_source:
                s += " (%s:%d:%d)" % self.fault_source
            s += ": %s of 0x%08x" % (self.fault_access_text, self.fault_addr)
        if self.instructions is not None:
            s += " (%d instructions)" % self.instructions
        if self.fault_note:
            s += ": " + self.fault_note
        return s

    def __repr__(self):
        return "<qpu.Result %s>" % self


# linux/sync_file.h: struct sync_merge_data { char name[32]; s32 fd2; s32 fence;
# u32 flags; u32 pad; }, SYNC_IOC_MERGE = _IOWR('>', 3, it).
_SYNC_MERGE = struct.Struct("32siiII")
_SYNC_IOC_MERGE = (3 << 30) | (_SYNC_MERGE.size << 16) | (ord(">") << 8) | 3


def _signalled(fd):
    r, _, _ = select.select([fd], [], [], 0)
    return bool(r)


def _fence_fd(f):
    if isinstance(f, Job):
        return f.fileno()
    if isinstance(f, (int, np.integer)) and f >= 0:
        return int(f)
    raise TypeError("an in-fence is a Job or a fence fd, not %r" % (f,))


def _merge_fences(fences):
    """One fd that signals when every fence has, or -1; the caller closes it.
    Fences that have signalled are dropped, but for a failed job's; qpu.ko's
    sync_files that have not are merged (a job takes one in-fence)."""
    fds = [(f, _fence_fd(f)) for f in fences]
    # A job that has failed cancels the job after it, as its fence says
    # (qpu.ko's sync_file, the emulator's record of its eventfd): keep it.
    for f, fd in fds:
        if isinstance(f, Job) and _signalled(fd) and not f.wait(0, check=False).ok:
            return os.dup(fd)
    pending = [fd for _, fd in fds if not _signalled(fd)]
    if not pending:
        return -1
    fd = os.dup(pending[0])
    for other in pending[1:]:
        arg = bytearray(_SYNC_MERGE.pack(b"qpu-python", other, -1, 0, 0))
        try:
            fcntl.ioctl(fd, _SYNC_IOC_MERGE, arg)
        except OSError as e:
            os.close(fd)
            raise DeviceError(e.errno, "merging in-fences") from None
        merged = _SYNC_MERGE.unpack(bytes(arg))[2]
        os.close(fd)
        fd = merged
    return fd


class _FaultContext:
    """What a job was given, to say why a fault happened: its programs'
    code (bus address, bytes, the assembler's locations) and the buffers it
    listed."""

    def __init__(self, dev, programs, listed, all_buffers):
        self.dev = dev
        self.programs = programs
        self.listed = set(id(b) for b in listed)
        self.all_buffers = all_buffers

    def explain(self, pc, addr):
        source = None
        for base, nbytes, locations in self.programs:
            # the PC may run ahead of the faulting instruction: the last
            # word at or before it inside the program
            if locations and base <= pc < base + nbytes + 32:
                i = min((pc - base) // 8, len(locations) - 1)
                source = tuple(locations[i][:3])
                break
        owner = None
        for b in list(self.dev.buffers):
            if not b._freed and b._bus_addr <= addr < b._bus_addr + b.size:
                owner = b
        if owner is None:
            return source, "0x%08x is in no buffer of this device" % addr
        if self.all_buffers or id(owner) in self.listed:
            return source, None
        return source, ("0x%08x is byte %d of a %d-byte buffer of this device that the job "
                        "did not list: pass it in buffers=[...]" %
                        (addr, addr - owner._bus_addr, owner.size))


class Job:
    """A submitted job: wait for it, poll it, or await it in asyncio. Its
    fence (fileno()) becomes readable when it ends."""

    def __init__(self, dev, seqno, fence, keep, context=None):
        self._dev = dev
        self.seqno = seqno
        self._fence = fence
        self._keep = keep  # buffers (uploaded code, uniforms) the job reads
        self._context = context
        self._result = None

    def fileno(self):
        if self._fence is None:
            raise ClosedError("the job's fence is closed")
        return self._fence

    @property
    def fence(self):
        return self.fileno()

    def _wait(self, timeout_ms):
        if self._result is None:
            c = _lib.JobResult()
            ret = lib.qpu_wait(self._dev.check(), self.seqno, timeout_ms, ctypes.byref(c))
            if ret == -62:  # ETIME
                return None
            if ret:
                raise DeviceError(ret, "qpu_wait(job %d)" % self.seqno)
            self._result = Result(c, self._context)
            self._keep = self._context = None
        return self._result

    def done(self):
        """Whether the job has ended (its fence has signalled)."""
        return self._result is not None or _signalled(self.fileno())

    def poll(self):
        """The Result if the job has ended, else None; never waits."""
        return self._wait(0)

    def wait(self, timeout=None, check=True):
        """Wait up to timeout seconds (None: for ever) for the job's end.
        Raises WaitTimeout when it has not ended, and (with check) the
        job's JobError when it did not end as done."""
        ms = -1 if timeout is None else max(0, math.ceil(timeout * 1000))
        res = self._wait(ms)
        if res is None:
            raise WaitTimeout(self, timeout)
        return res.check() if check else res

    async def wait_async(self, check=True):
        """Await the job's end without blocking the event loop."""
        if self._result is None and not self.done():
            loop = asyncio.get_running_loop()
            ended = loop.create_future()
            fd = self.fileno()
            loop.add_reader(fd, lambda: ended.done() or ended.set_result(None))
            try:
                await ended
            finally:
                loop.remove_reader(fd)
        return self.wait(0, check)

    def __await__(self):
        return self.wait_async().__await__()

    def close(self):
        """Close the fence fd (the job runs on)."""
        fence, self._fence = self._fence, None
        if fence is not None:
            os.close(fence)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_fence", None) is not None:
            self.close()

    def __repr__(self):
        return "<qpu.Job %d %s>" % (self.seqno, self._result or "running")


class Device:
    """An open qpu device: "/dev/qpu" (qpu.ko), a v3d DRM node of a Pi 4/5
    ("/dev/dri/renderD128", or "v3d" for the first, "v3d:v3d42" or
    "v3d:v3d71" for the first of a generation), "emu" (the emulator in this
    process), or None for $QPU_DEVICE, else /dev/qpu (else the first v3d
    node)."""

    def __init__(self, path=None):
        ptr = lib.qpu_dev_open(None if path is None else _lib.cstr(path))
        if not ptr:
            err = ctypes.get_errno()
            where = path if path is not None else os.environ.get("QPU_DEVICE", "/dev/qpu")
            why = _lib.pystr(lib.qpu_last_error())
            raise DeviceError(err, "opening qpu device %r" % where + (" (%s)" % why if why else ""),
                              _lib.pystr(lib.qpu_dev_open_hint(err)))
        self._h = _DevHandle(ptr)
        self._kernels = None
        self.path = _lib.pystr(lib.qpu_dev_get_path(ptr))
        self.description = _lib.pystr(lib.qpu_dev_describe(ptr))
        self.params = {}
        for name, num in _lib.DEV_PARAMS.items():
            v = ctypes.c_uint64()
            if lib.qpu_dev_get_param(ptr, num, ctypes.byref(v)) == 0:
                self.params[name] = v.value
        bits = self.params.get("features", 0)
        self.features = frozenset(n for n, b in _lib.DEV_FEATURES.items() if bits & b)
        self.num_qpus = self.params["num_qpus"]
        # "vc4", "v3d42" or "v3d71": the instruction set of the device's QPUs
        gen = self.params.get("gen")
        self.gen = (_lib.pystr(lib.qpu_gen_name(gen)) if gen is not None else None) or "unknown"
        # qpu.ko's "hardware"/"simulated"; "v3d": a v3d DRM node (Pi 4/5),
        # whose driver does not say which
        b = self.params.get("backend")
        if b is not None:
            self.backend = _lib.pystr(lib.qpu_backend_name(b))
        elif self.path.startswith("emu"):
            self.backend = "emulator"
        else:
            self.backend = "v3d"

    # --- lifetime -------------------------------------------------------------

    @property
    def closed(self):
        return self._h.closed

    def close(self):
        """End the device's use; buffers and jobs of it can no longer be used."""
        self._h.closed = True
        self._kernels = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<qpu.Device %r (%s)%s>" % (self.path, self.description,
                                         " closed" if self.closed else "")

    def param(self, name):
        """One value the device reports (KeyError if it has none of that name)."""
        self._h.check()
        if name not in _lib.DEV_PARAMS:
            raise KeyError("no device parameter %r (known: %s)" % (name, ", ".join(_lib.DEV_PARAMS)))
        if name not in self.params:
            raise KeyError("this device does not report %r" % name)
        return self.params[name]

    def telemetry(self):
        """The device's clock, temperature and throttling now, as a dict:
        "clock_set_hz", "clock_hz" (as measured), "temp_mc" (millidegrees
        Celsius) and "throttled" (the firmware's word), each None where the
        device has no value, with the reason in "null_reasons"; "source"
        says where the values came from: "qpu.ko" (its last sample),
        "firmware" (a Pi 4/5's, through /dev/vcio), "thermal zone" or
        "none" (the emulator)."""
        t = _lib.Telemetry()
        ret = lib.qpu_dev_get_telemetry(self._h.check(), ctypes.byref(t))
        if ret:
            raise DeviceError(ret, "qpu_dev_get_telemetry")
        out = {"source": _lib.pystr(t.source)}
        why = {}
        for key, bit, value, reason in (
                ("clock_set_hz", _lib.TELEMETRY_CLOCK_SET, t.clock_set_hz, t.why_clock),
                ("clock_hz", _lib.TELEMETRY_CLOCK, t.clock_hz, t.why_clock),
                ("temp_mc", _lib.TELEMETRY_TEMP, t.temp_mc, t.why_temp),
                ("throttled", _lib.TELEMETRY_THROTTLED, t.throttled, t.why_throttled)):
            out[key] = value if t.flags & bit else None
            if out[key] is None:
                why[key] = _lib.pystr(reason) or "no value"
        out["null_reasons"] = why
        return out

    # --- buffers --------------------------------------------------------------

    def buffer(self, size):
        """A new zeroed Buffer of at least size bytes."""
        size = int(size)
        if size <= 0:
            raise ValueError("a buffer holds at least one byte, not %d" % size)
        return Buffer(self._h, size)

    def array(self, shape, dtype=np.float32):
        """A zeroed array of a new buffer (C order), zero copy for the QPU."""
        return _new_array(self._h, shape, dtype)

    def import_dmabuf(self, fd, size):
        """Another driver's buffer (a dma-buf fd: a camera's, vgem's, another
        device's export) as a uint8 Array of size bytes viewing its memory,
        uncopied; QPU jobs read and write it in place (view it with
        .view(dtype) and reshape). The fd stays the caller's: the buffer
        holds the dma-buf until it is freed. On the emulator any fd it can
        map shared (a memfd) imports. DeviceError on failure (EBADF, or
        EINVAL when the device cannot reach that memory)."""
        size = int(size)
        if size <= 0:
            raise ValueError("a buffer holds at least one byte, not %d" % size)
        ptr = ctypes.c_void_p()
        ret = lib.qpu_bo_import_dmabuf(self._h.check(), int(fd), size, ctypes.byref(ptr))
        if ret:
            raise DeviceError(ret, "qpu_bo_import_dmabuf(fd %d, %d bytes) (%s)"
                              % (int(fd), size, _lib.pystr(lib.qpu_last_error())))
        return _buffer_array(Buffer(self._h, size, ptr.value), size)

    def empty_like(self, a, dtype=None):
        """A new zeroed array of this device with a's shape and dtype."""
        a = np.asarray(a)
        return self.array(a.shape, a.dtype if dtype is None else dtype)

    def asarray(self, a, dtype=None):
        """a as an array of this device: a itself when it is one, else a copy."""
        if isinstance(a, Array) and a._qpu_buffer is not None and a._qpu_buffer._dev is self._h \
                and (dtype is None or a.dtype == np.dtype(dtype)):
            a._qpu_buffer.check()
            return a
        src = np.asarray(a, dtype=dtype)
        out = self.array(src.shape if src.shape else (1,), src.dtype)
        out[...] = src
        return out

    # --- jobs ----------------------------------------------------------------

    def _code(self, code, keep):
        if isinstance(code, Array) and code._qpu_buffer is not None:
            _device_array(code, "code", self._h)
            if code.offset % 8:
                raise ValueError("code must start on an 8-byte boundary")
            return code
        words = np.ascontiguousarray(getattr(code, "words", code))
        if words.dtype != np.uint64 or words.ndim != 1:
            raise TypeError("code is a 1-D uint64 array of instruction words "
                            "(or a Program), not %s %s" % (words.dtype, words.shape))
        arr = self.asarray(words)
        keep.append(arr)
        return arr

    def _uniforms(self, unif, code, keep):
        if unif is None:
            return code
        if isinstance(unif, Array) and unif._qpu_buffer is not None:
            _device_array(unif, "uniforms", self._h)
            if unif.offset % 4:
                raise ValueError("uniforms must start on a 4-byte boundary")
            return unif
        vals = np.asarray(unif)
        if vals.dtype.kind == "f":
            vals = vals.astype(np.float32)
        elif vals.dtype.kind in "iub":
            if vals.size and (vals.min() < -(1 << 31) or vals.max() >= (1 << 32)):
                raise ValueError("a uniform is a 32-bit value")
            vals = vals.astype(np.int64).astype(np.uint32)
        else:
            raise TypeError("uniforms are 32-bit integers or floats, not %s" % vals.dtype)
        arr = self.asarray(vals.reshape(-1) if vals.size else np.zeros(1, np.uint32))
        keep.append(arr)
        return arr

    def submit(self, code=None, uniforms=None, *, programs=None, buffers=(), in_fences=(),
               timeout_ms=None, all_buffers=False, workgroups=(1, 1, 1), wg_size=16,
               wgs_per_sg=1, threads=1):
        """Start a job of up to 12 programs and return its Job at once.
        code and uniforms give one program; programs=[(code, uniforms), ...]
        gives several. Code is a device array of words, or words (a Program,
        a uint64 array) to upload; uniforms a device array or values to
        upload. buffers are the other arrays (or Buffers) the programs use;
        all_buffers=True instead lets them touch every buffer of the device
        (QPU_JOB_ALL_BOS: the "all_bos" feature), as programs that find
        their data by bus address expect; in_fences are Jobs or fence fds to
        wait for first; timeout_ms is the job's bound (None: the device's
        default; TIMEOUT_NONE: none, on the emulator).
        On a V3D device (gen "v3d42" or "v3d71") the job is one compute
        dispatch of code with uniforms: workgroups (X, Y, Z) of wg_size
        invocations, wgs_per_sg per supergroup, for a program written for
        threads (1, 2 or 4) threads per QPU; programs= is VideoCore IV's."""
        dev = self._h.check()
        if all_buffers:
            if buffers:
                raise ValueError("all_buffers=True reaches every buffer: give no buffers")
            if "all_bos" not in self.features:
                raise ValueError("this device cannot run a job over all its buffers "
                                 "(no all_bos feature)")
        if programs is None:
            if code is None:
                raise TypeError("submit() needs code or programs")
            programs = [(code, uniforms)]
        elif code is not None or uniforms is not None:
            raise TypeError("give code and uniforms, or programs, not both")
        programs = list(programs)
        if not 1 <= len(programs) <= MAX_PROGRAMS:
            raise ValueError("a job has 1 to %d programs, not %d" % (MAX_PROGRAMS, len(programs)))
        keep = []
        code_info, listed = [], []
        refs = (_lib.ProgramRef * len(programs))()
        for i, p in enumerate(programs):
            if isinstance(p, tuple):
                if len(p) != 2:
                    raise ValueError("a program is (code, uniforms)")
                c, u = p
            else:
                c, u = p, None
            locations = getattr(c, "locations", None)
            c = self._code(c, keep)
            u = self._uniforms(u, c, keep)
            refs[i] = _lib.ProgramRef(c.buffer.check(), c.offset, u.buffer.check(), u.offset, 0)
            code_info.append((c.bus_addr, c.nbytes, locations))
            listed += [c.buffer, u.buffer]
        bos = []
        for b in buffers:
            if isinstance(b, Buffer):
                if b._dev is not self._h:
                    raise ValueError("a buffer of another device")
                bos.append(b.check())
                listed.append(b)
            else:
                bos.append(_device_array(b, "a job's buffer", self._h).buffer.check())
                listed.append(b.buffer)
        bo_arr = (ctypes.c_void_p * max(len(bos), 1))(*bos)
        dispatch = None
        if self.gen.startswith("v3d"):
            if len(programs) != 1:
                raise ValueError("a V3D job is one dispatch of one program, not %d"
                                 % len(programs))
            wg = tuple(int(n) for n in workgroups)
            if len(wg) != 3:
                raise ValueError("workgroups is (X, Y, Z), not %r" % (workgroups,))
            r = refs[0]
            dispatch = _lib.V3dDispatch(r.code, r.code_offset, r.uniforms, r.uniforms_offset,
                                        (ctypes.c_uint32 * 3)(*wg), int(wg_size),
                                        int(wgs_per_sg), 0, int(threads), 0)
        if timeout_ms is None:
            timeout_ms = 0
        elif not 0 < int(timeout_ms) <= TIMEOUT_NONE:
            raise ValueError("timeout_ms is 1 to %d, or TIMEOUT_NONE, not %r"
                             % (TIMEOUT_NONE - 1, timeout_ms))
        in_fd = _merge_fences(in_fences)
        out_fd = ctypes.c_int(-1)
        desc = _lib.JobDesc(refs, len(programs), bo_arr, len(bos), int(timeout_ms), in_fd,
                            ctypes.pointer(out_fd), _lib.JOB_ALL_BOS if all_buffers else 0)
        if dispatch is not None:
            desc.programs, desc.program_count = None, 0
            desc.kind = _lib.JOB_V3D_DISPATCH
            desc.dispatch = ctypes.cast(ctypes.pointer(dispatch), ctypes.c_void_p)
        seqno = ctypes.c_uint64()
        try:
            ret = lib.qpu_submit(dev, ctypes.byref(desc), ctypes.byref(seqno))
        finally:
            if in_fd >= 0:
                os.close(in_fd)
        if ret:
            raise DeviceError(ret, "qpu_submit")
        return Job(self._h, seqno.value, out_fd.value, keep + list(buffers),
                   _FaultContext(self._h, code_info, listed, all_buffers))

    def run(self, code=None, uniforms=None, *, programs=None, buffers=(), in_fences=(),
            timeout_ms=None, all_buffers=False, wait_timeout=None, check=True, **dispatch):
        """submit(), then wait for the job's Result; raises its JobError (a
        FaultError, a JobTimeoutError...) when it did not end as done."""
        with self.submit(code, uniforms, programs=programs, buffers=buffers,
                         in_fences=in_fences, timeout_ms=timeout_ms,
                         all_buffers=all_buffers, **dispatch) as job:
            return job.wait(wait_timeout, check)

    # --- the sample kernels ---------------------------------------------------

    @property
    def kernels(self):
        """The sample kernels of <qpu_kernels.h> on this device (qpu.Kernels)."""
        self._h.check()
        if self._kernels is None:
            from .kernels import Kernels
            self._kernels = Kernels(self)
        return self._kernels
