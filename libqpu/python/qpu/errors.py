# SPDX-License-Identifier: MIT
"""The exceptions of the qpu package: one class per way a call can fail."""

import errno as _errno
import os


class Error(Exception):
    """Base class of every error the qpu package raises itself."""


class DeviceError(Error, OSError):
    """A libqpu call failed with an errno value (an OSError too)."""

    def __init__(self, err, what, hint=None):
        err = abs(err)
        text = "%s: %s" % (what, os.strerror(err))
        OSError.__init__(self, err, text + ("\n" + hint if hint else ""))
        self.what = what
        #: what to do about it, when libqpu knows (qpu_dev_open_hint())
        self.hint = hint


class ClosedError(Error, ValueError):
    """The device was closed, or the buffer freed, before this use."""


class WaitTimeout(Error, TimeoutError):
    """A job did not end within the time a wait was given (ETIME)."""

    def __init__(self, job, timeout):
        TimeoutError.__init__(self, _errno.ETIME,
                              "job %d has not ended after %s s" % (job.seqno, timeout))
        self.job = job


class Diagnostic:
    """One assembler error or warning, with where it was and that source line."""

    __slots__ = ("file", "line", "column", "message", "warning", "source_line", "expanded_from")

    def __init__(self, file, line, column, message, warning, source_line, expanded_from):
        self.file, self.line, self.column = file, line, column
        self.message, self.warning, self.source_line = message, warning, source_line
        self.expanded_from = expanded_from

    def __str__(self):
        kind = "warning" if self.warning else "error"
        s = "%s:%d:%d: %s: %s" % (self.file, self.line, self.column, kind, self.message)
        if self.source_line is not None:
            s += "\n    %s\n    %s^" % (self.source_line, " " * max(self.column - 1, 0))
        return s

    def __repr__(self):
        return "Diagnostic(%r, %d, %d, %r)" % (self.file, self.line, self.column, self.message)


class AssemblyError(Error):
    """Source the assembler refused. The first error's place is in file, line,
    column and source_line; every diagnostic is in diagnostics."""

    def __init__(self, diagnostics, message=None):
        self.diagnostics = list(diagnostics)
        errors = [d for d in self.diagnostics if not d.warning] or self.diagnostics
        first = errors[0] if errors else None
        self.file = first.file if first else None
        self.line = first.line if first else None
        self.column = first.column if first else None
        self.source_line = first.source_line if first else None
        self.message = first.message if first else message
        Error.__init__(self, message or "\n".join(str(d) for d in errors))


class EmitError(Error, ValueError):
    """A call on an Emitter was refused; index is the instruction's."""

    def __init__(self, message, index):
        Error.__init__(self, message)
        self.index = index


class JobError(Error):
    """A job did not end as done; result says how it ended."""

    def __init__(self, result):
        Error.__init__(self, str(result))
        self.result = result


class FaultError(JobError):
    """A program touched memory outside its job's buffers (or could not run)."""


class JobTimeoutError(JobError, TimeoutError):
    """A job ran past its own timeout and was stopped."""


class ResetError(JobTimeoutError):
    """The driver reset the GPU under the job (its hang check saw no progress)."""


class DeadlockError(JobError):
    """Every running program of the job waited forever on another."""


class CanceledError(JobError):
    """The job never started."""


class KernelError(Error):
    """A sample kernel refused its arguments (errno EINVAL) or its job failed
    (EIO); the message is the kernels' own (qpu_kernels_last_error())."""

    def __init__(self, err, message):
        Error.__init__(self, message)
        self.errno = abs(err)
