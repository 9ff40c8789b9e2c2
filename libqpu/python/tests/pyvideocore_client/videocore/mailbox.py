# SPDX-License-Identifier: MIT
"""The firmware's mailbox as PyVideoCore's module has it: a MailBox on
/dev/vcio with property calls. Under the hook its QPU calls must never run
(they fail the test); its other calls must stay these."""

import os
import struct
from fcntl import ioctl

IOCTL_MAILBOX = 0xC0046400
TAG_FIRMWARE_REVISION = 0x00000001


class MailBoxException(Exception):
    """A request the firmware refused."""


class MailBox:
    DEVICE_USB_HCD = 3  # one of the original's constants the served class keeps

    def __init__(self):
        self.fd = os.open("/dev/vcio", os.O_RDONLY)

    def close(self):
        os.close(self.fd)

    def get_firmware_revision(self):
        buf = bytearray(struct.pack("=7L", 28, 0, TAG_FIRMWARE_REVISION, 4, 0, 0, 0))
        ioctl(self.fd, IOCTL_MAILBOX, buf, True)
        return struct.unpack_from("=L", buf, 20)[0]

    def enable_qpu(self, enable):
        raise AssertionError("the firmware's enable_qpu ran: the hook did not shadow it")

    def execute_qpu(self, num_qpus, control, noflush, timeout):
        raise AssertionError("the firmware's execute_qpu ran: the hook did not shadow it")
