# SPDX-License-Identifier: MIT
"""@qpu.program: QPU programs written as Python functions over the Emitter,
in PyVideoCore's style (its @qpu decorator), with no compatibility shim.

    @qpu.program
    def add_uniform(asm, count=16):
        asm.mov(qpu.R0, qpu.ELEM_NUM)
        ...
        asm.thrend()
        asm.nop()
        asm.nop()

    prog = add_uniform(count=32)      # a qpu.Program, built on each call
    dev.run(add_uniform, [...])       # one without arguments runs as it is
"""

import functools

from .emit import Emitter


class ProgramFunction:
    """A function decorated with @qpu.program: calling it builds a Program
    from its body on a new Emitter (the function's first argument, asm,
    followed by the call's arguments); used as code itself (dev.run,
    dev.submit, .words) it is the Program built with no arguments."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._default = None

    def __call__(self, *args, **kwargs):
        asm = Emitter()
        self._fn(asm, *args, **kwargs)
        return asm.finish()

    def _program(self):
        if self._default is None:
            self._default = self()
        return self._default

    @property
    def words(self):
        return self._program().words

    @property
    def locations(self):
        return self._program().locations

    def __repr__(self):
        return "<qpu.program %s>" % self.__name__


def program(fn):
    """Decorator: fn(asm, ...) emits a program through asm (a qpu.Emitter);
    the decorated function returns the finished qpu.Program."""
    return ProgramFunction(fn)
