# SPDX-License-Identifier: MIT
"""The process's one qpu device behind PyVideoCore's two layers, and the
memory the allocator layer gave out, found by handle, bus or CPU address.

Both layers share it because PyVideoCore's mailbox is handed bus addresses
(a control list, code, uniforms) that only the allocator knows: a job runs
with all_buffers=True, so it may touch every allocation of the process, as
the firmware's jobs touched any memory.
"""

import numpy as np

from ..device import Device


class Closing:
    """A context manager whose exit calls close()."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Allocation:
    """One malloc_cache() answer: a whole buffer object of the device."""

    __slots__ = ("handle", "array", "view", "size", "cache", "name", "owner")

    def __init__(self, handle, array, size, cache, name, owner):
        self.handle = handle
        self.array = array  # a uint8 qpu.Array over the whole BO
        # What PyVideoCore builds its arrays on and copies code into (in
        # place of the allocator's mmap object): a writable byte view.
        self.view = memoryview(array)
        self.size = size
        self.cache = cache
        self.name = name
        self.owner = owner

    @property
    def bus_addr(self):
        return self.array.bus_addr

    @property
    def user_addr(self):
        return self.array.buffer.map_addr

    def holds_bus(self, addr, length):
        return self.bus_addr <= addr and addr + length <= self.bus_addr + self.size

    def holds_user(self, addr, length):
        return self.user_addr <= addr and addr + length <= self.user_addr + self.size


class Session:
    def __init__(self):
        self._device = None
        self.allocations = {}  # handle -> Allocation
        self._next_handle = 1  # never reused in the process, so a freed one is known

    @property
    def device(self):
        """The device ($QPU_DEVICE, else /dev/qpu), opened at first use."""
        if self._device is None:
            self._device = Device(None)
        return self._device

    def allocate(self, size, cache, name, owner):
        array = self.device.array(size, np.uint8)
        alloc = Allocation(self._next_handle, array, size, cache, name, owner)
        self._next_handle += 1
        self.allocations[alloc.handle] = alloc
        return alloc

    def release(self, alloc):
        """Ends the allocation's use; its memory goes back once no array
        of the program views it (qpu.Buffer.free())."""
        del self.allocations[alloc.handle]
        alloc.array.free()

    def find_bus(self, addr, length):
        """The allocation holding bus addresses [addr, addr + length), or None."""
        for alloc in self.allocations.values():
            if alloc.holds_bus(addr, length):
                return alloc
        return None


SESSION = Session()
