# SPDX-License-Identifier: MIT
"""python3 -m qpu [-d DEVICE]: print the device, run the self-check; exit 0
when it passes. Options as the tools take them (qpu-tools(7))."""

import argparse
import sys

from .errors import Error
from .selfcheck import main


def parse(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m qpu",
        description="Print what a qpu device reports and run a program and a sample "
                    "kernel on it, each checked against numpy.",
        epilog="Options follow qpu-tools(7).")
    p.add_argument("-d", "--device", help="the device node, or emu for the emulator in this "
                   "process (default $QPU_DEVICE, else /dev/qpu)")
    p.add_argument("device_arg", nargs="?", metavar="DEVICE", help="the same as --device")
    p.add_argument("-V", "--version", action="store_true", help="the package version")
    args = p.parse_args(argv[1:])
    if args.device and args.device_arg:
        p.error("give the device once")
    return args


args = parse(sys.argv)
if args.version:
    from . import __version__
    print("python3 -m qpu (libqpu) %s" % __version__)
    sys.exit(0)
try:
    sys.exit(main([sys.argv[0]] + [d for d in (args.device or args.device_arg,) if d]))
except (Error, OSError) as e:
    print("qpu: %s" % e, file=sys.stderr)
    sys.exit(1)
