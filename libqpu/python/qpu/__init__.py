# SPDX-License-Identifier: MIT
"""qpu: the VideoCore IV QPUs from Python, over libqpu.so (ctypes, numpy).

    import numpy as np, qpu

    SOURCE = '''
        mov r0, elem_num                  # 0..15, one per SIMD element
        mov vw_setup, vpm_setup(1, 1, h32(0))
        mov vpm, r0
        mov vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))
        mov vw_addr, unif                 # stored at the first uniform
        mov -, vw_wait
        thrend
        nop
        nop
    '''

    with qpu.Device() as dev:             # $QPU_DEVICE, else /dev/qpu; "emu" anywhere
        out = dev.array(16, np.uint32)    # zero copy: the QPU writes what numpy reads
        prog = qpu.assemble(SOURCE)
        dev.run(prog, [out.bus_addr], buffers=[out])   # buffers: what the job touches
        print(out)

See README.md beside this package for the whole API, examples/ for programs.
"""

from ._lib import LIBRARY_PATH, lib as _clib
from .asm import (Hazard, Program, assemble, assemble_file, assemble_line, check_hazards,
                  disassemble, disassemble_word, hazard_rule, hazard_rules, include_path,
                  write_reg_name)
from .device import MAX_PROGRAMS, TIMEOUT_NONE, Array, Buffer, Device, Job, Result
from .emit import (NOP, R0, R1, R2, R3, R4, R5, REGISTERS, AddOp, BrCond, Cond, Emitter,
                   MulOp, Pack, Reg, Sig, Unpack, VpmMode, imm, immf, ra, rb)
from .errors import (AssemblyError, CanceledError, ClosedError, DeadlockError, DeviceError,
                     Diagnostic, EmitError, Error, FaultError, JobError, JobTimeoutError,
                     KernelError, ResetError, WaitTimeout)
from .kernels import DETECTION, Kernels, Reduction
from .program import ProgramFunction, program
from . import emit as regs  # every register name: qpu.regs.UNIF, qpu.regs.VW_SETUP...

__version__ = "0.8.0"
#: the version of the libqpu.so in use
library_version = _clib.qpu_version().decode()

for _name in REGISTERS:
    globals()[_name] = getattr(regs, _name)
del _name
