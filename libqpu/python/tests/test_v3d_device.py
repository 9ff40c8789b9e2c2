# SPDX-License-Identifier: MIT
"""The emulated V3D devices qpu.Device("emu:v3d42") and ("emu:v3d71"): a
program assembled for the generation dispatched over workgroups, its
stores checked on every lane; faults with QPU, thread, PC, kind and
address; a failed job's fence cancelling the next; the boards; jobs the
device refuses."""

import os

import numpy as np
import pytest

import qpu

# Each lane stores eidx + uniform 1 at uniform 0 + 4 * eidx (shared with
# selftests/lib/test-qpu-run-v3d.sh).
STORE_PATH = os.environ.get("QPU_TEST_V3D_STORE", os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "selftests", "lib", "data", "v3d-store.s"))
with open(STORE_PATH, encoding="utf-8") as _f:
    STORE = _f.read()

GENS = [("emu:v3d42", "v3d42", 8), ("emu:v3d71", "v3d71", 12),
        ("emu:v3d71,board=pi5-16", "v3d71", 16)]


@pytest.mark.parametrize("path,gen,qpus", GENS)
def test_dispatch_all_lanes(path, gen, qpus):
    with qpu.Device(path) as dev:
        assert dev.gen == gen and dev.num_qpus == qpus
        prog = qpu.assemble(STORE, gen=gen)
        out = dev.array(16, np.uint32)
        res = dev.run(prog, [out.bus_addr, 100], buffers=[out], workgroups=(2, 1, 1))
        assert res.ok and res.instructions == 2 * 16
        assert res.counters["tmu_bytes"] == 2 * 64
        assert res.progress == (2, 2)  # batches ended, batches
        assert list(out) == list(range(100, 116))


SPIN = "loop:\nb loop\nnop ; nop\nnop ; nop\nnop ; nop\n"


def test_timeout_says_how_far_the_dispatch_got():
    with qpu.Device("emu:v3d42") as dev:
        spin = qpu.assemble(SPIN, gen="v3d42")
        with pytest.raises(qpu.JobTimeoutError) as e:
            dev.run(spin, [0, 0], workgroups=(2, 1, 1), timeout_ms=1)
        res = e.value.result
        assert res.status == "timeout" and res.progress == (0, 2)
        # a driver's reset is a timeout to code that catches timeouts
        assert issubclass(qpu.ResetError, qpu.JobTimeoutError)


def test_buffers_at_gpu_addresses():
    with qpu.Device("emu:v3d42") as dev:
        a = dev.array(16, np.uint32)
        b = dev.array(16, np.uint32)
        assert a.bus_addr == 128 << 10
        assert b.bus_addr % (128 << 10) == 0 and b.bus_addr > a.bus_addr


@pytest.mark.parametrize("path,gen,qpus", GENS[:2])
def test_fault(path, gen, qpus):
    with qpu.Device(path) as dev:
        prog = qpu.assemble(STORE, gen=gen)
        code = dev.asarray(prog.words)
        with pytest.raises(qpu.FaultError) as e:
            dev.run(code, [0x100, 1])
        res = e.value.result
        assert res.status == "fault" and res.fault_access == "tmu_write"
        assert "TMU write of 0x00000100" in str(e.value)
        assert res.fault_addr == 0x100 and res.fault_qpu < qpus
        assert 0 <= res.fault_thread < 4
        assert res.fault_pc == code.bus_addr + 7 * 8


def test_failed_fence_cancels():
    with qpu.Device("emu:v3d71") as dev:
        prog = qpu.assemble(STORE, gen="v3d71")
        out = dev.array(16, np.uint32)
        with dev.submit(prog, [0x100, 1]) as bad:
            with dev.submit(prog, [out.bus_addr, 1], buffers=[out], in_fences=[bad]) as nxt:
                assert nxt.wait(check=False).status == "canceled"
            assert bad.wait(check=False).status == "fault"
        assert out[0] == 0


def test_refused():
    with qpu.Device("emu:v3d42") as dev:
        prog = qpu.assemble(STORE, gen="v3d42")
        with pytest.raises(ValueError):
            dev.submit(programs=[prog, prog])
        with pytest.raises(ValueError):
            dev.submit(prog, [0, 0], workgroups=(1, 1))
        for bad in (dict(wg_size=0), dict(wg_size=257), dict(threads=3),
                    dict(workgroups=(0, 1, 1)), dict(wgs_per_sg=17)):
            with pytest.raises(qpu.DeviceError):
                dev.submit(prog, [0, 0], **bad)
    for path in ("emu:v3d42,board=pi5", "emu:v3d71,board=nope", "emu:v3d71,strict-vpm"):
        with pytest.raises(qpu.DeviceError):
            qpu.Device(path)


def test_assemble_refuses_an_unknown_generation():
    # The names are libqpu's (qpu_gen_from_name()), not a table of Python's.
    with pytest.raises(ValueError, match="v3d99"):
        qpu.assemble("nop ; nop\n", gen="v3d99")
