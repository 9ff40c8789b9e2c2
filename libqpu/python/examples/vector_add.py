#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Add two vectors on every QPU with libqpu's sample kernel, from plain
numpy arrays of any length (copied into device memory), then from device
arrays (no copy), and check both against numpy.

usage: vector_add.py [-d DEVICE] [-n N]
"""

import argparse

import numpy as np

import qpu


def main():
    p = argparse.ArgumentParser(description="c = a + b on the QPUs, checked against numpy.")
    p.add_argument("-d", "--device", help="/dev/qpu, or emu (default $QPU_DEVICE, else /dev/qpu)")
    p.add_argument("-n", type=int, default=100000, help="elements (any number; default 100000)")
    args = p.parse_args()

    rng = np.random.default_rng(1)
    a = rng.standard_normal(args.n).astype(np.float32)
    b = rng.standard_normal(args.n).astype(np.float32)
    with qpu.Device(args.device) as dev:
        c = dev.kernels.vector_add(a, b)                 # numpy in: copied to the device
        da, db = dev.asarray(a), dev.asarray(b)          # device arrays: the QPUs read them
        dc = dev.kernels.vector_add(da, db)              # in place, no copy
        stats = dev.kernels.last_stats
        ok = np.allclose(c, a + b, rtol=1e-6) and np.allclose(dc, a + b, rtol=1e-6)
        print("vector_add: %d elements on %d QPUs of %s: %s" %
              (args.n, stats["qpus"], dev.description, "ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
