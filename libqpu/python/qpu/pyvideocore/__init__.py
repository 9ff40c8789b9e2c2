# SPDX-License-Identifier: MIT
"""PyVideoCore programs, unchanged, on the qpu device: an import hook (a
sys.meta_path finder) serves the two layers PyVideoCore's Driver sits on,
its allocator `rpi_vcsm` (with `rpi_vcsm.VCSM`: see vcsm.py) and its
`videocore.mailbox` (see mailbox.py), from this package; PyVideoCore's
other modules are its own.

    python3 -m qpu.pyvideocore SCRIPT [ARGS]     # as python3 SCRIPT
    python3 -m qpu.pyvideocore -m MODULE [ARGS]  # as python3 -m MODULE

or, in a program, install() before PyVideoCore is imported. The device is
$QPU_DEVICE (else /dev/qpu; "emu" for the emulator in the process).
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys

from . import mailbox, vcsm

FIRMWARE_MAILBOX = "qpu.pyvideocore.firmware_mailbox"


def _serve_rpi_vcsm(module, path):
    for name in ("CACHE_NONE", "CACHE_HOST", "CACHE_VC", "CACHE_BOTH"):
        setattr(module, name, getattr(vcsm, name))
    module.__doc__ = vcsm.__doc__


def _serve_vcsm_class(module, path):
    module.VCSM = vcsm.VCSM
    module.__doc__ = vcsm.__doc__


def _original(fullname, path):
    """PyVideoCore's own module fullname, loaded aside (never in sys.modules
    under its name), or None when it has none."""
    spec = importlib.machinery.PathFinder.find_spec(fullname, path)
    if spec is None or not spec.origin or not spec.has_location:
        return None
    aside = importlib.util.spec_from_file_location(FIRMWARE_MAILBOX, spec.origin)
    module = importlib.util.module_from_spec(aside)
    aside.loader.exec_module(module)
    return module


def _serve_mailbox(module, path):
    mailbox.serve(module, _original("videocore.mailbox", path))


# name -> (fill the new module, is a package)
SERVED = {
    "rpi_vcsm": (_serve_rpi_vcsm, True),
    "rpi_vcsm.VCSM": (_serve_vcsm_class, False),
    "videocore.mailbox": (_serve_mailbox, False),
}


class _Loader(importlib.abc.Loader):
    def __init__(self, fill, path):
        self.fill, self.path = fill, path

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module):
        self.fill(module, self.path)


class ShadowFinder(importlib.abc.MetaPathFinder):
    """Finds the served modules before any other finder does."""

    def find_spec(self, fullname, path, target=None):
        served = SERVED.get(fullname)
        if served is None:
            return None
        fill, package = served
        return importlib.util.spec_from_loader(fullname, _Loader(fill, path), origin=__name__,
                                               is_package=package)


FINDER = ShadowFinder()


def _served(module):
    return getattr(getattr(module, "__spec__", None), "origin", None) == __name__


def installed():
    return FINDER in sys.meta_path


def install():
    """Serve the layers from now on. Refused (RuntimeError) when one of them
    was imported already: PyVideoCore would keep the one it has."""
    if installed():
        return
    early = [n for n in SERVED if n in sys.modules and not _served(sys.modules[n])]
    if early:
        raise RuntimeError("qpu.pyvideocore.install(): %s imported before it; install the "
                           "layer first (python3 -m qpu.pyvideocore runs a program so)"
                           % ", ".join(early))
    sys.meta_path.insert(0, FINDER)


def uninstall():
    """Stop serving the layers and forget the served modules."""
    if installed():
        sys.meta_path.remove(FINDER)
    for name in SERVED:
        if name in sys.modules and _served(sys.modules[name]):
            del sys.modules[name]
