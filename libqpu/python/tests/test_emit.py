# SPDX-License-Identifier: MIT
"""The emitter: every builder call makes the text assembler's word."""

import pytest

import qpu
from qpu import emit


def words(text):
    return list(qpu.assemble(text + "\n").words)


def test_readme_loop_matches_the_text_assembler():
    e = qpu.Emitter()
    e.mov(qpu.ra(1), qpu.UNIF)
    e.nop()
    e.label("loop")
    e.isub(qpu.ra(1), qpu.ra(1), qpu.imm(1)).setf()
    e.brr(qpu.BrCond.ANY_ZC, "loop")
    e.nop(); e.nop(); e.nop()
    e.thrend()
    p = e.finish()
    assert e.finish() is p and e.count == 10
    assert list(p.words) == words("""mov ra1, unif
nop
loop:
sub.setf ra1, ra1, 1
brr.anynz -, loop
nop
nop
nop
thrend
nop
nop""".replace("thrend", "nop; thrend"))


# (calls on an Emitter, the text line they make)
CASES = [
    (lambda e: e.fadd(qpu.R0, qpu.R1, qpu.R2), "fadd r0, r1, r2"),
    (lambda e: e.fsub(qpu.R0, qpu.R1, qpu.R2), "fsub r0, r1, r2"),
    (lambda e: e.fmin(qpu.R0, qpu.R1, qpu.R2), "fmin r0, r1, r2"),
    (lambda e: e.fmax(qpu.R0, qpu.R1, qpu.R2), "fmax r0, r1, r2"),
    (lambda e: e.fminabs(qpu.R0, qpu.R1, qpu.R2), "fminabs r0, r1, r2"),
    (lambda e: e.fmaxabs(qpu.R0, qpu.R1, qpu.R2), "fmaxabs r0, r1, r2"),
    (lambda e: e.ftoi(qpu.R0, qpu.R1), "ftoi r0, r1"),
    (lambda e: e.itof(qpu.R0, qpu.R1), "itof r0, r1"),
    (lambda e: e.iadd(qpu.R0, qpu.R1, qpu.imm(3)), "add r0, r1, 3"),
    (lambda e: e.isub(qpu.R0, qpu.R1, qpu.R2), "sub r0, r1, r2"),
    (lambda e: e.shr(qpu.R0, qpu.R1, qpu.R2), "shr r0, r1, r2"),
    (lambda e: e.asr(qpu.R0, qpu.R1, qpu.R2), "asr r0, r1, r2"),
    (lambda e: e.ror(qpu.R0, qpu.R1, qpu.R2), "ror r0, r1, r2"),
    (lambda e: e.shl(qpu.R0, qpu.R1, qpu.R2), "shl r0, r1, r2"),
    (lambda e: e.imin(qpu.R0, qpu.R1, qpu.R2), "min r0, r1, r2"),
    (lambda e: e.imax(qpu.R0, qpu.R1, qpu.R2), "max r0, r1, r2"),
    (lambda e: e.band(qpu.R0, qpu.R1, qpu.R2), "and r0, r1, r2"),
    (lambda e: e.bor(qpu.R0, qpu.R1, qpu.R2), "or r0, r1, r2"),
    (lambda e: e.bxor(qpu.R0, qpu.R1, qpu.R2), "xor r0, r1, r2"),
    (lambda e: e.bnot(qpu.R0, qpu.R1), "not r0, r1"),
    (lambda e: e.clz(qpu.R0, qpu.R1), "clz r0, r1"),
    (lambda e: e.av8adds(qpu.R0, qpu.R1, qpu.R2), None),
    (lambda e: e.av8subs(qpu.R0, qpu.R1, qpu.R2), None),
    (lambda e: e.fmul(qpu.R0, qpu.R1, qpu.R2), "nop; fmul r0, r1, r2"),
    (lambda e: e.mul24(qpu.R0, qpu.R1, qpu.R2), "nop; mul24 r0, r1, r2"),
    (lambda e: e.v8muld(qpu.R0, qpu.R1, qpu.R2), "nop; v8muld r0, r1, r2"),
    (lambda e: e.v8min(qpu.R0, qpu.R1, qpu.R2), "nop; v8min r0, r1, r2"),
    (lambda e: e.v8max(qpu.R0, qpu.R1, qpu.R2), "nop; v8max r0, r1, r2"),
    (lambda e: e.v8adds(qpu.R0, qpu.R1, qpu.R2), "nop; v8adds r0, r1, r2"),
    (lambda e: e.v8subs(qpu.R0, qpu.R1, qpu.R2), "nop; v8subs r0, r1, r2"),
    (lambda e: e.add(qpu.AddOp.FADD, qpu.R0, qpu.R1, qpu.R2).dual_mul(
        qpu.MulOp.FMUL, qpu.R3, qpu.R1, qpu.R2), "fadd r0, r1, r2; fmul r3, r1, r2"),
    (lambda e: e.mul(qpu.MulOp.FMUL, qpu.R3, qpu.R1, qpu.R2).dual_add(
        qpu.AddOp.FADD, qpu.R0, qpu.R1, qpu.R2), "fadd r0, r1, r2; fmul r3, r1, r2"),
    (lambda e: e.mov(qpu.R0, qpu.R1).dual_mov(qpu.R2, qpu.R3), "mov r0, r1; mov r2, r3"),
    (lambda e: e.mov(qpu.R0, qpu.R1).cond(qpu.Cond.ZS), "mov.ifz r0, r1"),
    (lambda e: e.mov(qpu.R0, qpu.R1).sig(qpu.Sig.LDTMU0), "mov r0, r1; ldtmu0"),
    (lambda e: e.nop().read(qpu.regs.VW_WAIT), "read vw_wait"),
    (lambda e: e.ldi(qpu.ra(2), 0x12345678), "ldi ra2, 0x12345678"),
    (lambda e: e.ldi(qpu.ra(2), -1), "ldi ra2, -1"),
    (lambda e: e.ldi_float(qpu.R0, 1.5), "ldi r0, 1.5"),
    (lambda e: e.ldi_pes(qpu.R0, [-2, -1, 0, 1] * 4),
     "ldipes r0, [-2, -1, 0, 1, -2, -1, 0, 1, -2, -1, 0, 1, -2, -1, 0, 1]"),
    (lambda e: e.ldi_peu(qpu.R0, [0, 1, 2, 3] * 4),
     "ldipeu r0, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]"),
    (lambda e: e.ldi(qpu.ra(1), 5).ldi_dest2(qpu.rb(2)), "ldi ra1, rb2, 5"),
    (lambda e: e.sacq(3), "sacq -, 3"),
    (lambda e: e.srel(4), "srel -, 4"),
    (lambda e: e.brr_offset(qpu.BrCond.ALWAYS, 32), "brr -, +32"),
    (lambda e: e.bra(qpu.BrCond.ALL_ZS, 0x1000), "bra.allz -, 0x1000"),
    (lambda e: e.bra(qpu.BrCond.ALWAYS, 0).branch_reg(qpu.ra(1)), "bra -, ra1, 0"),
    (lambda e: e.brr_offset(qpu.BrCond.ALWAYS, 0).branch_link(qpu.ra(0)), "brr ra0, +0"),
    (lambda e: e.raw(0x100009e7009e7000), ".quad 0x100009e7009e7000"),
    (lambda e: e.rotate(qpu.R0, qpu.R1, 3), "v8min r0, r1 >> 3, r1 >> 3"),
    (lambda e: e.mul(qpu.MulOp.FMUL, qpu.R0, qpu.R1.rot(2), qpu.R2.rot(2)),
     "nop; fmul r0, r1 >> 2, r2 >> 2"),
    (lambda e: e.mul(qpu.MulOp.FMUL, qpu.R0, qpu.R1.rot_r5(), qpu.R2.rot_r5()),
     "nop; fmul r0, r1 << r5, r2 << r5"),
    (lambda e: e.fadd(qpu.ra(1).pack(qpu.Pack.P16A), qpu.R1, qpu.R2), "fadd ra1.16a, r1, r2"),
    (lambda e: e.fadd(qpu.R0, qpu.ra(1).unpack(qpu.Unpack.U16A), qpu.R2),
     "fadd r0, ra1.16a, r2"),
    (lambda e: e.fmul(qpu.R0, qpu.R1, qpu.immf(2.0)), "nop; fmul r0, r1, 2.0"),
    (lambda e: e.vpm_read_setup(1, 1, qpu.VpmMode.H32, 0), "ldi vr_setup, vpm_setup(1, 1, h32(0))"),
    (lambda e: e.vpm_write_setup(1, qpu.VpmMode.H32, 2), "ldi vw_setup, vpm_setup(0, 1, h32(2))"),
    (lambda e: e.vdw_setup(1, 16, qpu.VpmMode.H32, 0), "ldi vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))"),
    (lambda e: e.vdw_stride(64), "ldi vw_setup, vdw_setup_1(64)"),
    (lambda e: e.vdr_setup(0, 16, 1, 1, qpu.VpmMode.H32, 0),
     "ldi vr_setup, vdr_setup_0(0, 16, 1, vdr_h32(1, 0, 0))"),
    (lambda e: e.vdr_stride(64), "ldi vr_setup, vdr_setup_1(64)"),
]


@pytest.mark.parametrize("build,text", CASES, ids=[c[1] or str(i) for i, c in enumerate(CASES)])
def test_builder_matches_text(build, text):
    e = qpu.Emitter()
    build(e)
    got = list(e.finish().words)
    if text is None:  # the add ALU's v8 ops: the text's spelling picks the mul ALU
        text = "\n".join(qpu.disassemble(e.finish()))
        assert "v8" in text and "nop;" not in text
    assert got == words(text), qpu.disassemble(e.finish())


def test_every_emitter_call_is_covered():
    import inspect
    src = inspect.getsource(inspect.getmodule(test_builder_matches_text))
    public = [n for n in dir(qpu.Emitter) if not n.startswith("_") and n != "count"]
    missing = [n for n in public if "e.%s(" % n not in src and ".%s(" % n not in src]
    assert missing == []


def test_registers():
    assert set(qpu.REGISTERS) >= {"R0", "UNIF", "VPM", "VW_SETUP", "ELEM_NUM"}
    assert qpu.regs.UNIF == emit.Reg(emit._AB, 32, emit._R) and hash(qpu.R0) == hash(qpu.regs.R0)
    assert "kind" in repr(qpu.ra(4))
    for bad in (lambda: qpu.ra(32), lambda: qpu.rb(-1), lambda: qpu.imm(16),
                lambda: qpu.immf(3.0)):
        with pytest.raises(ValueError):
            bad()


def test_errors():
    e = qpu.Emitter()
    e.nop()
    with pytest.raises(TypeError, match="register"):
        e.mov(qpu.R0, 5)
    with pytest.raises(ValueError):
        qpu.Emitter().add(99, qpu.R0, qpu.R1, qpu.R2)
    with pytest.raises(qpu.EmitError) as err:
        qpu.Emitter().nop().iadd(qpu.R0, qpu.imm(1), qpu.imm(2)).finish()  # one immediate
    assert err.value.index == 1
    with pytest.raises(qpu.EmitError):
        qpu.Emitter().dual_mul(qpu.MulOp.FMUL, qpu.R0, qpu.R1, qpu.R2)  # nothing to pair with
    with pytest.raises(ValueError):
        qpu.Emitter().ldi_pes(qpu.R0, [0] * 15)
    with pytest.raises(ValueError):
        qpu.Emitter().raw(-1)
    with pytest.raises(ValueError):
        qpu.Emitter().bra(qpu.BrCond.ALWAYS, 1 << 32)
    with pytest.raises(qpu.EmitError, match="nowhere"):
        qpu.Emitter().brr(qpu.BrCond.ALWAYS, "nowhere").nop().nop().nop().finish()
    done = qpu.Emitter().nop()
    done.finish()
    with pytest.raises(qpu.EmitError, match="finished"):
        done.nop()


def test_emitted_program_runs(dev):
    import numpy as np
    out = dev.array(16, np.uint32)
    e = qpu.Emitter()
    e.vpm_write_setup(1, qpu.VpmMode.H32, 0)
    e.iadd(qpu.regs.VPM, qpu.regs.ELEM_NUM, qpu.imm(5))
    e.vdw_setup(1, 16, qpu.VpmMode.H32, 0)
    e.mov(qpu.regs.VW_ADDR, qpu.regs.UNIF)
    e.read(qpu.regs.VW_WAIT)
    e.thrend()
    dev.run(e.finish(), [out.bus_addr], buffers=[out])
    assert (out == np.arange(16) + 5).all()
