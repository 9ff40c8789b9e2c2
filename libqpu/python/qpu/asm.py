# SPDX-License-Identifier: MIT
"""The toolkit that needs no device: the text assembler (<qpu_asm.h>), the
disassembler (<qpu_dis.h>) and the hazard checker (<qpu_hazard.h>)."""

import ctypes
import os

import numpy as np

from . import _lib
from ._lib import lib
from .errors import AssemblyError, DeviceError, Diagnostic


class Program:
    """Assembled words (a uint64 numpy array in .words) with where each came
    from (.locations: (file, line, column)) and the warnings (.warnings)."""

    def __init__(self, words, locations=(), warnings=()):
        self.words = np.array(words, dtype=np.uint64).reshape(-1)
        self.locations = list(locations)
        self.warnings = list(warnings)

    def __len__(self):
        return len(self.words)

    def __array__(self, dtype=None, copy=None):
        return self.words if dtype is None else self.words.astype(dtype)

    def disassemble(self, addr=0, target=False):
        return disassemble(self.words, addr, target)

    def hazards(self, **kw):
        return check_hazards(self.words, **kw)

    def __repr__(self):
        return "<qpu.Program %d words>" % len(self.words)


def _source_line(path, line, texts):
    """The text of a diagnostic's line: from the string assembled, or the file."""
    lines = texts.get(path)
    if lines is None:
        try:
            with open(path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        texts[path] = lines
    return lines[line - 1] if 0 < line <= len(lines) else None


def _loc(p):
    if not p:
        return None
    loc = p.contents
    return (_lib.pystr(loc.file), loc.line, loc.col, _lib.pystr(loc.macro), _loc(loc.expanded_from))


def include_path():
    """The directories .include searches after those given: $QPU_INCLUDE's
    entries, then where libqpu's include files were installed (vpm.qinc,
    dma.qinc, exit.qinc...): qpu_asm_default_include_dir()."""
    out, buf = [], ctypes.create_string_buffer(4096)
    while lib.qpu_asm_default_include_dir(len(out), buf, len(buf)) >= 0:
        out.append(os.fsdecode(buf.value))
    return out


def _hazard_warnings(words, locs, texts, skip):
    """The hazard checker's findings as warnings at their source, as qpu-as
    reports them."""
    out = []
    for h in check_hazards(words, skip=skip):
        f, line, col = locs[h.word] if h.word < len(locs) else ("<words>", 0, 0)
        message = "%s [%s]" % (h.message, h.name)
        if h.ref is not None and h.ref < len(locs):
            message += "; word %d is at %s:%d:%d" % ((h.ref,) + tuple(locs[h.ref]))
        out.append(Diagnostic(f, line, col, message, True, _source_line(f, line, texts), None))
    return out


def _run(include_dirs, run, texts, hazards=True, skip=(), gen="vc4"):
    as_ = lib.qpu_asm_new()
    if not as_:
        raise MemoryError("qpu_asm_new")
    try:
        if gen != "vc4":
            num = lib.qpu_gen_from_name(_lib.cstr(gen))
            if num < 0:
                raise ValueError("gen is vc4, v3d42 or v3d71, not %r" % (gen,))
            lib.qpu_asm_set_gen(as_, num)
        for d in include_dirs:
            ret = lib.qpu_asm_add_include_dir(as_, _lib.cstr(d))
            if ret:
                raise DeviceError(ret, "adding include directory %r" % (d,))
        ret = run(as_)
        dp = ctypes.POINTER(_lib.AsmDiag)()
        diags = []
        for i in range(lib.qpu_asm_diags(as_, ctypes.byref(dp))):
            d = dp[i]
            f = _lib.pystr(d.file)
            diags.append(Diagnostic(f, d.line, d.col, _lib.pystr(d.msg), bool(d.warning),
                                    _source_line(f, d.line, texts), _loc(d.expanded_from)))
        if ret == -22 or any(not d.warning for d in diags):  # EINVAL: the source's fault
            raise AssemblyError(diags)
        if ret:
            raise DeviceError(ret, "assembling")
        wp = ctypes.POINTER(ctypes.c_uint64)()
        n = lib.qpu_asm_words(as_, ctypes.byref(wp))
        words = np.ctypeslib.as_array(wp, (n,)).copy() if n else np.zeros(0, np.uint64)
        lp = ctypes.POINTER(_lib.AsmLoc)()
        locs = [(_lib.pystr(lp[i].file), lp[i].line, lp[i].col)
                for i in range(lib.qpu_asm_locs(as_, ctypes.byref(lp)))]
        warnings = [d for d in diags if d.warning]
        if hazards and gen == "vc4":  # check_hazards() is VideoCore IV's
            warnings += _hazard_warnings(words, locs, texts, skip)
        return Program(words, locs, warnings)
    finally:
        lib.qpu_asm_free(as_)


def _dirs(include_dirs):
    if isinstance(include_dirs, (str, bytes, os.PathLike)):
        return [include_dirs]
    return list(include_dirs)


def assemble(text, include_dirs=(), name="<string>", hazards=True, skip=(), gen="vc4"):
    """Assemble source text (vc4asm syntax; gen="v3d42" or "v3d71": Mesa's
    V3D syntax, without the hazard check) into a Program. Raises
    AssemblyError with file, line, column and the source line of the first
    error, and every error in its diagnostics. .include files are searched
    in include_dirs, then include_path(). Program.warnings has the
    assembler's warnings and, with hazards, the hazard checker's findings
    at their source lines, as qpu-as prints them (skip: rule names not to
    check)."""
    if not isinstance(text, str):
        raise TypeError("assemble() takes the source as str; use assemble_file() for a path")
    texts = {name: text.splitlines()}
    return _run(_dirs(include_dirs),
                lambda a: lib.qpu_asm_string(a, _lib.cstr(name), text.encode()), texts,
                hazards, skip, gen)


def assemble_file(path, include_dirs=(), hazards=True, skip=()):
    """Assemble a source file into a Program (FileNotFoundError and friends
    when it cannot be read); as assemble()."""
    path = os.fspath(path)

    def run(a):
        ret = lib.qpu_asm_file(a, _lib.cstr(path))
        if ret and ret != -22:
            raise OSError(-ret, os.strerror(-ret), path)
        return ret
    return _run(_dirs(include_dirs), run, {}, hazards, skip)


def assemble_line(text):
    """One instruction line as its 64-bit word (no labels)."""
    word = ctypes.c_uint64()
    msg = ctypes.create_string_buffer(256)
    if lib.qpu_asm_line(_lib.cstr(text), ctypes.byref(word), msg, len(msg)):
        m = msg.value.decode()
        line, col, rest = (m.split(":", 2) + ["", ""])[:3]
        try:
            diag = Diagnostic("<line>", int(line), int(col), rest.strip(), False, text, None)
        except ValueError:
            diag = Diagnostic("<line>", 1, 1, m, False, text, None)
        raise AssemblyError([diag])
    return word.value


# --- the disassembler ----------------------------------------------------------------


def disassemble_word(word, addr=0, target=False):
    """One word as assembler text (it assembles back to the same word)."""
    buf = ctypes.create_string_buffer(_lib.DIS_BUF_SIZE)
    w = int(word)
    if not 0 <= w < 1 << 64:
        raise ValueError("an instruction word is 64 bits, not %r" % (word,))
    lib.qpu_dis_word(w, int(addr) & 0xFFFFFFFF, _lib.DIS_TARGET if target else 0, buf, len(buf))
    return buf.value.decode()


def disassemble(words, addr=0, target=False):
    """Every word's text, as a list; addr is the first word's bus address."""
    words = np.asarray(getattr(words, "words", words))
    if words.dtype != np.uint64:
        raise TypeError("words are uint64, not %s" % words.dtype)
    return [disassemble_word(w, addr + 8 * i, target) for i, w in enumerate(words.reshape(-1))]


def write_reg_name(waddr, file_b=False):
    """The assembler's name of a write address 0..63 of regfile A (or B)."""
    name = lib.qpu_dis_write_reg_name(int(waddr), bool(file_b)) if 0 <= waddr < 64 else None
    if name is None:
        raise ValueError("a write address is 0 to 63, not %r" % (waddr,))
    return name.decode()


# --- the hazard checker ------------------------------------------------------------


class Hazard:
    """One finding: the word index, the earlier word it conflicts with (or
    None), the rule's id and name, and a message."""

    __slots__ = ("word", "ref", "rule", "name", "message")

    def __init__(self, h):
        self.word = h.word
        self.ref = None if h.ref == _lib.HAZARD_NO_REF else h.ref
        self.rule, self.name, self.message = h.rule, _lib.pystr(h.name), _lib.pystr(h.message)

    def __str__(self):
        return "word %d: %s [%s]" % (self.word, self.message, self.name)

    def __repr__(self):
        return "<qpu.Hazard %s>" % self


def hazard_rules():
    """Every rule as (id, name, summary)."""
    return [(i, lib.qpu_hazard_rule_name(i).decode(), lib.qpu_hazard_rule_summary(i).decode())
            for i in range(_lib.HAZARD_NUM_RULES)]


def hazard_rule(name):
    """A rule's id from its name (KeyError for an unknown one)."""
    r = lib.qpu_hazard_rule_find(_lib.cstr(name))
    if r < 0:
        raise KeyError("no hazard rule %r" % (name,))
    return r


def check_hazards(words, rules=None, skip=(), partial=False):
    """The hazards of a program (a Program or uint64 words) as a list of
    Hazard. rules: names or ids to apply (None: all); skip: names or ids
    not to; partial: the words are a piece of a program."""
    words = np.ascontiguousarray(getattr(words, "words", words))
    if words.dtype != np.uint64:
        raise TypeError("words are uint64, not %s" % words.dtype)
    words = words.reshape(-1)

    def ids(names):
        out = [hazard_rule(r) if isinstance(r, str) else int(r) for r in names]
        for r in out:
            if not 0 <= r < _lib.HAZARD_NUM_RULES:
                raise KeyError("no hazard rule %d" % r)
        return out
    mask = (1 << _lib.HAZARD_NUM_RULES) - 1 if rules is None else 0
    for r in ids(rules or ()):
        mask |= 1 << r
    for r in ids(skip):
        mask &= ~(1 << r)
    found = []

    def cb(h, ctx):
        found.append(Hazard(h.contents))
        return 0
    callback = _lib.HAZARD_CB(cb)
    ptr = words.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64))
    ret = lib.qpu_hazard_check(ptr, len(words), mask, _lib.HAZARD_PARTIAL if partial else 0,
                               callback, None)
    if ret < 0:
        raise DeviceError(ret, "qpu_hazard_check")
    return found
