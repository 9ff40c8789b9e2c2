# SPDX-License-Identifier: MIT
"""Every sample kernel of <qpu_kernels.h> on numpy arrays, against numpy:
on the test device, and on the emulated V3D devices of a Pi 4 and a Pi 5,
whose programs are V3D's (libqpu/kernels/v3d/)."""

import numpy as np
import pytest

import qpu
from conftest import DEVICE


@pytest.fixture(params=[DEVICE, "emu:v3d42", "emu:v3d71"])
def dev(request):
    with qpu.Device(request.param) as d:
        yield d

rng = np.random.default_rng(21)


def ulps(got, want):
    return np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32) + 1e-30)


def test_vector_add(dev):
    a, b = dev.array(1024), dev.array(1024)
    a[:], b[:] = rng.uniform(-100, 100, 1024), rng.uniform(-100, 100, 1024)
    c = dev.kernels.vector_add(a, b)
    assert isinstance(c, qpu.Array) and c.bus_addr != a.bus_addr
    assert np.allclose(c, a + b, rtol=1e-6, atol=0)
    st = dev.kernels.last_stats
    assert st["qpus"] == dev.num_qpus
    if dev.gen.startswith("v3d"):  # stores through the TMU, a few pieces read twice
        assert st["tmu_bytes"] >= 3 * 4096 and st["dma_store_bytes"] == 0
    else:
        assert st["tmu_bytes"] == 2 * 4096 and st["dma_store_bytes"] == 4096
    dev.kernels.vector_add(a, b, out=a, qpus=3)  # in place, on 3 QPUs
    assert dev.kernels.last_stats["qpus"] == 3 and np.array_equal(a, c)


def test_saxpy(dev):
    x, y = dev.array(256), dev.array(256)
    x[:], y[:] = rng.uniform(-1, 1, 256), rng.uniform(-1, 1, 256)
    want = np.float32(2.5) * x + y
    assert dev.kernels.saxpy(2.5, x, y) is y
    assert np.allclose(y, want, rtol=1e-6, atol=1e-7)


def test_reduce(dev):
    x = dev.array(4096)
    x[:] = rng.uniform(-10, 10, 4096)
    r = dev.kernels.reduce(x)
    assert r.min == x.min() and r.max == x.max()
    assert abs(r.sum - float(np.sum(x, dtype=np.float64))) <= 4096 * np.spacing(
        np.float32(np.abs(x).sum()))


def test_rgb_to_gray(dev):
    rgb = dev.array((48, 64, 3), np.uint8)
    rgb[:] = rng.integers(0, 256, rgb.shape)
    gray = dev.kernels.rgb_to_gray(rgb)
    c = rgb.astype(np.uint32)
    want = (77 * c[..., 0] + 150 * c[..., 1] + 29 * c[..., 2] + 128) >> 8
    assert gray.shape == (48, 64) and gray.dtype == np.uint8
    assert np.array_equal(gray, want)


def test_threshold(dev):
    img = dev.array((32, 64), np.uint8)
    img[:] = rng.integers(0, 256, img.shape)
    want = np.where(img > 100, 200, 0)
    out = dev.kernels.threshold(img, 100, 200)
    assert np.array_equal(out, want)
    assert dev.kernels.threshold(img, 100, out=img) is img and np.array_equal(img, want // 200 * 255)


def test_yuv420_to_rgb(dev):
    w, h, ow, oh = 64, 48, 32, 16
    frame = dev.array((h * 3 // 2, w), np.uint8)
    frame[:] = rng.integers(0, 256, frame.shape)
    out = dev.array((3, oh, ow), np.float32)
    mean, std = (0.5, 0.4, 0.3), (0.25, 0.5, 1.0)
    dev.kernels.yuv420_to_rgb(frame, out, mean, std)
    flat = frame.reshape(-1)
    yp = flat[:w * h].reshape(h, w).astype(np.float64)
    up = flat[w * h:w * h * 5 // 4].reshape(h // 2, w // 2).astype(np.float64) - 128
    vp = flat[w * h * 5 // 4:].reshape(h // 2, w // 2).astype(np.float64) - 128
    sy = (np.arange(oh) * ((h << 16) // oh)) >> 16
    sx = (np.arange(ow) * ((w << 16) // ow)) >> 16
    Y = yp[sy][:, sx]
    U = up[sy // 2][:, sx // 2]
    V = vp[sy // 2][:, sx // 2]
    rgb = np.stack([Y + 1.402 * V, Y - 0.344136 * U - 0.714136 * V, Y + 1.772 * U])
    rgb = np.clip(rgb, 0, 255)
    want = (rgb / 255 - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    # Within a few units of the chroma rounding: one level of 255 at most.
    assert np.abs(out - want).max() <= 1.5 / 255 / min(std)


def test_sgemm(dev):
    m, k, n = 20, 33, 24
    a, b, c = dev.array((m, k)), dev.array((k, n)), dev.array((m, n))
    a[:], b[:], c[:] = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n)), 1
    want = 2 * (a.astype(np.float64) @ b) + 0.5 * c
    assert dev.kernels.sgemm(a, b, c, alpha=2, beta=0.5) is c
    assert np.abs(c - want).max() < 1e-4
    d = dev.kernels.sgemm(a, b)
    assert d.shape == (m, n) and np.abs(d - a.astype(np.float64) @ b).max() < 1e-4
    # A view with a row stride: the top-left 8 x 8 of a.
    sub = dev.kernels.sgemm(a[:8, :8], b[:8, :8])
    assert np.abs(sub - a[:8, :8].astype(np.float64) @ b[:8, :8]).max() < 1e-5


def test_kernel_refuses_bad_shapes(dev):
    k = dev.kernels
    with pytest.raises(ValueError, match="differ in length: a 17, b 18"):
        k.vector_add(dev.array(17), dev.array(18))
    with pytest.raises(qpu.KernelError) as e:
        k.vector_add(dev.array(16), dev.array(16), qpus=99)
    assert e.value.errno == 22
    with pytest.raises(qpu.KernelError):
        k.sgemm(dev.array((4, 5)), dev.array((6, 4)))
    with pytest.raises(qpu.KernelError):
        k.reduce(dev.array(16), qpus=99)
    with pytest.raises(ValueError):
        k.rgb_to_gray(dev.array((8, 64, 4), np.uint8))
    with pytest.raises(ValueError):
        k.threshold(dev.array((8, 64), np.uint8), 300)
    with pytest.raises(ValueError):
        k.yuv420_to_rgb(dev.array((47, 64), np.uint8), dev.array((3, 16, 16)))
    with pytest.raises(ValueError):
        k.yuv420_to_rgb(dev.array((72, 64), np.uint8), dev.array((2, 16, 16)))
    with pytest.raises(ValueError):
        k.sgemm(dev.array((4, 4)), dev.array((4, 4)), beta=1)
    with pytest.raises(ValueError, match="contiguous rows"):
        k.sgemm(dev.array((4, 8))[:, ::2], dev.array((4, 4)))


def test_kernel_refuses_bad_dtypes(dev):
    k = dev.kernels
    # A device array is never converted behind the caller's back.
    with pytest.raises(TypeError, match="float32"):
        k.reduce(dev.array(16, np.int32))
    with pytest.raises(TypeError, match="in place"):
        k.saxpy(2.0, [1.0] * 16, [1.0] * 16)
    with pytest.raises(TypeError, match="uint8"):
        k.threshold(dev.array((8, 64)), 1)
    with pytest.raises(ValueError, match="dimensions"):
        k.sgemm(dev.array(16), dev.array((4, 4)))


def test_drop_cache(dev):
    x = dev.array(16)
    x[:] = 1
    dev.kernels.reduce(x)
    dev.kernels.drop_cache()
    assert dev.kernels.reduce(x).sum == 16


@pytest.mark.parametrize("n", [1, 15, 17, 100, 1000])
def test_vector_kernels_take_any_length(dev, n):
    """Lengths that are not a multiple of 16: the wrappers pad a copy."""
    k = dev.kernels
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a, b = dev.asarray(x), dev.asarray(y)
    c = k.vector_add(a, b)
    assert c.shape == (n,) and np.allclose(c, x + y, rtol=1e-6, atol=1e-6)
    assert isinstance(c, qpu.Array)
    k.saxpy(2.0, a, b)
    assert np.allclose(b, 2.0 * x + y, rtol=1e-6, atol=1e-6)
    r = k.reduce(a)
    assert np.isclose(r.sum, x.sum(), rtol=1e-4, atol=1e-4)
    assert r.min == x.min() and r.max == x.max()


def test_vector_kernels_take_numpy_arrays(dev):
    """Host arrays (numpy, lists, strided views) are copied in; the results
    land in device arrays, or in the host out given."""
    k = dev.kernels
    x = np.arange(40, dtype=np.float32)
    y = np.ones(40, np.float64)
    c = k.vector_add(x, y)
    assert isinstance(c, qpu.Array) and np.array_equal(c, x + 1)
    out = np.zeros(40, np.float32)
    assert k.vector_add(x, list(y), out=out) is out and np.array_equal(out, x + 1)
    host_y = np.zeros(40, np.float32)
    assert k.saxpy(3.0, x, host_y) is host_y and np.array_equal(host_y, 3 * x)
    assert k.reduce(x).sum == x.sum()
    assert k.reduce(dev.array(64)[::2]).sum == 0    # a strided view: copied


def test_zero_copy_for_device_arrays(dev):
    """A device array whose length is a multiple of 16 is used in place."""
    k = dev.kernels
    a, b, out = dev.array(32), dev.array(32), dev.array(32)
    a[:] = 1
    b[:] = 2
    assert k.vector_add(a, b, out=out) is out and (out == 3).all()
    assert k.saxpy(1.0, a, b) is b and (b == 3).all()


def test_pixel_kernels_take_any_size_and_numpy(dev):
    k = dev.kernels
    rng = np.random.default_rng(7)
    rgb = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)    # 35 pixels
    gray = k.rgb_to_gray(rgb)
    r, g, b = rgb.astype(int).transpose(2, 0, 1)
    want = ((77 * r + 150 * g + 29 * b + 128) >> 8).astype(np.uint8)
    assert gray.shape == (5, 7) and np.array_equal(gray, want)
    t = k.threshold(gray, 100, 200)
    assert np.array_equal(t, np.where(gray > 100, 200, 0))
    img = dev.asarray(gray)
    assert k.threshold(img, 100, out=img) is img
    assert np.array_equal(img, np.where(gray > 100, 255, 0))


def test_sgemm_takes_numpy(dev):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.ones((4, 5), np.float32)
    c = np.zeros((3, 5), np.float32)
    assert dev.kernels.sgemm(a, b, c) is c
    assert np.array_equal(c, a @ b)
    assert np.array_equal(dev.kernels.sgemm(a, b), a @ b)


# --- preprocess() (qpu_preprocess()): appended --------------------------------------

def test_preprocess_matches_the_cpu(dev):
    for fmt, shape in [("nv12", (33, 22)), ("i420", (33, 22)), ("yuyv", (22, 22, 2)),
                       ("rgb888", (21, 23, 3))]:
        frame = dev.array(shape, np.uint8)
        frame[:] = rng.integers(0, 256, frame.shape)
        out, ref = dev.array((3, 9, 17), np.float32), dev.array((3, 9, 17), np.float32)
        args = dict(fmt=fmt, crop=(1, 2, 15, 11), mean=(0.485, 0.456, 0.406),
                    std=(0.229, 0.224, 0.225), letterbox=True)
        dev.kernels.preprocess(frame, out, **args)
        dev.kernels.preprocess(frame, ref, cpu=True, **args)
        assert np.abs(out - ref).max() <= 1e-4, fmt
        x, y, w, h = dev.kernels.placement(frame, out, fmt=fmt, crop=(1, 2, 15, 11),
                                           letterbox=True)
        assert (x, y, w, h) == (2, 0, 12, 9)   # 15 x 11 scaled by 9 / 11, centred
        border = (114 / 255 - 0.485) / 0.229
        assert abs(out[0, 0, 0] - border) < 1e-5 and abs(out[0, 8, 16] - border) < 1e-5


def test_preprocess_rgb_identity_and_quantised(dev):
    img = dev.array((8, 16, 3), np.uint8)
    img[:] = rng.integers(0, 256, img.shape)
    out = dev.array((8, 16, 3), np.float32)
    dev.kernels.preprocess(img, out, fmt="rgb888", layout="nhwc", mean=(0.5,) * 3,
                           std=(0.25,) * 3)
    assert np.abs(out - (img / 255 - 0.5) / 0.25).max() <= 1e-5
    q = dev.array((8, 16, 3), np.uint8)
    dev.kernels.preprocess(img, q, fmt="rgb888", layout="nhwc", scale=1 / 255)
    assert np.abs(q.astype(int) - img.astype(int)).max() <= 1


def test_preprocess_refuses(dev):
    k = dev.kernels
    with pytest.raises(qpu.KernelError, match="NV12 needs an even width"):
        k.preprocess(dev.array((30, 21), np.uint8), dev.array((3, 8, 8), np.float32))
    with pytest.raises(qpu.KernelError, match="outside"):
        k.preprocess(dev.array((30, 20), np.uint8), dev.array((3, 8, 8), np.float32),
                     crop=(10, 0, 11, 4))
    with pytest.raises(qpu.KernelError, match="std 0"):
        k.preprocess(dev.array((30, 20), np.uint8), dev.array((3, 8, 8), np.float32),
                     std=(1, 0, 1), cpu=True)
    with pytest.raises(ValueError, match="format"):
        k.preprocess(dev.array((30, 20), np.uint8), dev.array((3, 8, 8), np.float32), fmt="bgr")
    with pytest.raises(ValueError, match="3 x h x w"):
        k.preprocess(dev.array((30, 20), np.uint8), dev.array((8, 8, 3), np.float32))
