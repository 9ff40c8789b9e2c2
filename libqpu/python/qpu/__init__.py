# SPDX-License-Identifier: MIT
"""qpu: the VideoCore IV QPUs from Python, over libqpu.so (ctypes, numpy).

    import numpy as np, qpu
    with qpu.Device() as dev:               # $QPU_DEVICE, /dev/qpu, or "emu"
        out = dev.array(16, np.uint32)      # zero copy: the QPU writes what numpy reads
        prog = qpu.assemble(SOURCE)
        dev.run(prog, [out.bus_addr])
        print(out)

See README.md beside this package for the whole API.
"""

from ._lib import LIBRARY_PATH, lib as _clib
from .asm import (Hazard, Program, assemble, assemble_file, assemble_line, check_hazards,
                  disassemble, disassemble_word, hazard_rule, hazard_rules, write_reg_name)
from .device import MAX_PROGRAMS, TIMEOUT_NONE, Array, Buffer, Device, Job, Result
from .emit import (NOP, R0, R1, R2, R3, R4, R5, REGISTERS, AddOp, BrCond, Cond, Emitter,
                   MulOp, Pack, Reg, Sig, Unpack, VpmMode, imm, immf, ra, rb)
from .errors import (AssemblyError, CanceledError, ClosedError, DeadlockError, DeviceError,
                     Diagnostic, EmitError, Error, FaultError, JobError, JobTimeoutError,
                     KernelError, WaitTimeout)
from .kernels import Kernels, Reduction
from . import emit as regs  # every register name: qpu.regs.UNIF, qpu.regs.VW_SETUP...

__version__ = "0.4.0"
#: the version of the libqpu.so in use
library_version = _clib.qpu_version().decode()

for _name in REGISTERS:
    globals()[_name] = getattr(regs, _name)
del _name
