# SPDX-License-Identifier: MIT
"""Fixtures of the qpu package's tests: the device under test
($QPU_TEST_DEVICE: "emu" by default, /dev/qpu in the VM) and programs."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import qpu  # noqa: E402

DEVICE = os.environ.get("QPU_TEST_DEVICE", "emu")
ON_EMU = DEVICE.startswith("emu")

# v[i] = i + uniform 0, stored by VCD DMA at uniform 1.
from qpu.selfcheck import ELEM_PLUS_UNIFORM as STORE  # noqa: E402

# v[i] = src[i] + 1: reads uniform 0's address through the TMU, stores at
# uniform 1.
LOAD_ADD_STORE = """
    mov r0, elem_num
    shl r0, r0, 2
    add t0s, r0, unif
    mov vw_setup, vpm_setup(1, 1, h32(0))
    nop; ldtmu0
    add vpm, r4, 1
    mov vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))
    mov vw_addr, unif
    mov -, vw_wait
    thrend
    nop
    nop
"""

SPIN = "loop:\n brr -, loop\n nop\n nop\n nop\n"


def store_under_mutex():
    """STORE with its use of VPM row 0 under the mutex, for programs of
    one job (12 of them ending: 12 instructions each)."""
    body = STORE.strip().splitlines()
    return "\n".join(["mov -, mutex_acq"] + body[:6] + ["mov mutex_rel, 1"] + body[6:])


@pytest.fixture
def dev():
    with qpu.Device(DEVICE) as d:
        yield d


@pytest.fixture(scope="session")
def store():
    return qpu.assemble(STORE, name="store")


@pytest.fixture(scope="session")
def spin():
    return qpu.assemble(SPIN, name="spin")


class Gate:
    """Holds a job back until release(). On the emulator its fence is an
    eventfd the test writes (the emulator queues a job whose in-fence has not
    signalled); qpu.ko takes only sync_files, so there it holds nothing and
    the tests' spinning programs keep their jobs running."""

    def __init__(self):
        self.fd = os.eventfd(0, os.EFD_CLOEXEC) if ON_EMU else -1
        self.fences = [self.fd] if ON_EMU else []

    def release(self):
        if self.fd >= 0:
            os.eventfd_write(self.fd, 1)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@pytest.fixture
def gate():
    g = Gate()
    yield g
    g.close()


def needs_real_fences():
    """What the emulator cannot show: it merges no eventfds."""
    return pytest.mark.skipif(ON_EMU, reason="needs qpu.ko's sync_files")


def vec(dev, n=16, dtype=np.uint32):
    return dev.array(n, dtype)


def pytest_configure(config):
    config.addinivalue_line("markers", "host_only: needs the host's build tools (not run in the VM)")
