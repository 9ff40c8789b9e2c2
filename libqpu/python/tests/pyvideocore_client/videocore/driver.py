# SPDX-License-Identifier: MIT
"""What PyVideoCore's driver contributes to these tests: its DriverError,
and its rule that a non-zero execute_qpu() answer is a DriverError."""


class DriverError(Exception):
    """A QPU job the driver could not run."""


def launch(mailbox, num_qpus, control, timeout_ms):
    """Runs a control list as PyVideoCore's Driver.execute() does."""
    if mailbox.execute_qpu(num_qpus, control, 0, timeout_ms) > 0:
        raise DriverError("QPU execution timeout")
