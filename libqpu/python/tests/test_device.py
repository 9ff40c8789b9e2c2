# SPDX-License-Identifier: MIT
"""Devices, what they report, and buffers as numpy arrays (zero copy)."""

import errno
import gc
import os

import numpy as np
import pytest

import qpu
from conftest import DEVICE, LOAD_ADD_STORE, ON_EMU


def test_open_reports_params_and_features(dev):
    assert dev.path == DEVICE
    assert dev.description
    assert dev.num_qpus == dev.param("num_qpus") == 12
    for name in ("num_slices", "vpm_size", "max_bo_size", "default_timeout_ms", "features"):
        assert dev.param(name) > 0
    assert {"uniforms_anywhere", "deadlock", "all_bos"} <= dev.features
    if ON_EMU:
        assert dev.backend == "emulator" and "backend" not in dev.params
    else:
        assert dev.backend == "simulated" and dev.param("v3d_ident0") != 0
    with pytest.raises(KeyError):
        dev.param("no_such_param")


def test_emulator_has_no_telemetry():
    with qpu.Device("emu") as dev:
        t = dev.telemetry()
    assert t["source"] == "none"
    assert [t[k] for k in ("clock_set_hz", "clock_hz", "temp_mc", "throttled")] == [None] * 4
    assert set(t["null_reasons"]) == {"clock_set_hz", "clock_hz", "temp_mc", "throttled"}
    assert "emulated" in t["null_reasons"]["clock_hz"]
    with pytest.raises(qpu.ClosedError):
        dev.telemetry()


def test_param_the_device_lacks():
    with qpu.Device("emu") as d, pytest.raises(KeyError, match="does not report"):
        d.param("v3d_ident0")


def test_open_default_from_env(monkeypatch):
    monkeypatch.setenv("QPU_DEVICE", DEVICE)
    with qpu.Device() as d:
        assert d.path == DEVICE


def test_open_missing_node():
    with pytest.raises(qpu.DeviceError) as e:
        qpu.Device("/nonexistent/qpu")
    assert e.value.errno == errno.ENOENT and isinstance(e.value, OSError)


def test_open_bad_emu_option():
    with pytest.raises(qpu.DeviceError) as e:
        qpu.Device("emu:no-such-option")
    assert e.value.errno == errno.EINVAL


def test_generation():
    # qpu.ko and the emulator run VideoCore IV; "emu:vc4" is "emu"
    with qpu.Device(DEVICE) as d:
        assert d.gen == "vc4" and d.param("gen") == 4
    with qpu.Device("emu:vc4,strict-vpm") as d:
        assert d.gen == "vc4"


def test_bo_l2_cached_follows_the_board():
    # buffers sit where the board's Linux puts them: a Pi 1's behind the L2
    with qpu.Device("emu:board=pi1") as d:
        assert d.param("bo_l2_cached") == 1
    with qpu.Device("emu:board=pi3") as d:
        assert d.param("bo_l2_cached") == 0


@pytest.mark.parametrize("name", ["v3d42", "v3d71"])
def test_open_emulator_of_a_generation(name):
    # the emulated V3D devices (test_v3d_device.py runs jobs on them)
    with qpu.Device("emu:" + name) as dev:
        assert dev.gen == name and dev.backend == "emulator"


def test_open_a_node_that_is_no_qpu_device():
    # /dev/null answers no GET_PARAM and is no DRM node
    with pytest.raises(qpu.DeviceError, match="qpu.ko") as e:
        qpu.Device("/dev/null")
    assert e.value.errno == errno.ENODEV


def test_context_manager_closes(store):
    with qpu.Device(DEVICE) as d:
        a = d.array(16, np.uint32)
    assert d.closed and "closed" in repr(d)
    for call in (lambda: d.array(4), lambda: d.buffer(4), lambda: d.param("num_qpus"),
                 lambda: d.run(store, [0, 0]), lambda: d.kernels, lambda: a.bus_addr):
        with pytest.raises(qpu.ClosedError):
            call()
    a[:] = 7  # the memory stays mapped while an array views it
    assert (a == 7).all() and a.buffer.freed


def test_array_shapes_and_dtypes(dev):
    a = dev.array((3, 5), np.int16)
    assert a.shape == (3, 5) and a.dtype == np.int16 and (a == 0).all()
    assert isinstance(a, qpu.Array) and isinstance(a, np.ndarray)
    assert a.buffer.size % 4096 == 0 and a.buffer.size >= a.nbytes
    assert dev.array(7).dtype == np.float32
    b = dev.empty_like(np.zeros((2, 8), np.uint8))
    assert b.shape == (2, 8) and b.dtype == np.uint8 and b.bus_addr != a.bus_addr
    assert dev.empty_like(a, np.float32).dtype == np.float32


@pytest.mark.parametrize("shape", [0, (4, 0), (-1,)])
def test_array_bad_shape(dev, shape):
    with pytest.raises(ValueError):
        dev.array(shape)


def test_array_bad_shape_type(dev):
    with pytest.raises(TypeError):
        dev.array("16")
    with pytest.raises(TypeError):
        dev.array((2, None))


@pytest.mark.parametrize("dtype", [object, np.dtype([("a", object)])])
def test_array_bad_dtype(dev, dtype):
    with pytest.raises(TypeError):
        dev.array(4, dtype)


def test_array_unknown_dtype(dev):
    with pytest.raises(TypeError):
        dev.array(4, "no-such-dtype")


def test_array_too_large(dev):
    with pytest.raises(qpu.DeviceError):
        dev.array(dev.param("max_bo_size") + 1, np.uint8)


def test_buffer_bad_size(dev):
    with pytest.raises(ValueError):
        dev.buffer(0)


def test_bus_addr_of_views(dev):
    a = dev.array((4, 16), np.uint32)
    base = a.bus_addr
    assert a.buffer.bus_addr == base and a.offset == 0
    assert a[1].bus_addr == base + 64 and a[2, 3:].bus_addr == base + 2 * 64 + 12
    assert a[1].buffer is a.buffer
    copy = a + 1  # new host memory: a plain array, no bus address
    assert not isinstance(copy, qpu.Array)
    # a kernel takes it as a copy (qpu/kernels.py)
    assert dev.kernels.reduce(copy.reshape(-1).astype(np.float32)).sum == 64
    with pytest.raises(ValueError, match="not in a QPU buffer"):
        a.copy().bus_addr


def test_qpu_write_seen_through_numpy_view_without_copy(dev, store):
    out = dev.array(16, np.uint32)
    view = out[4:8]
    addr, data = out.bus_addr, out.ctypes.data
    dev.run(store, [500, addr], buffers=[out])
    assert out.ctypes.data == data  # the same memory, no copy back
    assert list(view) == [504, 505, 506, 507]
    assert np.shares_memory(view, out)
    assert (out == np.arange(16) + 500).all()


def test_cpu_write_seen_by_qpu_without_copy(dev):
    src, out = dev.array(16, np.uint32), dev.array(16, np.uint32)
    src[:] = np.arange(16) * 3
    prog = qpu.assemble(LOAD_ADD_STORE)
    dev.run(prog, [src.bus_addr, out.bus_addr], buffers=[src, out])
    assert (out == np.arange(16) * 3 + 1).all()
    src[5] = 1000  # written through numpy, read by the next job
    dev.run(prog, [src.bus_addr, out.bus_addr], buffers=[src, out])
    assert out[5] == 1001


def test_asarray(dev):
    a = dev.array(16, np.uint32)
    assert dev.asarray(a) is a
    b = dev.asarray(np.arange(5, dtype=np.int32))
    assert isinstance(b, qpu.Array) and list(b) == [0, 1, 2, 3, 4] and b.bus_addr
    assert dev.asarray(a, np.float32).dtype == np.float32


def test_freed_buffer(dev, store):
    out = dev.array(16, np.uint32)
    out.free()
    assert out.buffer.freed and "freed" in repr(out.buffer)
    with pytest.raises(qpu.ClosedError):
        out.bus_addr
    with pytest.raises(qpu.ClosedError):
        dev.run(store, [0, 0], buffers=[out])
    with pytest.raises(qpu.ClosedError):
        dev.kernels.reduce(out)
    out[:] = 3  # still mapped: released when the last view goes
    assert (out == 3).all()


def test_memory_released_with_the_last_view(dev):
    # 5 x 64 MiB: past qpu.ko's 256 MiB per client if they were kept.
    size = 64 << 20
    for _ in range(5):
        a = dev.array(size, np.uint8)
        a.free()
        del a
        gc.collect()


def test_buffer_of_another_device(dev, store):
    with qpu.Device("emu") as other:
        foreign = other.array(16, np.uint32)
        with pytest.raises(ValueError, match="another device"):
            dev.run(store, [0, foreign.bus_addr], buffers=[foreign])
        with pytest.raises(ValueError, match="another device"):
            dev.kernels.reduce(other.array(16))


def test_version():
    assert qpu.library_version == qpu.__version__
    # pyproject.toml names the same release (libqpu.mk takes it from libqpu.map)
    pyproject = os.path.join(os.path.dirname(qpu.__file__), "..", "pyproject.toml")
    if os.path.exists(pyproject):
        with open(pyproject) as f:
            assert 'version = "%s"\n' % qpu.__version__ in f.read()
    assert qpu.LIBRARY_PATH
