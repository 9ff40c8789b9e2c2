# SPDX-License-Identifier: MIT
"""libqpu.so through ctypes: finding the library, its C types and numbers.

This file owns the Python copy of what libqpu's public headers declare
(struct layouts, enum values, macros, function prototypes). The headers
stay the one source: tests/test_abi.py compiles a C program against them
and fails on any value or offset that differs from the ones below.
"""

import ctypes
import os

# --- finding the library ---------------------------------------------------

SONAME = "libqpu.so.0"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Where libqpu.so.0 is looked for, in order (see README.md)."""
    env = os.environ.get("QPU_LIBRARY")
    if env:
        yield env, True
    # Next to the package: inside it (a wheel that carries the library),
    # then the library directory it was installed under by `make install`
    # (<libdir>/python3.X/dist-packages/qpu: three levels up).
    d = _HERE
    for _ in range(4):
        yield os.path.join(d, SONAME), False
        d = os.path.dirname(d)
    # The dynamic loader's own search (ld.so.cache, LD_LIBRARY_PATH).
    yield SONAME, True


def _load():
    tried = []
    for path, must in _candidates():
        if not must and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path, use_errno=True), path
        except OSError as e:
            if path == os.environ.get("QPU_LIBRARY"):
                raise ImportError("QPU_LIBRARY=%s cannot be loaded: %s" % (path, e)) from e
            tried.append("%s (%s)" % (path, e))
    raise ImportError("libqpu not found; tried: " + "; ".join(tried) +
                      ". Set QPU_LIBRARY to the path of " + SONAME)


lib, LIBRARY_PATH = _load()

# --- numbers of <qpu.h> -------------------------------------------------------

# enum qpu_dev_param
DEV_PARAMS = {
    "num_qpus": 1, "num_slices": 2, "num_semaphores": 3, "vpm_size": 4,
    "max_bo_size": 5, "default_timeout_ms": 6, "max_timeout_ms": 7,
    "backend": 8, "abi_version": 9, "features": 10, "v3d_ident0": 11,
    "v3d_ident1": 12, "v3d_ident2": 13, "instructions_per_ms": 14, "gen": 15,
    "bo_l2_cached": 16,
}
# QPU_DEV_FEATURE_* bits of QPU_DEV_PARAM_FEATURES by name: filled below from
# libqpu's one table of their names (qpu_dev_feature_name()).
DEV_FEATURES = {}
# enum qpu_dev_backend
BACKEND_HARDWARE = 1
BACKEND_SIMULATED = 2
JOB_TIMEOUT_NONE = 0xFFFFFFFF
JOB_ALL_BOS = 1 << 0  # qpu_job_desc.flags
JOB_MAX_QPUS = 16
JOB_VC4_PROGRAMS, JOB_V3D_DISPATCH = 0, 1  # enum qpu_job_kind
JOB_RESULT_INSTRUCTIONS = 1 << 0
JOB_RESULT_COUNTERS = 1 << 1
JOB_RESULT_QPUS = 1 << 2
JOB_RESULT_PROGRESS = 1 << 4  # 0.7
# enum qpu_status (STATUS_RESET: 0.7)
STATUS_DONE, STATUS_TIMEOUT, STATUS_FAULT, STATUS_CANCELED, STATUS_DEADLOCK = 1, 2, 3, 4, 5
STATUS_RESET = 6
# enum qpu_access
ACCESS_NAMES = ("none", "fetch", "uniform", "tmu", "dma_load", "dma_store", "other", "tmu_write")
# enum qpu_activity
ACTIVITY_NAMES = {1: "idle", 2: "running", 3: "wait_semaphore", 4: "wait_mutex", 7: "wait_barrier",
                  5: "wait_vpm", 6: "wait_tmu"}

# --- struct layouts --------------------------------------------------------------

c_enum = ctypes.c_int


class ProgramRef(ctypes.Structure):
    _fields_ = [("code", ctypes.c_void_p), ("code_offset", ctypes.c_uint32),
                ("uniforms", ctypes.c_void_p), ("uniforms_offset", ctypes.c_uint32),
                ("uniforms_length", ctypes.c_uint32)]


class V3dDispatch(ctypes.Structure):
    _fields_ = [("code", ctypes.c_void_p), ("code_offset", ctypes.c_uint32),
                ("uniforms", ctypes.c_void_p), ("uniforms_offset", ctypes.c_uint32),
                ("wg_count", ctypes.c_uint32 * 3), ("wg_size", ctypes.c_uint32),
                ("wgs_per_sg", ctypes.c_uint32), ("batches", ctypes.c_uint32),
                ("threads", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


class JobDesc(ctypes.Structure):
    _fields_ = [("programs", ctypes.POINTER(ProgramRef)), ("program_count", ctypes.c_uint),
                ("bos", ctypes.POINTER(ctypes.c_void_p)), ("bo_count", ctypes.c_uint),
                ("timeout_ms", ctypes.c_uint), ("in_fence_fd", ctypes.c_int),
                ("out_fence_fd", ctypes.POINTER(ctypes.c_int)), ("flags", ctypes.c_uint),
                # 0.5: enum qpu_job_kind (0: VideoCore IV programs) and the V3D dispatch
                ("kind", ctypes.c_int), ("dispatch", ctypes.c_void_p)]


class JobCounters(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in (
        "dual_issued", "tmu_bytes", "uniform_bytes", "dma_load_bytes",
        "dma_store_bytes", "run_ns", "vpm_wrapped")]


class JobQpu(ctypes.Structure):
    _fields_ = [("pc", ctypes.c_uint32), ("activity", c_enum), ("semaphore", ctypes.c_uint32)]


class JobTiming(ctypes.Structure):
    _fields_ = [("board", c_enum), ("pad", ctypes.c_uint32)] + [
        (n, ctypes.c_uint64) for n in (
            "cycles", "ns", "launch_ns", "sdram_bytes", "stall_tmu", "stall_dma",
            "stall_sync", "stall_other")]


class JobResult(ctypes.Structure):
    _fields_ = [("status", c_enum), ("fault_qpu", ctypes.c_uint32),
                ("fault_pc", ctypes.c_uint32), ("fault_addr", ctypes.c_uint32),
                ("fault_access", c_enum), ("flags", ctypes.c_uint32),
                ("instructions", ctypes.c_uint64), ("counters", JobCounters),
                ("qpu_count", ctypes.c_uint32), ("fault_thread", ctypes.c_uint32),
                ("qpus", JobQpu * JOB_MAX_QPUS), ("timing", JobTiming),
                # 0.7: a V3D dispatch's progress
                ("batches", ctypes.c_uint64), ("batches_done", ctypes.c_uint64)]


# 0.8: struct qpu_telemetry (qpu_dev_get_telemetry())
TELEMETRY_CLOCK_SET = 1 << 0
TELEMETRY_CLOCK = 1 << 1
TELEMETRY_TEMP = 1 << 2
TELEMETRY_THROTTLED = 1 << 3


class Telemetry(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint32), ("throttled", ctypes.c_uint32),
                ("clock_set_hz", ctypes.c_uint64), ("clock_hz", ctypes.c_uint64),
                ("temp_mc", ctypes.c_int32), ("reserved", ctypes.c_uint32),
                ("source", ctypes.c_char_p), ("why_clock", ctypes.c_char_p),
                ("why_temp", ctypes.c_char_p), ("why_throttled", ctypes.c_char_p)]


# <qpu_asm.h>
class AsmLoc(ctypes.Structure):
    pass


AsmLoc._fields_ = [("file", ctypes.c_char_p), ("line", ctypes.c_uint), ("col", ctypes.c_uint),
                   ("expanded_from", ctypes.POINTER(AsmLoc)), ("macro", ctypes.c_char_p)]


class AsmDiag(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char_p), ("line", ctypes.c_uint), ("col", ctypes.c_uint),
                ("warning", ctypes.c_bool), ("msg", ctypes.c_char_p),
                ("expanded_from", ctypes.POINTER(AsmLoc))]


DIS_BUF_SIZE = 192
DIS_TARGET = 1 << 0


# <qpu_hazard.h>
class Hazard(ctypes.Structure):
    _fields_ = [("word", ctypes.c_size_t), ("ref", ctypes.c_size_t), ("rule", ctypes.c_uint),
                ("name", ctypes.c_char_p), ("message", ctypes.c_char_p)]


HAZARD_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Hazard), ctypes.c_void_p)
HAZARD_NUM_RULES = 37
HAZARD_PARTIAL = 1 << 0
HAZARD_NO_REF = ctypes.c_size_t(-1).value


# <qpu_emit.h>
class Reg(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint8) for n in ("kind", "addr", "access", "pack", "unpack", "rot")]


REG_ACC, REG_A, REG_B, REG_AB, REG_IMM = range(5)
REG_READ, REG_WRITE = 1, 2
REG_RW = REG_READ | REG_WRITE
IMM_INVALID = 0xFF


# <qpu_kernels.h>
class KernelStats(ctypes.Structure):
    _fields_ = [("qpus", ctypes.c_uint), ("instructions_known", ctypes.c_int),
                ("instructions", ctypes.c_uint64), ("tmu_bytes", ctypes.c_uint64),
                ("uniform_bytes", ctypes.c_uint64), ("dma_load_bytes", ctypes.c_uint64),
                ("dma_store_bytes", ctypes.c_uint64), ("elapsed_ns", ctypes.c_uint64),
                ("counters_known", ctypes.c_int), ("counters", JobCounters)]


class Matrix(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("offset", ctypes.c_size_t), ("rows", ctypes.c_size_t),
                ("cols", ctypes.c_size_t), ("stride", ctypes.c_size_t)]


class Vector(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("offset", ctypes.c_size_t), ("length", ctypes.c_size_t)]


class Image(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("offset", ctypes.c_size_t), ("width", ctypes.c_uint),
                ("height", ctypes.c_uint), ("stride", ctypes.c_size_t)]


class ReduceResult(ctypes.Structure):
    _fields_ = [("sum", ctypes.c_float), ("min", ctypes.c_float), ("max", ctypes.c_float)]


class Yuv420(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("y_offset", ctypes.c_size_t),
                ("u_offset", ctypes.c_size_t), ("v_offset", ctypes.c_size_t),
                ("width", ctypes.c_uint), ("height", ctypes.c_uint),
                ("y_stride", ctypes.c_size_t), ("uv_stride", ctypes.c_size_t)]


class PlanarRgb(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("offset", ctypes.c_size_t),
                ("width", ctypes.c_uint), ("height", ctypes.c_uint)]


# --- prototypes ----------------------------------------------------------------------

_vp, _int, _uint, _u32, _u64, _sz = (ctypes.c_void_p, ctypes.c_int, ctypes.c_uint,
                                     ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t)
_str = ctypes.c_char_p
_P = ctypes.POINTER
_float = ctypes.c_float

PROTOTYPES = {
    # <qpu.h>
    "qpu_version": (_str, []),
    "qpu_dev_open": (_vp, [_str]),
    "qpu_last_error": (_str, []),
    "qpu_dev_close": (None, [_vp]),
    "qpu_dev_get_path": (_str, [_vp]),
    "qpu_dev_get_param": (_int, [_vp, c_enum, _P(_u64)]),
    "qpu_backend_name": (_str, [c_enum]),
    "qpu_dev_describe": (_str, [_vp]),
    "qpu_dev_get_telemetry": (_int, [_vp, _P(Telemetry)]),
    "qpu_dev_open_hint": (_str, [_int]),
    "qpu_dev_feature_name": (_str, [_uint]),
    "qpu_gen_name": (_str, [c_enum]),
    "qpu_gen_from_name": (_int, [_str]),
    "qpu_bo_new": (_vp, [_vp, _sz]),
    "qpu_bo_free": (None, [_vp]),
    "qpu_bo_get_map": (_vp, [_vp]),
    "qpu_bo_get_bus_addr": (_u32, [_vp]),
    "qpu_bo_get_size": (_sz, [_vp]),
    "qpu_bo_import_dmabuf": (_int, [_vp, _int, _sz, _P(_vp)]),
    "qpu_bo_export_dmabuf": (_int, [_vp, _P(_int)]),
    "qpu_submit": (_int, [_vp, _P(JobDesc), _P(_u64)]),
    "qpu_wait": (_int, [_vp, _u64, _int, _P(JobResult)]),
    "qpu_job_status_str": (_str, [c_enum]),
    "qpu_access_str": (_str, [c_enum]),
    # <qpu_asm.h>
    "qpu_asm_new": (_vp, []),
    "qpu_asm_free": (None, [_vp]),
    "qpu_asm_add_include_dir": (_int, [_vp, _str]),
    "qpu_asm_set_gen": (_int, [_vp, c_enum]),
    "qpu_asm_default_include_dir": (_int, [_sz, ctypes.c_char_p, _sz]),
    "qpu_asm_file": (_int, [_vp, _str]),
    "qpu_asm_string": (_int, [_vp, _str, _str]),
    "qpu_asm_words": (_sz, [_vp, _P(_P(_u64))]),
    "qpu_asm_locs": (_sz, [_vp, _P(_P(AsmLoc))]),
    "qpu_asm_diags": (_sz, [_vp, _P(_P(AsmDiag))]),
    "qpu_asm_line": (_int, [_str, _P(_u64), ctypes.c_char_p, _sz]),
    # <qpu_dis.h>
    "qpu_dis_word": (_int, [_u64, _u32, _uint, ctypes.c_char_p, _sz]),
    "qpu_dis_write_reg_name": (_str, [_uint, ctypes.c_bool]),
    # <qpu_hazard.h>
    "qpu_hazard_check": (_int, [_P(_u64), _sz, _u64, _uint, HAZARD_CB, _vp]),
    "qpu_hazard_rule_name": (_str, [_uint]),
    "qpu_hazard_rule_summary": (_str, [_uint]),
    "qpu_hazard_rule_find": (_int, [_str]),
    # <qpu_emit.h>
    "qpu_immf": (Reg, [_float]),
    "qpu_emit_new": (_vp, []),
    "qpu_emit_free": (None, [_vp]),
    "qpu_emit_finish": (_int, [_vp]),
    "qpu_emit_words": (_P(_u64), [_vp, _P(_sz)]),
    "qpu_emit_error": (_str, [_vp, _P(_sz)]),
    "qpu_emit_count": (_sz, [_vp]),
    "qpu_emit_add": (None, [_vp, c_enum, Reg, Reg, Reg]),
    "qpu_emit_mul": (None, [_vp, c_enum, Reg, Reg, Reg]),
    "qpu_emit_dual_add": (None, [_vp, c_enum, Reg, Reg, Reg]),
    "qpu_emit_dual_mul": (None, [_vp, c_enum, Reg, Reg, Reg]),
    "qpu_emit_cond": (None, [_vp, c_enum]),
    "qpu_emit_setf": (None, [_vp]),
    "qpu_emit_sig": (None, [_vp, c_enum]),
    "qpu_emit_read": (None, [_vp, Reg]),
    "qpu_emit_ldi": (None, [_vp, Reg, _u32]),
    "qpu_emit_ldi_float": (None, [_vp, Reg, _float]),
    "qpu_emit_ldi_pes": (None, [_vp, Reg, _P(_int)]),
    "qpu_emit_ldi_peu": (None, [_vp, Reg, _P(_int)]),
    "qpu_emit_ldi_dest2": (None, [_vp, Reg]),
    "qpu_emit_sacq": (None, [_vp, _uint]),
    "qpu_emit_srel": (None, [_vp, _uint]),
    "qpu_emit_brr": (None, [_vp, c_enum, _str]),
    "qpu_emit_brr_offset": (None, [_vp, c_enum, ctypes.c_int32]),
    "qpu_emit_bra": (None, [_vp, c_enum, _u32]),
    "qpu_emit_branch_reg": (None, [_vp, Reg]),
    "qpu_emit_branch_link": (None, [_vp, Reg]),
    "qpu_emit_label": (None, [_vp, _str]),
    "qpu_emit_raw": (None, [_vp, _u64]),
    "qpu_emit_nop": (None, [_vp]),
    "qpu_emit_mov": (None, [_vp, Reg, Reg]),
    "qpu_emit_dual_mov": (None, [_vp, Reg, Reg]),
    "qpu_emit_rotate": (None, [_vp, Reg, Reg, _uint]),
    "qpu_emit_thrend": (None, [_vp]),
    "qpu_emit_vpm_read_setup": (None, [_vp, _uint, _uint, c_enum, _uint, _uint, _uint]),
    "qpu_emit_vpm_write_setup": (None, [_vp, _uint, c_enum, _uint, _uint, _uint]),
    "qpu_emit_vdw_setup": (None, [_vp, _uint, _uint, c_enum, _uint, _uint, _uint]),
    "qpu_emit_vdw_stride": (None, [_vp, _uint]),
    "qpu_emit_vdr_setup": (None, [_vp, _uint, _uint, _uint, _uint, c_enum, _uint, _uint, _uint]),
    "qpu_emit_vdr_stride": (None, [_vp, _uint]),
    # <qpu_kernels.h>
    "qpu_kernels_new": (_vp, [_vp]),
    "qpu_kernels_free": (None, [_vp]),
    "qpu_kernels_get_dev": (_vp, [_vp]),
    "qpu_kernels_last_error": (_str, [_vp]),
    "qpu_kernels_drop_cache": (None, [_vp]),
    "qpu_vector_add": (_int, [_vp, _uint, _P(Vector), _P(Vector), _P(Vector), _P(KernelStats)]),
    "qpu_saxpy": (_int, [_vp, _uint, _float, _P(Vector), _P(Vector), _P(KernelStats)]),
    "qpu_reduce": (_int, [_vp, _uint, _P(Vector), _P(ReduceResult), _P(KernelStats)]),
    "qpu_rgb_to_gray": (_int, [_vp, _uint, _P(Image), _P(Image), _P(KernelStats)]),
    "qpu_threshold": (_int, [_vp, _uint, _P(Image), _P(Image), ctypes.c_uint8, ctypes.c_uint8,
                             _P(KernelStats)]),
    "qpu_yuv420_to_rgb": (_int, [_vp, _uint, _P(Yuv420), _P(PlanarRgb), _P(_float), _P(_float),
                                 _P(KernelStats)]),
    "qpu_sgemm": (_int, [_vp, _uint, _float, _P(Matrix), _P(Matrix), _float, _P(Matrix),
                         _P(KernelStats)]),
}

for _name, (_res, _args) in PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args

for _bit in range(64):
    _fname = lib.qpu_dev_feature_name(_bit)
    if _fname:
        DEV_FEATURES[_fname.decode()] = 1 << _bit


def cstr(s):
    """A Python str (or path) as the bytes a C string argument takes."""
    if isinstance(s, bytes):
        return s
    return os.fsencode(s)


def pystr(b):
    return None if b is None else b.decode("utf-8", "replace")


# <qpu_kernels.h>: post-processing (box decoding, NMS, connected components)
class Detection(ctypes.Structure):
    _fields_ = [("x1", ctypes.c_float), ("y1", ctypes.c_float), ("x2", ctypes.c_float),
                ("y2", ctypes.c_float), ("score", ctypes.c_float), ("class_id", ctypes.c_uint32),
                ("index", ctypes.c_uint32)]


class SsdParams(ctypes.Structure):
    _fields_ = [("anchors", ctypes.c_uint), ("classes", ctypes.c_uint),
                ("first_class", ctypes.c_uint), ("scale", ctypes.c_float * 4),
                ("score_threshold", ctypes.c_float), ("width", ctypes.c_float),
                ("height", ctypes.c_float)]


class YoloParams(ctypes.Structure):
    _fields_ = [("grid_w", ctypes.c_uint), ("grid_h", ctypes.c_uint), ("anchors", ctypes.c_uint),
                ("classes", ctypes.c_uint), ("stride", ctypes.c_float),
                ("score_threshold", ctypes.c_float)]


class NmsParams(ctypes.Structure):
    _fields_ = [("iou_threshold", ctypes.c_float), ("scale", ctypes.c_float),
                ("max_out", ctypes.c_uint)]


POSTPROC_PROTOTYPES = {
    "qpu_decode_ssd_cpu": (_int, [_vp, _P(SsdParams), _P(_float), _P(_float), _P(_float),
                                  _P(Detection), _sz, _P(_sz)]),
    "qpu_decode_yolo_cpu": (_int, [_vp, _P(YoloParams), _P(_float), _P(_float), _P(Detection),
                                   _sz, _P(_sz)]),
    "qpu_nms_cpu": (_int, [_vp, _P(Detection), _sz, _P(NmsParams), _P(_u32), _sz, _P(_sz)]),
    "qpu_nms": (_int, [_vp, _uint, _P(Detection), _sz, _P(NmsParams), _P(_u32), _sz, _P(_sz),
                       _P(KernelStats)]),
    "qpu_ccl_cpu": (_int, [_vp, _P(ctypes.c_uint8), _uint, _uint, _sz, ctypes.c_uint8, _uint,
                           _P(_u32), _P(_u32)]),
}

for _name, (_res, _args) in POSTPROC_PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


# --- qpu_preprocess() (<qpu_kernels.h>: fused pre-processing) -------------------------

class Frame(ctypes.Structure):
    _fields_ = [("bo", ctypes.c_void_p), ("format", ctypes.c_int), ("width", ctypes.c_uint),
                ("height", ctypes.c_uint), ("offset", ctypes.c_size_t * 3),
                ("stride", ctypes.c_size_t * 3)]


class Rect(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("width", ctypes.c_uint),
                ("height", ctypes.c_uint)]


class Preprocess(ctypes.Structure):
    _fields_ = [("src", Frame), ("crop", Rect), ("dst_bo", ctypes.c_void_p),
                ("dst_offset", ctypes.c_size_t), ("dst_width", ctypes.c_uint),
                ("dst_height", ctypes.c_uint), ("layout", ctypes.c_int), ("type", ctypes.c_int),
                ("colorspace", ctypes.c_int), ("flags", ctypes.c_uint), ("pad", ctypes.c_float),
                ("mean", ctypes.c_float * 3), ("std", ctypes.c_float * 3),
                ("scale", ctypes.c_float), ("zero_point", ctypes.c_int)]


PIX_FORMATS = {"nv12": 1, "i420": 2, "yuyv": 3, "rgb888": 4}
COLORSPACES = {"bt601-full": 0, "bt601-limited": 1, "bt709-limited": 2}
PREPROCESS_LETTERBOX, PREPROCESS_BGR = 0x1, 0x2

for _name, (_res, _args) in {
        "qpu_preprocess": (_int, [_vp, _uint, _P(Preprocess), _P(KernelStats)]),
        "qpu_preprocess_cpu": (_int, [_vp, _P(Preprocess)]),
        "qpu_preprocess_placement": (_int, [_P(Preprocess), _P(Rect)]),
}.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args
