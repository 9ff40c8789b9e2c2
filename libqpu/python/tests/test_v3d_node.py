# SPDX-License-Identifier: MIT
"""qpu.Device on a v3d DRM node (libqpu's v3d backend, a Pi 4's or Pi 5's
GPU through the upstream driver): check-vm runs these on kmod/v3d_sim's
nodes, named by $QPU_TEST_V3D_NODES (space-separated paths or "v3d:GEN");
elsewhere they skip. The expectations are test_v3d_device.py's on the
emulated devices, less what the v3d driver does not tell: counters (but a
4.2 node's instruction count) and a fault's QPU, PC and address."""

import os

import numpy as np
import pytest

import qpu
from test_v3d_device import STORE

NODES = os.environ.get("QPU_TEST_V3D_NODES", "").split()
pytestmark = pytest.mark.skipif(not NODES, reason="no v3d node ($QPU_TEST_V3D_NODES)")

SPIN = "loop:\nb loop\nnop ; nop\nnop ; nop\nnop ; nop\n"


def pi5_qpus():
    """The Pi 5's QPUs: kmod/v3d_sim's choice (pi5_qpus) where it is
    loaded; on a board, either published configuration."""
    try:
        with open("/sys/module/v3d_sim/parameters/pi5_qpus") as f:
            return {int(f.read())}
    except OSError:
        return {12, 16}


@pytest.mark.parametrize("path", NODES or ["-"])
def test_node_runs_a_dispatch(path):
    with qpu.Device(path) as dev:
        assert dev.gen in ("v3d42", "v3d71") and dev.backend == "v3d"
        assert "v3d DRM driver" in dev.description
        assert dev.num_qpus in ({8} if dev.gen == "v3d42" else pi5_qpus())
        prog = qpu.assemble(STORE, gen=dev.gen)
        out = dev.array(16, np.uint32)
        res = dev.run(prog, [out.bus_addr, 100], buffers=[out], workgroups=(2, 1, 1))
        assert res.ok and res.counters is None
        assert list(out) == list(range(100, 116))
    # A 4.2 node counts the job's instructions with a perfmon, as the
    # emulator does; 7.1 numbers its counters otherwise and gives none.
    if dev.gen == "v3d42":
        with qpu.Device("emu:v3d42") as emu:
            eout = emu.array(16, np.uint32)
            ref = emu.run(qpu.assemble(STORE, gen="v3d42"), [eout.bus_addr, 100],
                          buffers=[eout], workgroups=(2, 1, 1))
        assert ref.instructions and res.instructions == ref.instructions
    else:
        assert res.instructions is None


@pytest.mark.parametrize("path", NODES or ["-"])
def test_node_fault_and_timeout(path):
    with qpu.Device(path) as dev:
        prog = qpu.assemble(STORE, gen=dev.gen)
        with pytest.raises(qpu.FaultError) as e:
            dev.run(prog, [0x100, 1])
        assert e.value.result.status == "fault"
        spin = qpu.assemble(SPIN, gen=dev.gen)
        with pytest.raises(qpu.JobTimeoutError):
            dev.run(spin, [0, 0], timeout_ms=1)
        # the device goes on after both; a job's timeout counts from its
        # submission, behind the spinning job the driver resets 500 ms on
        out = dev.array(16, np.uint32)
        assert dev.run(prog, [out.bus_addr, 1], buffers=[out], timeout_ms=20000).ok


@pytest.mark.parametrize("path", NODES or ["-"])
def test_node_failed_fence_cancels(path):
    with qpu.Device(path) as dev:
        prog = qpu.assemble(STORE, gen=dev.gen)
        out = dev.array(16, np.uint32)
        with dev.submit(prog, [0x100, 1]) as bad:
            assert bad.wait(check=False).status == "fault"
            with dev.submit(prog, [out.bus_addr, 1], buffers=[out], in_fences=[bad]) as nxt:
                assert nxt.wait(check=False).status == "canceled"
        assert out[0] == 0


@pytest.mark.parametrize("path", NODES or ["-"])
def test_node_refuses_videocore_programs(path):
    with qpu.Device(path) as dev:
        prog = qpu.assemble(STORE, gen=dev.gen)
        with pytest.raises(ValueError):
            dev.submit(programs=[prog, prog])
        with pytest.raises(qpu.DeviceError):
            dev.submit(prog, [0, 0], wg_size=0)


FW_KNOBS = "/sys/module/v3d_sim/parameters/"


def _knob(name, value):
    with open(FW_KNOBS + name, "w") as f:
        f.write(str(value))


@pytest.mark.parametrize("path", NODES or ["-"])
def test_node_telemetry_from_the_firmware(path):
    """The simulated firmware's /dev/vcio (v3d_sim vcio=1) answers with its
    knobs' values; a refusing firmware and an older one that lacks a tag
    leave fields None with the reason."""
    try:
        with open(FW_KNOBS + "vcio") as f:
            if f.read().strip() != "Y":
                pytest.skip("v3d_sim was loaded without vcio=1")
    except OSError:
        pytest.skip("no v3d_sim module parameters")
    with qpu.Device(path) as dev:
        try:
            _knob("fw_clock_measured_hz", 431000000)
            _knob("fw_temp_mc", 61500)
            _knob("fw_throttled", 0x20002)
            t = dev.telemetry()
            assert t["source"] == "firmware"
            assert (t["clock_set_hz"], t["clock_hz"]) == (500000000, 431000000)
            assert (t["temp_mc"], t["throttled"]) == (61500, 0x20002)
            assert t["null_reasons"] == {}
            _knob("fw_unknown", 0x30047)
            t = dev.telemetry()
            assert t["clock_hz"] is None and t["clock_set_hz"] == 500000000
            assert "GET_CLOCK_MEASURED" in t["null_reasons"]["clock_hz"]
            _knob("fw_unknown", 0)
            _knob("fw_fail", 1)
            t = dev.telemetry()
            assert t["clock_hz"] is None and t["throttled"] is None
            assert "refused" in t["null_reasons"]["throttled"]
        finally:
            _knob("fw_fail", 0)
            _knob("fw_unknown", 0)
            _knob("fw_clock_measured_hz", 500000000)
            _knob("fw_temp_mc", 45000)
            _knob("fw_throttled", 0)
