#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A QPU program built in Python with @qpu.program over qpu.Emitter, in
PyVideoCore's style: each of 12 QPUs adds a scalar to 16 floats of a vector
(loaded through the TMU, stored by VCD DMA), at addresses it reads from its
uniforms; checked against numpy.

usage: emitter.py [-d DEVICE] [--disassemble]
"""

import argparse

import numpy as np

import qpu

R0, R1, R4 = qpu.R0, qpu.R1, qpu.R4
H32 = qpu.VpmMode.H32


@qpu.program
def add_scalar(asm):
    """out[i] = in[i] + s for this QPU's 16 floats. Uniforms: the input's
    address, the output's, s. The QPUs take turns at VPM row 0 under the
    mutex."""
    asm.mov(R0, qpu.ELEM_NUM)
    asm.shl(R0, R0, qpu.imm(2))                 # 4 bytes an element
    asm.iadd(qpu.TMU0_S, R0, qpu.UNIF)          # fetch in[i] through TMU0
    asm.mov(qpu.ra(1), qpu.UNIF)                # the output's address
    asm.mov(R1, qpu.UNIF)                       # s
    asm.nop().sig(qpu.Sig.LDTMU0)               # r4 = in[i]
    asm.fadd(R0, R4, R1)
    asm.mov(qpu.NOP, qpu.MUTEX)                 # reading the mutex acquires it
    asm.vpm_write_setup(1, H32, 0)
    asm.mov(qpu.VPM, R0)
    asm.vdw_setup(1, 16, H32, 0)
    asm.mov(qpu.VW_ADDR, qpu.ra(1))
    asm.mov(qpu.NOP, qpu.VW_WAIT)
    asm.mov(qpu.MUTEX, qpu.imm(1))              # writing it releases it
    asm.thrend()                                # nop; thrend, then its two nops


def main():
    p = argparse.ArgumentParser(description="A program built with @qpu.program, on 12 QPUs.")
    p.add_argument("-d", "--device", help="/dev/qpu, or emu (default $QPU_DEVICE, else /dev/qpu)")
    p.add_argument("--disassemble", action="store_true", help="print the program first")
    args = p.parse_args()

    prog = add_scalar()                          # a qpu.Program, as qpu.assemble() gives
    if args.disassemble:
        print("\n".join(prog.disassemble()))
    with qpu.Device(args.device) as dev:
        qpus = min(12, dev.num_qpus)
        x = dev.asarray(np.arange(16 * qpus, dtype=np.float32))
        y = dev.array(16 * qpus)
        s = 0.5
        programs = [(prog, np.array([x.bus_addr + 64 * q, y.bus_addr + 64 * q,
                                     np.float32(s).view(np.uint32)], np.uint32))
                    for q in range(qpus)]
        dev.run(programs=programs, buffers=[x, y])
        ok = np.array_equal(y, x + s)
        print("emitter: %d QPUs of %s: %s" % (qpus, dev.description, "ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
