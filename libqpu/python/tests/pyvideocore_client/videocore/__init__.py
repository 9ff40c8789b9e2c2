# SPDX-License-Identifier: MIT
"""A stand-in for PyVideoCore's package in test_pyvideocore.py, written for
these tests: its mailbox is the firmware's, which the hook must shadow, and
its driver holds the DriverError that timeouts and faults become."""
