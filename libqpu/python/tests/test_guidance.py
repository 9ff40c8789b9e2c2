# SPDX-License-Identifier: MIT
"""What the package tells a newcomer (issue: a newcomer's first hour): the
three ways to get a device, faults that say why, help(qpu)'s example, the
command line's --help, hazard warnings from assemble(), the include path,
and programs written with @qpu.program."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import qpu
from conftest import DEVICE, STORE

PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_no_device_names_the_three_ways(tmp_path):
    with pytest.raises(qpu.DeviceError) as e:
        qpu.Device(str(tmp_path / "qpu"))
    assert e.value.errno == 2
    for way in ("sim=1", "QPU_DEVICE=emu, or --device emu", "Raspberry Pi"):
        assert way in str(e.value) and way in e.value.hint


def test_feature_names_are_libqpus():
    assert qpu._lib.DEV_FEATURES == {"uniforms_anywhere": 1, "deadlock": 2, "all_bos": 4}


def test_fault_names_the_buffer_the_job_did_not_list(dev):
    out = dev.array(16, np.uint32)
    prog = qpu.assemble(STORE, name="store.qasm")
    with pytest.raises(qpu.FaultError) as e:
        dev.run(prog, [1, out.bus_addr])
    msg = str(e.value)
    assert ("0x%08x is byte 0 of a %d-byte buffer of this device that the job did not list: "
            "pass it in buffers=[...]" % (out.bus_addr, out.buffer.size)) in msg, msg
    # the instruction that stored, where the source says it is
    line = STORE.splitlines().index("    mov vw_addr, unif") + 1
    assert "(store.qasm:%d:5)" % line in msg, msg
    assert e.value.result.fault_source == ("store.qasm", line, 5)


def test_fault_outside_every_buffer(dev):
    prog = qpu.assemble(STORE, name="store.qasm")
    with pytest.raises(qpu.FaultError) as e:
        dev.run(prog, [1, 0x1000])
    assert "0x00001000 is in no buffer of this device" in str(e.value)


def test_help_example_runs():
    """help(qpu)'s example, as written, on the device under test."""
    doc = qpu.__doc__
    code = textwrap.dedent("    " + doc[doc.index("import numpy"):doc.index("See README")])
    assert "buffers=[out]" in code
    env = dict(os.environ, QPU_DEVICE=DEVICE, PYTHONPATH=PKG)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.replace("[", " ").replace("]", " ").split() == [str(i) for i in range(16)]


def module_main(*args, **env):
    return subprocess.run([sys.executable, "-m", "qpu", *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=PKG, **env), cwd="/")


def test_module_help_and_version():
    r = module_main("--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python3 -m qpu"), r.stderr
    assert "qpu-tools(7)" in r.stdout
    r = module_main("-V")
    assert r.returncode == 0 and r.stdout == "python3 -m qpu (libqpu) %s\n" % qpu.__version__
    r = module_main("--bogus")
    assert r.returncode == 2 and "unrecognized arguments: --bogus" in r.stderr
    r = module_main("--device", DEVICE)
    assert r.returncode == 0 and "self-check passed" in r.stdout, r.stdout + r.stderr


def test_module_without_device_names_the_three_ways():
    r = module_main(QPU_DEVICE="/nonexistent/qpu")
    assert r.returncode == 1 and "QPU_DEVICE=emu, or --device emu" in r.stderr, r.stderr


RAW = "mov ra1, 1\nadd r0, ra1, 1\nthrend\nnop\nnop\n"


def test_assemble_returns_hazard_warnings():
    p = qpu.assemble(RAW, name="raw.qasm")
    w = [d for d in p.warnings if "[regfile-raw]" in d.message]
    assert len(w) == 1 and (w[0].file, w[0].line, w[0].column) == ("raw.qasm", 2, 1)
    assert w[0].warning and w[0].source_line == "add r0, ra1, 1"
    assert "raw.qasm:1:1" in w[0].message
    assert not qpu.assemble(RAW, hazards=False).warnings
    assert not qpu.assemble(RAW, skip=["regfile-raw"]).warnings


def test_include_path(tmp_path, monkeypatch):
    monkeypatch.setenv("QPU_INCLUDE", "%s::/nonexistent" % tmp_path)
    path = qpu.include_path()
    assert path[:2] == [str(tmp_path), "/nonexistent"] and path[-1].endswith("share/qpu/qasm")
    (tmp_path / "mine.qinc").write_text(".set answer, 42\n")
    p = qpu.assemble('.include "mine.qinc"\nmov r0, answer\n')
    assert qpu.disassemble(p.words) == ["ldi r0, 0x2a"]
    monkeypatch.delenv("QPU_INCLUDE")
    assert len(qpu.include_path()) == 1


@qpu.program
def add_uniform(asm, base=qpu.UNIF):
    asm.mov(qpu.R0, qpu.ELEM_NUM)
    asm.vpm_write_setup(1, qpu.VpmMode.H32, 0)
    asm.iadd(qpu.R0, qpu.R0, base)
    asm.mov(qpu.VPM, qpu.R0)
    asm.vdw_setup(1, 16, qpu.VpmMode.H32, 0)
    asm.mov(qpu.VW_ADDR, qpu.UNIF)
    asm.mov(qpu.NOP, qpu.VW_WAIT)
    asm.thrend()


def test_program_decorator(dev):
    assert isinstance(add_uniform, qpu.ProgramFunction) and add_uniform.__name__ == "add_uniform"
    prog = add_uniform()
    assert isinstance(prog, qpu.Program) and len(prog) == 10
    out = dev.array(16, np.uint32)
    dev.run(prog, [7, out.bus_addr], buffers=[out])
    assert (out == np.arange(16) + 7).all()
    dev.run(add_uniform, [9, out.bus_addr], buffers=[out])    # as code itself
    assert (out == np.arange(16) + 9).all()
    dev.run(add_uniform(base=qpu.imm(3)), [out.bus_addr], buffers=[out])   # with arguments
    assert (out == np.arange(16) + 3).all()


def test_program_decorator_reports_emit_errors():
    @qpu.program
    def bad(asm):
        asm.brr(qpu.BrCond.ALWAYS, "nowhere")

    with pytest.raises(qpu.EmitError):
        bad()
