# SPDX-License-Identifier: MIT
"""The Python face of <qpu_emit.h>: a program built by one call per
instruction, each making the word the text assembler makes for its line.

    e = qpu.Emitter()
    e.mov(qpu.ra(1), qpu.UNIF)
    e.nop()
    e.label("loop")
    e.isub(qpu.ra(1), qpu.ra(1), qpu.imm(1)); e.setf()
    e.brr(qpu.BrCond.ANY_ZC, "loop")
    e.nop(); e.nop(); e.nop()
    e.thrend()
    prog = e.finish()          # a qpu.Program; EmitError names the instruction

Errors are sticky in C; here a call the builder refuses raises EmitError at
once, and what only encoding finds (operands that do not fit one word, an
undefined label) raises it from finish(); either names the instruction.
"""

import ctypes
import enum

from . import _lib
from ._lib import lib
from .asm import Program
from .errors import EmitError


class Reg:
    """An operand: a register (with its pack, unpack or rotation) or a small
    immediate. Build them with the names and functions of this module."""

    __slots__ = ("c",)

    def __init__(self, kind, addr, access=_lib.REG_RW, pack=0, unpack=0, rot=0):
        self.c = _lib.Reg(kind, addr, access, pack, unpack, rot)

    @classmethod
    def _of(cls, c):
        r = cls.__new__(cls)
        r.c = _lib.Reg(c.kind, c.addr, c.access, c.pack, c.unpack, c.rot)
        return r

    def _with(self, **kw):
        r = Reg._of(self.c)
        for k, v in kw.items():
            setattr(r.c, k, v)
        return r

    def pack(self, pack):
        """This register written through a pack ("ra1.16a")."""
        return self._with(pack=int(Pack(pack)))

    def unpack(self, unpack):
        """This register read through an unpack ("ra1.16a", "r4.8a")."""
        return self._with(unpack=int(Unpack(unpack)))

    def rot(self, n):
        """A mul ALU source rotated by n elements (1..15; 0 for none)."""
        return self._with(rot=n if 0 <= n <= 15 else 17)

    def rot_r5(self):
        """A mul ALU source rotated by r5's element 0."""
        return self._with(rot=16)

    def __eq__(self, other):
        return isinstance(other, Reg) and bytes(self.c) == bytes(other.c)

    def __hash__(self):
        return hash(bytes(self.c))

    def __repr__(self):
        c = self.c
        return "Reg(kind=%d, addr=%d, access=%d, pack=%d, unpack=%d, rot=%d)" % (
            c.kind, c.addr, c.access, c.pack, c.unpack, c.rot)


_R, _W, _RW = _lib.REG_READ, _lib.REG_WRITE, _lib.REG_RW
_ACC, _A, _B, _AB = _lib.REG_ACC, _lib.REG_A, _lib.REG_B, _lib.REG_AB

# The names of <qpu_emit.h>, without their QPU_ prefix.
REGISTERS = {
    "R0": (_ACC, 0, _RW), "R1": (_ACC, 1, _RW), "R2": (_ACC, 2, _RW), "R3": (_ACC, 3, _RW),
    "R4": (_ACC, 4, _R), "R5": (_ACC, 5, _R),
    "NOP": (_AB, 39, _RW), "UNIF": (_AB, 32, _R), "VARY": (_AB, 35, _R), "VPM": (_AB, 48, _RW),
    "MUTEX": (_AB, 51, _RW), "TMURS": (_AB, 36, _W), "HOST_INT": (_AB, 38, _W),
    "TLB_STENCIL": (_AB, 43, _W), "TLB_Z": (_AB, 44, _W), "TLB_COLOR_MS": (_AB, 45, _W),
    "TLB_COLOR_ALL": (_AB, 46, _W), "TLB_ALPHA_MASK": (_AB, 47, _W),
    "SFU_RECIP": (_AB, 52, _W), "SFU_RECIPSQRT": (_AB, 53, _W), "SFU_EXP": (_AB, 54, _W),
    "SFU_LOG": (_AB, 55, _W),
    "TMU0_S": (_AB, 56, _W), "TMU0_T": (_AB, 57, _W), "TMU0_R": (_AB, 58, _W),
    "TMU0_B": (_AB, 59, _W), "TMU1_S": (_AB, 60, _W), "TMU1_T": (_AB, 61, _W),
    "TMU1_R": (_AB, 62, _W), "TMU1_B": (_AB, 63, _W),
    "ELEM_NUM": (_A, 38, _R), "X_COORD": (_A, 41, _RW), "MS_MASK": (_A, 42, _RW),
    "VR_BUSY": (_A, 49, _R), "VR_WAIT": (_A, 50, _R), "R5QUAD": (_A, 37, _W),
    "UNIF_ADDR": (_A, 40, _W), "VR_SETUP": (_A, 49, _W), "VR_ADDR": (_A, 50, _W),
    "QPU_NUM": (_B, 38, _R), "Y_COORD": (_B, 41, _RW), "REV_FLAG": (_B, 42, _RW),
    "VW_BUSY": (_B, 49, _R), "VW_WAIT": (_B, 50, _R), "R5REP": (_B, 37, _W),
    "UNIF_ADDR_REL": (_B, 40, _W), "VW_SETUP": (_B, 49, _W), "VW_ADDR": (_B, 50, _W),
}
globals().update({name: Reg(*v) for name, v in REGISTERS.items()})


def ra(n):
    """Regfile A register n (0..31)."""
    if not 0 <= n <= 31:
        raise ValueError("ra%d: regfile registers are 0 to 31" % n)
    return Reg(_A, n)


def rb(n):
    """Regfile B register n (0..31)."""
    if not 0 <= n <= 31:
        raise ValueError("rb%d: regfile registers are 0 to 31" % n)
    return Reg(_B, n)


def imm(value):
    """An integer small immediate, -16..15."""
    if not -16 <= value <= 15:
        raise ValueError("a small integer immediate is -16 to 15, not %r" % (value,))
    return Reg(_lib.REG_IMM, value & 31, _R)


def immf(value):
    """A float small immediate: a power of two from 1/256 to 128."""
    r = Reg._of(lib.qpu_immf(float(value)))
    if r.c.addr == _lib.IMM_INVALID:
        raise ValueError("%r is no float small immediate (powers of two 1/256 to 128)" % value)
    return r


class AddOp(enum.IntEnum):
    NOP, FADD, FSUB, FMIN, FMAX, FMINABS, FMAXABS, FTOI, ITOF = range(9)
    ADD, SUB, SHR, ASR, ROR, SHL, MIN, MAX, AND, OR, XOR, NOT, CLZ = range(12, 25)
    V8ADDS, V8SUBS = 30, 31


class MulOp(enum.IntEnum):
    NOP, FMUL, MUL24, V8MULD, V8MIN, V8MAX, V8ADDS, V8SUBS = range(8)


class Cond(enum.IntEnum):
    NEVER, ALWAYS, ZS, ZC, NS, NC, CS, CC = range(8)


class BrCond(enum.IntEnum):
    ALL_ZS, ALL_ZC, ANY_ZS, ANY_ZC, ALL_NS, ALL_NC, ANY_NS, ANY_NC, \
        ALL_CS, ALL_CC, ANY_CS, ANY_CC = range(12)
    ALWAYS = 15


class Sig(enum.IntEnum):
    BKPT, NONE, THRSW, THREND, SBWAIT, SBDONE, LTHRSW, LOADCV, LOADC, LDCEND, \
        LDTMU0, LDTMU1, LOADAM = range(13)


class Pack(enum.IntEnum):
    NONE, P16A, P16B, P8888, P8A, P8B, P8C, P8D, P32_SAT, P16A_SAT, P16B_SAT, \
        P8888_SAT, P8A_SAT, P8B_SAT, P8C_SAT, P8D_SAT = range(16)
    MUL_8888, MUL_8A, MUL_8B, MUL_8C, MUL_8D = range(19, 24)


class Unpack(enum.IntEnum):
    NONE, U16A, U16B, U8D_REP, U8A, U8B, U8C, U8D = range(8)


class VpmMode(enum.IntEnum):
    V8, V16, V32 = 0, 1, 2
    V8L, V16L = 4, 5
    H8, H16, H32 = 8, 9, 10
    H8L, H16L = 12, 13


def _reg(r, what):
    if not isinstance(r, Reg):
        raise TypeError("%s must be a qpu register (qpu.R0, qpu.ra(1), qpu.imm(3)...), not %r"
                        % (what, r))
    return r.c


def _u(v, what):
    v = int(v)
    if not 0 <= v <= 0xFFFFFFFF:
        raise ValueError("%s must fit 32 bits unsigned, not %d" % (what, v))
    return v


class Emitter:
    """A program being built: one method per C builder call."""

    def __init__(self):
        self._e = lib.qpu_emit_new()
        if not self._e:
            raise MemoryError("qpu_emit_new")
        self._finished = None

    def __del__(self):
        e, self._e = getattr(self, "_e", None), None
        if e:
            lib.qpu_emit_free(e)

    def _call(self, fn, *args):
        if self._finished is not None:
            raise EmitError("the program is finished: nothing can be added", self.count)
        fn(self._e, *args)
        self._raise()
        return self

    def _raise(self):
        idx = ctypes.c_size_t()
        msg = lib.qpu_emit_error(self._e, ctypes.byref(idx))
        if msg is not None:
            raise EmitError(msg.decode(), idx.value)

    @property
    def count(self):
        """Instructions so far: the index of the next one."""
        return lib.qpu_emit_count(self._e)

    def finish(self):
        """Resolve the labels and return the Program."""
        if self._finished is None:
            ret = lib.qpu_emit_finish(self._e)
            self._raise()
            if ret:
                raise EmitError("qpu_emit_finish failed (%d)" % ret, self.count)
            n = ctypes.c_size_t()
            p = lib.qpu_emit_words(self._e, ctypes.byref(n))
            self._finished = Program([p[i] for i in range(n.value)])
        return self._finished

    # ALU
    def add(self, op, d, a, b=None):
        return self._call(lib.qpu_emit_add, int(AddOp(op)), _reg(d, "d"), _reg(a, "a"),
                          _reg(a if b is None else b, "b"))

    def mul(self, op, d, a, b):
        return self._call(lib.qpu_emit_mul, int(MulOp(op)), _reg(d, "d"), _reg(a, "a"),
                          _reg(b, "b"))

    def dual_add(self, op, d, a, b=None):
        return self._call(lib.qpu_emit_dual_add, int(AddOp(op)), _reg(d, "d"), _reg(a, "a"),
                          _reg(a if b is None else b, "b"))

    def dual_mul(self, op, d, a, b):
        return self._call(lib.qpu_emit_dual_mul, int(MulOp(op)), _reg(d, "d"), _reg(a, "a"),
                          _reg(b, "b"))

    def cond(self, cond):
        return self._call(lib.qpu_emit_cond, int(Cond(cond)))

    def setf(self):
        return self._call(lib.qpu_emit_setf)

    def sig(self, sig):
        return self._call(lib.qpu_emit_sig, int(Sig(sig)))

    def read(self, src):
        return self._call(lib.qpu_emit_read, _reg(src, "src"))

    # load immediates and semaphores
    def ldi(self, d, value):
        return self._call(lib.qpu_emit_ldi, _reg(d, "d"), int(value) & 0xFFFFFFFF
                          if -(1 << 31) <= int(value) < 0 else _u(value, "value"))

    def ldi_float(self, d, value):
        return self._call(lib.qpu_emit_ldi_float, _reg(d, "d"), float(value))

    def _per_element(self, fn, d, values):
        values = [int(v) for v in values]
        if len(values) != 16:
            raise ValueError("a per-element load takes 16 values, not %d" % len(values))
        return self._call(fn, _reg(d, "d"), (ctypes.c_int * 16)(*values))

    def ldi_pes(self, d, values):
        return self._per_element(lib.qpu_emit_ldi_pes, d, values)

    def ldi_peu(self, d, values):
        return self._per_element(lib.qpu_emit_ldi_peu, d, values)

    def ldi_dest2(self, d):
        return self._call(lib.qpu_emit_ldi_dest2, _reg(d, "d"))

    def sacq(self, n):
        return self._call(lib.qpu_emit_sacq, int(n))

    def srel(self, n):
        return self._call(lib.qpu_emit_srel, int(n))

    # branches
    def brr(self, cond, label):
        return self._call(lib.qpu_emit_brr, int(BrCond(cond)), _lib.cstr(label))

    def brr_offset(self, cond, offset):
        return self._call(lib.qpu_emit_brr_offset, int(BrCond(cond)), int(offset))

    def bra(self, cond, target):
        return self._call(lib.qpu_emit_bra, int(BrCond(cond)), _u(target, "target"))

    def branch_reg(self, ra_):
        return self._call(lib.qpu_emit_branch_reg, _reg(ra_, "ra"))

    def branch_link(self, d):
        return self._call(lib.qpu_emit_branch_link, _reg(d, "d"))

    def label(self, name):
        return self._call(lib.qpu_emit_label, _lib.cstr(name))

    # other words
    def raw(self, word):
        w = int(word)
        if not 0 <= w < 1 << 64:
            raise ValueError("a word is 64 bits unsigned, not %r" % (word,))
        return self._call(lib.qpu_emit_raw, w)

    def nop(self):
        return self._call(lib.qpu_emit_nop)

    def mov(self, d, s):
        return self._call(lib.qpu_emit_mov, _reg(d, "d"), _reg(s, "s"))

    def dual_mov(self, d, s):
        return self._call(lib.qpu_emit_dual_mov, _reg(d, "d"), _reg(s, "s"))

    def rotate(self, d, s, n):
        return self._call(lib.qpu_emit_rotate, _reg(d, "d"), _reg(s, "s"), int(n))

    def thrend(self):
        return self._call(lib.qpu_emit_thrend)

    # VPM and DMA setups
    def vpm_read_setup(self, num, stride, mode, y, x=0, part=0):
        return self._call(lib.qpu_emit_vpm_read_setup, num, stride, int(VpmMode(mode)), y, x, part)

    def vpm_write_setup(self, stride, mode, y, x=0, part=0):
        return self._call(lib.qpu_emit_vpm_write_setup, stride, int(VpmMode(mode)), y, x, part)

    def vdw_setup(self, units, depth, mode, y, x=0, part=0):
        return self._call(lib.qpu_emit_vdw_setup, units, depth, int(VpmMode(mode)), y, x, part)

    def vdw_stride(self, stride):
        return self._call(lib.qpu_emit_vdw_stride, stride)

    def vdr_setup(self, mpitch, rowlen, nrows, vpitch, mode, y, x=0, part=0):
        return self._call(lib.qpu_emit_vdr_setup, mpitch, rowlen, nrows, vpitch,
                          int(VpmMode(mode)), y, x, part)

    def vdr_stride(self, stride):
        return self._call(lib.qpu_emit_vdr_stride, stride)


def _op_method(kind, op, unary=False):
    if kind == "add":
        if unary:
            def m(self, d, a):
                return self.add(op, d, a, a)
        else:
            def m(self, d, a, b):
                return self.add(op, d, a, b)
    else:
        def m(self, d, a, b):
            return self.mul(op, d, a, b)
    m.__doc__ = "%s d, a%s" % (op.name.lower(), "" if unary else ", b")
    return m


# qpu_emit_fadd() and friends: one method per operation (integer add is iadd).
_OPS = {"fadd": AddOp.FADD, "fsub": AddOp.FSUB, "fmin": AddOp.FMIN, "fmax": AddOp.FMAX,
        "fminabs": AddOp.FMINABS, "fmaxabs": AddOp.FMAXABS, "iadd": AddOp.ADD,
        "isub": AddOp.SUB, "shr": AddOp.SHR, "asr": AddOp.ASR, "ror": AddOp.ROR,
        "shl": AddOp.SHL, "imin": AddOp.MIN, "imax": AddOp.MAX, "band": AddOp.AND,
        "bor": AddOp.OR, "bxor": AddOp.XOR, "av8adds": AddOp.V8ADDS, "av8subs": AddOp.V8SUBS}
_UNARY = {"ftoi": AddOp.FTOI, "itof": AddOp.ITOF, "bnot": AddOp.NOT, "clz": AddOp.CLZ}
_MULS = {"fmul": MulOp.FMUL, "mul24": MulOp.MUL24, "v8muld": MulOp.V8MULD,
         "v8min": MulOp.V8MIN, "v8max": MulOp.V8MAX, "v8adds": MulOp.V8ADDS,
         "v8subs": MulOp.V8SUBS}
for _n, _op in _OPS.items():
    setattr(Emitter, _n, _op_method("add", _op))
for _n, _op in _UNARY.items():
    setattr(Emitter, _n, _op_method("add", _op, unary=True))
for _n, _op in _MULS.items():
    setattr(Emitter, _n, _op_method("mul", _op))
