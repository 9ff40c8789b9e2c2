# SPDX-License-Identifier: MIT
"""The self-check of `python3 -m qpu`: what the device reports, then a
program and a sample kernel run on it, each checked against numpy."""

import numpy as np

from .asm import assemble
from .device import Device

# Each element i of the 16-wide vector gets i + the first uniform, stored
# by VCD DMA at the address in the second uniform.
ELEM_PLUS_UNIFORM = """
    mov r0, elem_num
    mov vw_setup, vpm_setup(1, 1, h32(0))
    add r0, r0, unif
    mov vpm, r0
    mov vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))
    mov vw_addr, unif
    mov -, vw_wait
    thrend
    nop
    nop
"""


def describe(dev):
    lines = ["device: %s (%s)" % (dev.path, dev.description)]
    lines += ["  %-20s %d" % (k, v) for k, v in dev.params.items() if k != "features"]
    lines.append("  %-20s %s" % ("features", ", ".join(sorted(dev.features)) or "none"))
    return lines


def checks(dev):
    """(name, passed, detail) of each check, in order."""
    out = dev.array(16, np.uint32)
    res = dev.run(assemble(ELEM_PLUS_UNIFORM, name="selfcheck"), [1000, out.bus_addr],
                  buffers=[out])
    want = np.arange(16, dtype=np.uint32) + 1000
    yield "program", bool((out == want).all()), str(res)
    a = dev.array(16 * dev.num_qpus)
    b = dev.empty_like(a)
    a[:] = np.arange(a.size, dtype=np.float32)
    b[:] = 0.5
    c = dev.kernels.vector_add(a, b)
    yield "vector_add", bool((c == a + b).all()), "%d QPUs" % dev.kernels.last_stats["qpus"]


def main(argv):
    from . import LIBRARY_PATH, library_version
    print("libqpu %s (%s)" % (library_version, LIBRARY_PATH))
    with Device(argv[1] if len(argv) > 1 else None) as dev:
        print("\n".join(describe(dev)))
        ok = True
        for name, passed, detail in checks(dev):
            print("%s %s: %s" % ("ok  " if passed else "FAIL", name, detail))
            ok &= passed
    print("self-check %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1
