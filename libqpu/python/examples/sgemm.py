#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Multiply two float32 matrices on every QPU with libqpu's sgemm (any
shape), and check the product against numpy's.

usage: sgemm.py [-d DEVICE] [M K N]
"""

import argparse

import numpy as np

import qpu


def main():
    p = argparse.ArgumentParser(description="C = A @ B on the QPUs, checked against numpy.")
    p.add_argument("-d", "--device", help="/dev/qpu, or emu (default $QPU_DEVICE, else /dev/qpu)")
    p.add_argument("shape", nargs="*", type=int, default=[96, 363, 256], metavar="M K N",
                   help="A is M x K, B is K x N (default 96 363 256)")
    args = p.parse_args()
    if len(args.shape) != 3:
        p.error("give M, K and N")
    m, k, n = args.shape

    rng = np.random.default_rng(2)
    with qpu.Device(args.device) as dev:
        a = dev.asarray(rng.uniform(-1, 1, (m, k)).astype(np.float32))
        b = dev.asarray(rng.uniform(-1, 1, (k, n)).astype(np.float32))
        c = dev.kernels.sgemm(a, b)
        err = float(np.abs(c - a.astype(np.float64) @ b).max())
        stats = dev.kernels.last_stats
        ok = err < 1e-3 * k
        print("sgemm: %dx%d @ %dx%d on %d QPUs of %s: max error %.2g: %s" %
              (m, k, k, n, stats["qpus"], dev.description, err, "ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
