# SPDX-License-Identifier: MIT
"""The package's copy of the public headers (qpu/_lib.py, qpu/emit.py)
against the headers themselves: a C program built from them prints every
number and struct offset the package uses, and each must agree."""

import os
import shutil
import subprocess

import pytest

from qpu import _lib, emit

INCLUDE = os.environ.get("QPU_TEST_INCLUDE",
                         os.path.join(os.path.dirname(__file__), "..", "..", "include"))
pytestmark = pytest.mark.host_only

STRUCTS = {
    "qpu_program_ref": _lib.ProgramRef, "qpu_job_desc": _lib.JobDesc,
    "qpu_job_counters": _lib.JobCounters, "qpu_job_qpu": _lib.JobQpu,
    "qpu_job_result": _lib.JobResult, "qpu_job_timing": _lib.JobTiming,
    "qpu_asm_loc": _lib.AsmLoc,
    "qpu_asm_diag": _lib.AsmDiag, "qpu_hazard": _lib.Hazard, "qpu_reg": _lib.Reg,
    "qpu_kernel_stats": _lib.KernelStats, "qpu_matrix": _lib.Matrix,
    "qpu_vector": _lib.Vector, "qpu_image": _lib.Image,
    "qpu_reduce_result": _lib.ReduceResult, "qpu_yuv420": _lib.Yuv420,
    "qpu_planar_rgb": _lib.PlanarRgb,
}


def expected():
    """(C expression, the package's value) pairs."""
    out = []
    for name, num in _lib.DEV_PARAMS.items():
        out.append(("QPU_DEV_PARAM_" + name.upper(), num))
    for name, bit in _lib.DEV_FEATURES.items():
        out.append(("QPU_DEV_FEATURE_" + name.upper(), bit))
    out += [("QPU_DEV_BACKEND_HARDWARE", _lib.BACKEND_HARDWARE),
            ("QPU_DEV_BACKEND_SIMULATED", _lib.BACKEND_SIMULATED),
            ("QPU_JOB_TIMEOUT_NONE", _lib.JOB_TIMEOUT_NONE),
            ("QPU_JOB_MAX_QPUS", _lib.JOB_MAX_QPUS), ("QPU_JOB_ALL_BOS", _lib.JOB_ALL_BOS),
            ("QPU_JOB_RESULT_INSTRUCTIONS", _lib.JOB_RESULT_INSTRUCTIONS),
            ("QPU_JOB_RESULT_COUNTERS", _lib.JOB_RESULT_COUNTERS),
            ("QPU_JOB_RESULT_QPUS", _lib.JOB_RESULT_QPUS),
            ("QPU_STATUS_DONE", _lib.STATUS_DONE), ("QPU_STATUS_TIMEOUT", _lib.STATUS_TIMEOUT),
            ("QPU_STATUS_FAULT", _lib.STATUS_FAULT), ("QPU_STATUS_CANCELED", _lib.STATUS_CANCELED),
            ("QPU_STATUS_DEADLOCK", _lib.STATUS_DEADLOCK),
            ("QPU_DIS_BUF_SIZE", _lib.DIS_BUF_SIZE), ("QPU_DIS_TARGET", _lib.DIS_TARGET),
            ("QPU_HAZARD_NUM_RULES", _lib.HAZARD_NUM_RULES),
            ("QPU_HAZARD_PARTIAL", _lib.HAZARD_PARTIAL),
            ("QPU_IMM_INVALID", _lib.IMM_INVALID)]
    for i, name in enumerate(_lib.ACCESS_NAMES):
        out.append(("QPU_ACCESS_" + name.upper(), i))
    for num, name in _lib.ACTIVITY_NAMES.items():
        out.append(("QPU_ACTIVITY_" + name.upper(), num))
    for enum_cls, prefix in ((emit.AddOp, "QPU_ADD_"), (emit.MulOp, "QPU_MUL_"),
                             (emit.Cond, "QPU_COND_"), (emit.BrCond, "QPU_BR_"),
                             (emit.Sig, "QPU_SIG_"), (emit.VpmMode, "QPU_VPM_")):
        out += [(prefix + m.name, int(m)) for m in enum_cls]
    out += [("QPU_PACK_" + m.name.replace("P", "", 1) if m.name[0] == "P" else
             "QPU_PACK_" + m.name, int(m)) for m in emit.Pack]
    out += [("QPU_UNPACK_" + m.name.replace("U", "", 1) if m.name[0] == "U" else
             "QPU_UNPACK_" + m.name, int(m)) for m in emit.Unpack]
    for name, (kind, addr, access) in emit.REGISTERS.items():
        for field, v in (("kind", kind), ("addr", addr), ("access", access)):
            out.append(("QPU_%s.%s" % (name, field), v))
    out += [("QPU_RA(7).addr", emit.ra(7).c.addr), ("QPU_RB(7).kind", emit.rb(7).c.kind),
            ("qpu_imm(-3).addr", emit.imm(-3).c.addr)]
    for cname, cls in STRUCTS.items():
        out.append(("sizeof(struct %s)" % cname, __import__("ctypes").sizeof(cls)))
        for f, _ in cls._fields_:
            out.append(("offsetof(struct %s, %s)" % (cname, f), getattr(cls, f).offset))
    return out


def struct_pairs(structs):
    """(C expression, package value) of the size and every field's offset of
    each {C struct name: ctypes class} of `structs`."""
    out = []
    for cname, cls in structs.items():
        out.append(("sizeof(struct %s)" % cname, __import__("ctypes").sizeof(cls)))
        out += [("offsetof(struct %s, %s)" % (cname, f), getattr(cls, f).offset)
                for f, _ in cls._fields_]
    return out


def check_against_headers(tmp_path, headers, pairs):
    """Each (C expression, package value) of `pairs` printed by a program
    built from `headers`; fails on any that differ (other modules' copies
    of a header use it too)."""
    cc = shutil.which("cc")
    if not cc or not os.path.isfile(os.path.join(INCLUDE, headers[0])):
        pytest.skip("needs cc and libqpu's headers")
    src = ["#include <stddef.h>", "#include <stdio.h>"]
    src += ["#include <%s>" % h for h in headers]
    src.append("int main(void) {")
    src += ['\tprintf("%%llu\\n", (unsigned long long)(%s));' % e for e, _ in pairs]
    src.append("\treturn 0;\n}")
    (tmp_path / "abi.c").write_text("\n".join(src) + "\n")
    subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror", "-I", INCLUDE, "-o",
                    str(tmp_path / "abi"), str(tmp_path / "abi.c")], check=True)
    got = subprocess.run([str(tmp_path / "abi")], capture_output=True, text=True,
                         check=True).stdout.split()
    wrong = ["%s: header %s, package %s" % (e, g, v) for (e, v), g in zip(pairs, got)
             if int(g) != (v & 0xFFFFFFFFFFFFFFFF)]
    assert wrong == [] and len(got) == len(pairs)


def test_package_numbers_match_the_headers(tmp_path):
    check_against_headers(tmp_path, ("qpu.h", "qpu_asm.h", "qpu_dis.h", "qpu_emit.h",
                                     "qpu_hazard.h", "qpu_kernels.h"), expected())
