#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An image filter on the QPUs: an RGB image to gray (BT.601), then a
binary threshold, each checked against numpy; writes the result as a PGM
file when given one.

usage: image_filter.py [-d DEVICE] [-t T] [-o OUT.pgm] [WIDTH HEIGHT]
"""

import argparse

import numpy as np

import qpu


def test_image(width, height):
    """A colour gradient with a disc in the middle."""
    y, x = np.mgrid[0:height, 0:width]
    r = (255 * x / max(width - 1, 1)).astype(np.uint8)
    g = (255 * y / max(height - 1, 1)).astype(np.uint8)
    disc = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (min(width, height) / 3) ** 2
    b = np.where(disc, 255, 0).astype(np.uint8)
    return np.dstack([r, g, b])


def main():
    p = argparse.ArgumentParser(description="RGB to gray, then a threshold, on the QPUs.")
    p.add_argument("-d", "--device", help="/dev/qpu, or emu (default $QPU_DEVICE, else /dev/qpu)")
    p.add_argument("-t", "--threshold", type=int, default=100, help="0 to 255 (default 100)")
    p.add_argument("-o", "--output", help="write the thresholded image as a PGM file")
    p.add_argument("size", nargs="*", type=int, default=[320, 240], metavar="WIDTH HEIGHT")
    args = p.parse_args()
    if len(args.size) != 2:
        p.error("give WIDTH and HEIGHT")
    w, h = args.size

    rgb = test_image(w, h)
    with qpu.Device(args.device) as dev:
        gray = dev.kernels.rgb_to_gray(rgb)                   # numpy in: copied
        mask = dev.kernels.threshold(gray, args.threshold)    # a device array: in place
        r, g, b = rgb.astype(int).transpose(2, 0, 1)
        want = ((77 * r + 150 * g + 29 * b + 128) >> 8).astype(np.uint8)
        ok = (np.array_equal(gray, want) and
              np.array_equal(mask, np.where(want > args.threshold, 255, 0)))
        if args.output:
            with open(args.output, "wb") as f:
                f.write(b"P5\n%d %d\n255\n" % (w, h) + np.asarray(mask).tobytes())
        print("image_filter: %dx%d on %s: %s" % (w, h, dev.description, "ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
