# SPDX-License-Identifier: MIT
"""PyVideoCore's mailbox (videocore.mailbox.MailBox) with its QPU calls on
the qpu device: served as `videocore.mailbox` by the import hook.

enable_qpu(flag) counts and answers 0; execute_qpu(num_qpus, control,
noflush, timeout) reads num_qpus (uniforms, code) bus-address pairs at
control and runs them as one job over every allocation of the process
(all_buffers=True), waits, and answers as the firmware did: 0 when every
program ended, 0x80000000 on a timeout (and on a deadlock, which the
hardware cannot tell from one), so PyVideoCore's Driver raises its
DriverError. A program that touched memory outside every allocation (the
emulator and qpu.ko's simulated V3D see it; the firmware never did) raises
ExecutionFault, a DriverError that is also a qpu.FaultError; a control
list the firmware could not have run (a pair outside every allocation,
misaligned, too many QPUs, a closed mailbox) raises MailBoxException.

The firmware's other property calls (get_firmware_revision, temperatures,
clocks...) are PyVideoCore's own, unchanged: they open /dev/vcio at their
first use, so they work where the firmware still answers them and fail
with a message where it is absent.
"""

import os

import numpy as np

from ..device import TIMEOUT_NONE
from ..errors import FaultError
from .session import SESSION, Closing

FIRMWARE_NODE = "/dev/vcio"
ANSWER_DONE = 0
ANSWER_TIMEOUT = 0x80000000
NO_UNIFORMS = 0  # the uniforms address of a program given none


class MailBoxException(Exception):
    """A refused request (the original module's class when there is one)."""


class ExecutionFault(FaultError):
    """A program of execute_qpu() touched memory outside every allocation.
    The served class is also PyVideoCore's DriverError."""

    def __init__(self, result, num_qpus):
        FaultError.__init__(self, result)
        self.args = ("QPU execution fault (%d programs): %s" % (num_qpus, result),)


def _driver_error():
    """PyVideoCore's DriverError, or None when videocore.driver is absent."""
    try:
        from videocore.driver import DriverError
    except ImportError:
        return None
    return DriverError


class QpuMailBox(Closing):
    """The calls PyVideoCore's Driver makes, on the qpu device. The served
    MailBox class puts this first, before the original's."""

    #: set by the import hook to the served module's MailBoxException
    refused = MailBoxException

    def __init__(self):
        self._vcio = None
        self._closed = False
        self.enabled = 0
        SESSION.device  # a missing device fails here, as opening /dev/vcio did

    @property
    def fd(self):
        """The firmware's property channel, opened at first use."""
        if self._closed:
            raise self.refused("the mailbox is closed")
        if self._vcio is None:
            try:
                self._vcio = os.open(FIRMWARE_NODE, os.O_RDONLY)
            except OSError as e:
                raise OSError(e.errno, "firmware property calls need %s (%s); without it "
                              "only enable_qpu() and execute_qpu() work" %
                              (FIRMWARE_NODE, os.strerror(e.errno))) from None
        return self._vcio

    def close(self):
        if self._vcio is not None:
            os.close(self._vcio)
        self._vcio = None
        self._closed = True

    def _check(self, what):
        if self._closed:
            raise self.refused("%s: the mailbox is closed" % what)

    def enable_qpu(self, enable):
        """Counts enables and disables (qpu.ko powers the V3D by itself)."""
        self._check("enable_qpu")
        if int(enable):
            self.enabled += 1
        elif self.enabled:
            self.enabled -= 1
        return 0

    def _locate(self, what, addr, length, align):
        alloc = SESSION.find_bus(addr, length)
        if alloc is None:
            raise self.refused("%s 0x%08x (%d bytes) is not inside an allocation of the "
                               "VCSM layer" % (what, addr, length))
        if addr % align:
            raise self.refused("%s 0x%08x is not %d-byte aligned" % (what, addr, align))
        off = addr - alloc.bus_addr
        return alloc.array[off:off + length]

    def execute_qpu(self, num_qpus, control, noflush, timeout):
        """Run num_qpus programs, their (uniforms, code) bus addresses at
        control (uniforms 0: none); timeout in ms (0: the device's
        default); noflush is ignored (qpu.ko clears the V3D's caches
        before every job)."""
        self._check("execute_qpu")
        dev = SESSION.device
        n, control, timeout = int(num_qpus), int(control), int(timeout)
        if not 1 <= n <= dev.num_qpus:
            raise self.refused("execute_qpu: %d QPUs: the device runs 1 to %d"
                               % (n, dev.num_qpus))
        if not 0 <= timeout < TIMEOUT_NONE:
            raise self.refused("execute_qpu: the timeout is 0 to %d ms, not %d"
                               % (TIMEOUT_NONE - 1, timeout))
        pairs = self._locate("execute_qpu: the control list at", control, 8 * n, 4)
        pairs = np.array(pairs.view(np.uint32)).reshape(n, 2)
        programs = []
        for i, (unif, code) in enumerate(pairs):
            what = "execute_qpu: program %d's" % i
            code = self._locate(what + " code at", int(code), 8, 8)
            # 0: no uniforms (Driver.execute(uniforms=None)); what such a
            # program would read are its code words, as garbage as the
            # firmware's bus address 0.
            programs.append((code, code if unif == NO_UNIFORMS else
                             self._locate(what + " uniforms at", int(unif), 4, 4)))
        result = dev.run(programs=programs, all_buffers=True, timeout_ms=timeout or None,
                         check=False)
        if result.ok:
            return ANSWER_DONE
        if result.status in ("timeout", "deadlock"):
            return ANSWER_TIMEOUT
        raise _fault_class()(result, n)


_FAULT_CLASSES = {}


def _fault_class():
    """ExecutionFault, made a DriverError too when PyVideoCore is there."""
    base = _driver_error()
    if base not in _FAULT_CLASSES:
        bases = (ExecutionFault,) if base is None else (ExecutionFault, base)
        _FAULT_CLASSES[base] = type("ExecutionFault", bases, {"__module__": __name__})
    return _FAULT_CLASSES[base]


def serve(module, original):
    """Fill module (the served videocore.mailbox) from original (PyVideoCore's
    own module, or None): all its names, and a MailBox whose QPU calls are
    ours and whose firmware calls are its own."""
    if original is not None:
        for name, value in vars(original).items():
            if not name.startswith("__"):
                setattr(module, name, value)
    refused = getattr(original, "MailBoxException", MailBoxException)
    bases = (QpuMailBox,) if original is None else (QpuMailBox, original.MailBox)
    module.MailBox = type("MailBox", bases, {"__module__": module.__name__, "refused": refused,
                                             "__doc__": QpuMailBox.__doc__})
    module.MailBoxException = refused
    module.__doc__ = __doc__
