# SPDX-License-Identifier: MIT
"""The rpi_vcsm package's interface (version 2.0, the one PyVideoCore's
Driver uses) over qpu buffer objects: served as `rpi_vcsm` (the CACHE_*
modes) and `rpi_vcsm.VCSM` (the VCSM class) by the import hook.

    vcsm = VCSM()
    handle, bus, usr, buf = vcsm.malloc_cache(size, CACHE_NONE, "name")
    vcsm.clean(usr, size); vcsm.invalidate(usr, size)
    vcsm.free(handle, buf)

What differs from /dev/vcsm: buf is a writable memoryview (the original
gave its mmap object; both slice and back numpy arrays alike); every
allocation is a zeroed buffer object of the qpu device, CPU-coherent as
qpu.ko maps them (write-combined, V3D caches cleared before each job) and
the emulator shares them, so the cache modes are accepted, kept and change
nothing, and clean/invalidate check their range and have nothing to do.
free() ends the buffer's use, but its memory goes back only when no numpy
array views it any more (closing the original's mmap under a live array
raised BufferError).
"""

import mmap

from .session import SESSION, Closing

# The cache modes of malloc_cache() (VCSM_CACHE_TYPE_*).
CACHE_NONE = 0
CACHE_HOST = 1
CACHE_VC = 2
CACHE_BOTH = 3
CACHE_MODES = (CACHE_NONE, CACHE_HOST, CACHE_VC, CACHE_BOTH)


def _align(n, a):
    return (n + a - 1) // a * a


def _int(value, what):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError("%s is an integer, not %r" % (what, value)) from None


class VCSM(Closing):
    """An allocator of QPU-visible memory; close() frees what it gave out."""

    pagesize = mmap.PAGESIZE

    def __init__(self):
        self._closed = False
        self._own = {}  # handle -> Allocation
        SESSION.device  # a missing device fails here, as opening /dev/vcsm did

    def _check(self, what):
        if self._closed:
            raise ValueError("%s: this VCSM is closed" % what)

    def close(self):
        """Free every allocation this VCSM still holds."""
        for alloc in list(self._own.values()):
            SESSION.release(alloc)
        self._own.clear()
        self._closed = True

    def malloc_cache(self, size, cache, name):
        """(handle, bus address, user address, buffer) of a new zeroed
        allocation of size bytes, rounded up to whole pages; cache is one
        of the CACHE_* modes, name a label (None or a str)."""
        what = "malloc_cache(%r, %r)" % (size, cache)
        self._check(what)
        size = _int(size, "malloc_cache()'s size")
        if size <= 0:
            raise ValueError("%s: the size is at least one byte" % what)
        if isinstance(cache, bool) or cache not in CACHE_MODES:
            raise ValueError("%s: the cache mode is one of CACHE_NONE, CACHE_HOST, "
                             "CACHE_VC and CACHE_BOTH (0 to 3)" % what)
        if name is not None and not isinstance(name, str):
            raise TypeError("%s: the name is a str or None, not %r" % (what, name))
        size = _align(size, self.pagesize)
        alloc = SESSION.allocate(size, int(cache), name or "", self)
        self._own[alloc.handle] = alloc
        return alloc.handle, alloc.bus_addr, alloc.user_addr, alloc.view

    def _owned(self, handle, what):
        alloc = self._own.get(handle) if isinstance(handle, int) else None
        if alloc is None:
            raise ValueError("%s: no allocation of this VCSM has handle %r (freed already?)"
                             % (what, handle))
        return alloc

    def free(self, handle, usr_buf):
        """Free the allocation handle, whose buffer (malloc_cache()'s
        fourth answer) is usr_buf."""
        what = "free(%r)" % (handle,)
        self._check(what)
        alloc = self._owned(handle, what)
        if usr_buf is not alloc.view:
            raise ValueError("%s: usr_buf is not the buffer malloc_cache() gave with this handle"
                             % what)
        del self._own[handle]
        SESSION.release(alloc)

    def _cache_op(self, what, usr_ptr, block_count, block_size, stride):
        self._check(what)
        usr_ptr = _int(usr_ptr, "the user address")
        block_count = _int(block_count, "the block count")
        block_size = _int(block_size, "the block size")
        stride = _int(stride, "the stride")
        if block_count < 0 or block_size < 0 or stride < 0:
            raise ValueError("%s: counts, sizes and strides are not negative" % what)
        if not block_count or not block_size:
            return
        span = (block_count - 1) * stride + block_size
        if not any(a.holds_user(usr_ptr, span) for a in self._own.values()):
            raise ValueError("%s: [0x%x, 0x%x) is not inside an allocation of this VCSM"
                             % (what, usr_ptr, usr_ptr + span))
        # Nothing to write back or drop: see the module's comment.

    def clean(self, usr_ptr, size):
        """Write the CPU's cache of [usr_ptr, usr_ptr + size) to memory."""
        self._cache_op("clean(0x%x, %r)" % (_int(usr_ptr, "the user address"), size),
                       usr_ptr, 1, size, 0)

    def invalidate(self, usr_ptr, size):
        """Drop the CPU's cache of [usr_ptr, usr_ptr + size)."""
        self._cache_op("invalidate(0x%x, %r)" % (_int(usr_ptr, "the user address"), size),
                       usr_ptr, 1, size, 0)

    def clean_2d(self, usr_ptr, block_count, block_size, stride):
        self._cache_op("clean_2d", usr_ptr, block_count, block_size, stride)

    def invalidate_2d(self, usr_ptr, block_count, block_size, stride):
        self._cache_op("invalidate_2d", usr_ptr, block_count, block_size, stride)
