#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs every example of the READMEs and the manual pages as written.

Markdown: each fenced c, python or sh block; a comment on the line before
the fence may say "<!-- file: NAME -->" (the block is a file that later
blocks use: it is written, not run) or "<!-- not run: WHY -->". Manual
pages: each .EX block under EXAMPLE(S): "$ " lines are shell commands, a
block of C is the body of main() (after every public header), anything
else is output to read, not run; ".\\" not run: WHY" before .EX skips one.

C programs are built with `pkg-config --cflags --libs libqpu` with
PKG_CONFIG_PATH=build (libqpu-uninstalled.pc) and run; Python runs on this
tree's package; shell commands run with the tools on PATH. Everything runs
on the emulator (QPU_DEVICE=emu), in one directory per document, where
`build` is the build tree, in the order written.

usage: doc-examples.py BUILD_DIR FILE...
Prints PASS/FAIL/SKIP per example and "N passed, N failed, N skipped".
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADERS = ("stdint.h", "stdio.h", "stdlib.h", "string.h", "errno.h", "qpu.h",
           "qpu_kernels.h", "qpu_emit.h", "qpu_emit_v3d.h", "qpu_asm.h",
           "qpu_dis.h", "qpu_hazard.h", "qpu_emulator.h")
TIMEOUT = 120


def markdown_blocks(path):
    """(line, language, directive, text) of each fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w+)", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i + 1, m.group(1)
        prev = lines[i - 1].strip() if i else ""
        d = re.match(r"^<!-- *(file|not run): *(.*?) *-->$", prev)
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        yield start, lang, d.groups() if d else None, "\n".join(body) + "\n"


def unroff(line):
    for a, b in (("\\-", "-"), ("\\e", "\\"), ("\\(aq", "'"), ("\\(dq", '"'),
                 ("\\&", ""), ("\\ ", " ")):
        line = line.replace(a, b)
    return line


def man_blocks(path):
    section, directive, body, start = "", None, None, 0
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.startswith(".SH"):
            section = line
        elif line.startswith('.\\" not run:'):
            directive = ("not run", line.split(":", 1)[1].strip())
        elif line.startswith(".EX") and "EXAMPLE" in section:
            body, start = [], n + 1
        elif line.startswith(".EE") and body is not None:
            text = [unroff(x) for x in body]
            if any(x.startswith("$ ") for x in text):
                cmds = [x[2:] for x in text if x.startswith("$ ")]
                yield start, "sh", directive, "\n".join(cmds) + "\n"
            elif any(x.rstrip().endswith(";") for x in text):
                yield start, "c", directive, "\n".join(text) + "\n"
            body, directive = None, None
        elif body is not None:
            body.append(line)


class Runner:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.passed = self.failed = self.skipped = 0
        nm = subprocess.run(["nm", "-D", os.path.join(self.build, "libqpu.so")],
                            capture_output=True, text=True).stdout
        self.asan = "__asan_init" in nm
        self.env = dict(os.environ)
        self.env.update({
            # the tools, and this Python as python3
            "PATH": os.pathsep.join((os.path.join(self.build, "tools"),
                                     os.path.dirname(sys.executable), os.environ["PATH"])),
            "QPU_DEVICE": "emu",
            "PKG_CONFIG_PATH": "build",
            "PYTHONPATH": os.path.join(TOP, "libqpu", "python"),
            "QPU_LIBRARY": os.path.join(self.build, "libqpu.so.0"),
            # where `make install` would have put the include files
            "QPU_INCLUDE": os.path.join(TOP, "libqpu", "qasm"),
        })
        self.env.pop("PKG_CONFIG_LIBDIR", None)
        self.bindir = None
        if self.asan:
            # the ASan build's libqpu needs its runtime in every program: a
            # cc that adds it, first on PATH, for the examples' own commands
            self.bindir = tempfile.mkdtemp(prefix="doc-examples-cc.")
            cc = os.path.join(self.bindir, "cc")
            with open(cc, "w") as f:
                f.write('#!/bin/sh\nexec %s -fsanitize=address,undefined "$@"\n'
                        % shutil.which("cc"))
            os.chmod(cc, 0o755)
            self.env["PATH"] = self.bindir + os.pathsep + self.env["PATH"]

    def report(self, name, ok, out=""):
        if ok is None:
            self.skipped += 1
            print("SKIP %s: %s" % (name, out))
            return
        print("%s %s" % ("PASS" if ok else "FAIL", name))
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            for line in out.rstrip().split("\n"):
                print("    " + line)

    def sh(self, cwd, script, env=None):
        try:
            r = subprocess.run(["sh", "-ec", script], cwd=cwd, env=env or self.env, timeout=TIMEOUT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except subprocess.TimeoutExpired:
            return False, "timed out after %d s" % TIMEOUT
        return r.returncode == 0, "$ %s\n%s(exit status %d)" % (script.strip(), r.stdout,
                                                                r.returncode)

    def c(self, cwd, text, n, wrap):
        if wrap:
            text = ("".join("#include <%s>\n" % h for h in HEADERS) +
                    "\nint main(void)\n{\n" + text + "return 0;\n}\n")
        elif "main(" not in text:
            return False, "not a complete program (no main())"
        src = "example%d.c" % n
        with open(os.path.join(cwd, src), "w") as f:
            f.write(text)
        flags, env = "", None
        if wrap:    # a page's fragment may show a variable it does not use, or not free
            flags = "-Wno-unused-variable -Wno-unused-but-set-variable "
            env = dict(self.env, ASAN_OPTIONS="detect_leaks=0")
        return self.sh(cwd, "cc %s-Wall -Werror -o example%d %s $(pkg-config --cflags --libs libqpu)"
                       " && ./example%d" % (flags, n, src, n), env)

    def run_file(self, path):
        rel = os.path.relpath(path, TOP)
        is_man = not path.endswith(".md")
        blocks = list(man_blocks(path) if is_man else markdown_blocks(path))
        if not blocks:
            return
        cwd = tempfile.mkdtemp(prefix="doc-examples.")
        try:
            os.symlink(self.build, os.path.join(cwd, "build"))
            if is_man:
                self.fixtures(cwd)
            for n, (line, lang, directive, text) in enumerate(blocks):
                name = "%s:%d (%s)" % (rel, line, lang)
                if directive and directive[0] == "file":
                    with open(os.path.join(cwd, directive[1]), "w") as f:
                        f.write(text)
                    continue
                if directive:
                    self.report(name, None, directive[1])
                elif lang == "c":
                    self.report(name, *self.c(cwd, text, n, is_man))
                elif lang == "python":
                    if self.asan:
                        self.report(name, None, "Python does not load the ASan build")
                        continue
                    with open(os.path.join(cwd, "example%d.py" % n), "w") as f:
                        f.write(text)
                    self.report(name, *self.sh(cwd, "%s example%d.py" % (sys.executable, n)))
                elif lang == "sh":
                    self.report(name, *self.sh(cwd, text))
        finally:
            shutil.rmtree(cwd)

    def fixtures(self, cwd):
        """The files the manual pages' commands name."""
        with open(os.path.join(cwd, "prog.qasm"), "w") as f:
            f.write("mov r0, unif\nmov r1, unif\nthrend\nnop\nnop\n")
        with open(os.path.join(cwd, "part.qasm"), "w") as f:
            f.write("mov r0, 1\nadd r1, r0, r0\n")
        for args in (["-o", "prog.bin", "prog.qasm"], ["-f", "hex", "-o", "prog.hex", "prog.qasm"],
                     ["-o", "part.bin", "part.qasm"]):
            subprocess.run(["qpu-as"] + args, cwd=cwd, env=self.env, check=True,
                           capture_output=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[-2])
    runner = Runner(sys.argv[1])
    for path in sys.argv[2:]:
        runner.run_file(os.path.abspath(path))
    if runner.bindir:
        shutil.rmtree(runner.bindir)
    print("%d passed, %d failed, %d skipped" % (runner.passed, runner.failed, runner.skipped))
    sys.exit(1 if runner.failed else 0)


if __name__ == "__main__":
    main()
