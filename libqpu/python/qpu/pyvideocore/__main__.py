# SPDX-License-Identifier: MIT
"""python3 -m qpu.pyvideocore SCRIPT [ARGS] | -m MODULE [ARGS] | -c CMD [ARGS]:
run a PyVideoCore program as python3 would, with the layers served by
qpu.pyvideocore (the device: $QPU_DEVICE, else /dev/qpu)."""

import importlib.util
import os
import runpy
import sys

from . import install

USAGE = """usage: python3 -m qpu.pyvideocore SCRIPT [ARGS...]
       python3 -m qpu.pyvideocore -m MODULE [ARGS...]
       python3 -m qpu.pyvideocore -c COMMAND [ARGS...]
Runs a PyVideoCore program as python3 would, with its allocator (rpi_vcsm)
and mailbox (videocore.mailbox) served by qpu on $QPU_DEVICE (else /dev/qpu;
"emu" for the emulator), e.g. python3 -m qpu.pyvideocore -m pytest tests/"""

PROG = "qpu.pyvideocore"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    mode = argv[0] if argv[0] in ("-m", "-c") else None
    if mode and len(argv) < 2:
        print("%s: argument expected for the %s option\n%s" % (PROG, mode, USAGE),
              file=sys.stderr)
        return 2
    if argv[0].startswith("-") and not mode:
        print("%s: unknown option %s\n%s" % (PROG, argv[0], USAGE), file=sys.stderr)
        return 2
    install()
    if mode == "-m":
        # As python3 -m: sys.path[0] is the current directory (it is already,
        # as this package was run so), argv[0] the module's file.
        try:
            found = importlib.util.find_spec(argv[1])
        except (ImportError, ValueError):
            found = None
        if found is None:
            print("%s: No module named %s" % (PROG, argv[1]), file=sys.stderr)
            return 1
        sys.argv = [argv[1]] + argv[2:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif mode == "-c":
        sys.argv = ["-c"] + argv[2:]
        sys.path[0] = ""
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        script = argv[0]
        if not os.path.exists(script):
            print("%s: can't open file %r: [Errno 2] No such file or directory"
                  % (PROG, os.path.abspath(script)), file=sys.stderr)
            return 2
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
