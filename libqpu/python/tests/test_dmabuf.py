# SPDX-License-Identifier: MIT
"""dma-buf sharing: Device.import_dmabuf() and Buffer.export_dmabuf().

On the emulator any fd it can map shared imports (a memfd here) and export
is refused; on qpu.ko (the VM) a vgem buffer imports and QPU jobs write its
own pages, and an export maps and re-imports as the same memory."""

import errno
import fcntl
import glob
import mmap
import os
import struct

import numpy as np
import pytest

import qpu
from conftest import LOAD_ADD_STORE, ON_EMU

SIZE = 2 * 4096


def _memfd(data):
    fd = os.memfd_create("qpu-test", os.MFD_CLOEXEC)
    os.ftruncate(fd, SIZE)
    os.pwrite(fd, data, 0)
    return fd


@pytest.mark.skipif(not ON_EMU, reason="the emulator maps any fd; qpu.ko takes dma-bufs")
def test_import_memfd_read_and_written_in_place(dev, store):
    pattern = (np.arange(16, dtype=np.uint32) * 7).tobytes()
    fd = _memfd(pattern)
    try:
        a = dev.import_dmabuf(fd, SIZE)
        assert isinstance(a, qpu.Array) and a.dtype == np.uint8 and a.size == SIZE
        words = a.view(np.uint32)
        assert (words[:16] == np.arange(16) * 7).all()
        # a job reads the imported memory and writes another array
        out = dev.array(16, np.uint32)
        prog = qpu.assemble(LOAD_ADD_STORE)
        dev.run(prog, [words.bus_addr, out.bus_addr], buffers=[a, out])
        assert (out == np.arange(16) * 7 + 1).all()
        # a job writes into it: the fd's own pages change, no copy back
        dev.run(store, [900, words[64:].bus_addr], buffers=[a])
        back = np.frombuffer(os.pread(fd, 64, 256), np.uint32)
        assert (back == np.arange(16) + 900).all()
        a.free()
    finally:
        os.close(fd)


@pytest.mark.skipif(not ON_EMU, reason="the emulator's refusals")
def test_import_refusals_on_emulator(dev):
    fd = _memfd(b"x")
    os.close(fd)
    with pytest.raises(qpu.DeviceError) as e:
        dev.import_dmabuf(fd, SIZE)
    assert e.value.errno == errno.EBADF
    with pytest.raises(ValueError, match="at least one byte"):
        dev.import_dmabuf(0, 0)


@pytest.mark.skipif(not ON_EMU, reason="the emulator has no dma-buf to give")
def test_export_refused_on_emulator(dev):
    a = dev.array(16, np.uint32)
    with pytest.raises(qpu.DeviceError) as e:
        a.buffer.export_dmabuf()
    assert e.value.errno == errno.ENOTSUP


def test_freed_buffer_refuses_export(dev):
    a = dev.array(16, np.uint32)
    a.free()
    with pytest.raises(qpu.ClosedError):
        a.buffer.export_dmabuf()


# --- qpu.ko (the VM): vgem's buffers, our exports ------------------------------

# <drm/drm.h>, <drm/drm_mode.h>: _IOWR('d', nr, struct)
def _iowr(nr, size):
    return (3 << 30) | (size << 16) | (ord("d") << 8) | nr


CREATE_DUMB = _iowr(0xB2, 32)     # struct drm_mode_create_dumb
PRIME_HANDLE_TO_FD = _iowr(0x2D, 12)  # struct drm_prime_handle
DRM_RDWR, DRM_CLOEXEC = os.O_RDWR, os.O_CLOEXEC


def _vgem_card():
    for card in sorted(glob.glob("/sys/class/drm/card[0-9]*")):
        if os.path.basename(os.path.realpath(card + "/device")) == "vgem":
            return "/dev/dri/" + os.path.basename(card)
    return None


def _vgem_dmabuf(card, size):
    """A vgem buffer of size bytes: its dma-buf fd."""
    fd = os.open(card, os.O_RDWR | os.O_CLOEXEC)
    try:
        arg = bytearray(struct.pack("=IIIIIIQ", 1, size // 4, 32, 0, 0, 0, 0))
        fcntl.ioctl(fd, CREATE_DUMB, arg)
        handle = struct.unpack("=IIIIIIQ", arg)[4]
        arg = bytearray(struct.pack("=IIi", handle, DRM_RDWR | DRM_CLOEXEC, -1))
        fcntl.ioctl(fd, PRIME_HANDLE_TO_FD, arg)
        return struct.unpack("=IIi", arg)[2]
    finally:
        os.close(fd)  # the dma-buf holds the buffer


@pytest.mark.skipif(ON_EMU, reason="vgem's dma-bufs go to qpu.ko (the VM)")
def test_vgem_buffer_written_in_place(dev, store):
    card = _vgem_card()
    if card is None:
        pytest.skip("no vgem card (modprobe vgem)")
    fd = _vgem_dmabuf(card, SIZE)
    try:
        a = dev.import_dmabuf(fd, SIZE)
        words = a.view(np.uint32)
        dev.run(store, [300, words[16:].bus_addr], buffers=[a])
        # vgem's own mapping of the dma-buf shows what the job wrote
        with mmap.mmap(fd, SIZE) as m:
            assert (np.frombuffer(m, np.uint32, 16, 64) == np.arange(16) + 300).all()
            m[0:4] = struct.pack("=I", 4242)
        assert words[0] == 4242
        a.free()
    finally:
        os.close(fd)


@pytest.mark.skipif(ON_EMU, reason="qpu.ko's exports (the VM)")
def test_export_maps_and_reimports_as_the_same_memory(dev, store):
    a = dev.array(SIZE // 4, np.uint32)
    fd = a.buffer.export_dmabuf()
    try:
        assert fd >= 0 and fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        b = dev.import_dmabuf(fd, SIZE).view(np.uint32)
        dev.run(store, [77, a[32:].bus_addr], buffers=[a])
        assert (b[32:48] == np.arange(16) + 77).all()
        with mmap.mmap(fd, SIZE) as m:
            assert (np.frombuffer(m, np.uint32, 16, 128) == np.arange(16) + 77).all()
        b.free()
    finally:
        os.close(fd)


@pytest.mark.skipif(ON_EMU, reason="qpu.ko refuses what is not a dma-buf")
def test_import_of_a_non_dmabuf_refused(dev):
    fd = _memfd(b"x")
    try:
        with pytest.raises(qpu.DeviceError) as e:
            dev.import_dmabuf(fd, SIZE)
        assert e.value.errno in (errno.EINVAL, errno.EBADF)
    finally:
        os.close(fd)
