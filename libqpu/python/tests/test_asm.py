# SPDX-License-Identifier: MIT
"""The assembler, disassembler and hazard checker (no device needed)."""

import os

import numpy as np
import pytest

import qpu

QASM_DIR = os.environ.get("QPU_TEST_QASM", os.path.join(os.path.dirname(__file__), "..", "..",
                                                        "qasm"))


def test_assemble_words_and_locations():
    p = qpu.assemble("nop\n  thrend\nnop\nnop\n", name="t.qasm")
    assert len(p) == 4 and p.words.dtype == np.uint64
    assert np.asarray(p).dtype == np.uint64
    assert p.locations[1] == ("t.qasm", 2, 3)
    assert p.disassemble()[1] == "nop; thrend" and p.warnings == []


def test_error_carries_file_line_column_and_source():
    with pytest.raises(qpu.AssemblyError) as e:
        qpu.assemble("nop\n  mov r0, bogus\n", name="bad.qasm")
    err = e.value
    assert (err.file, err.line, err.column) == ("bad.qasm", 2, 11)
    assert err.source_line == "  mov r0, bogus" and "bogus" in err.message
    assert "bad.qasm:2:11: error:" in str(err) and "^" in str(err)
    assert len(err.diagnostics) == 1 and not err.diagnostics[0].warning


def test_several_errors():
    with pytest.raises(qpu.AssemblyError) as e:
        qpu.assemble("frob r0\nnop\nfrob r1\n")
    assert [d.line for d in e.value.diagnostics] == [1, 3]


def test_error_in_an_included_file(tmp_path):
    (tmp_path / "inc.qinc").write_text("nop\nmov r0, nowhere\n")
    with pytest.raises(qpu.AssemblyError) as e:
        qpu.assemble('.include "inc.qinc"\n', include_dirs=[tmp_path])
    assert e.value.file.endswith("inc.qinc") and e.value.line == 2
    assert e.value.source_line == "mov r0, nowhere"


def test_include_dirs(tmp_path):
    (tmp_path / "two.qinc").write_text("nop\nnop\n")
    p = qpu.assemble('.include "two.qinc"\nthrend\nnop\nnop\n', include_dirs=str(tmp_path))
    assert len(p) == 5
    with pytest.raises(qpu.AssemblyError):
        qpu.assemble('.include "two.qinc"\n')


@pytest.mark.skipif(not os.path.isdir(QASM_DIR), reason="libqpu's qasm/ include files absent")
def test_library_include_files():
    p = qpu.assemble('.include "exit.qinc"\nqpu_exit\n', include_dirs=[QASM_DIR])
    assert "thrend" in " ".join(p.disassemble())


def test_too_many_include_dirs():
    with pytest.raises(qpu.DeviceError):
        qpu.assemble("nop\n", include_dirs=["/"] * 40)


def test_assemble_file(tmp_path):
    f = tmp_path / "p.qasm"
    f.write_text("thrend\nnop\nnop\n")
    assert len(qpu.assemble_file(f)) == 3
    f.write_text("nop\nwhat\n")
    with pytest.raises(qpu.AssemblyError) as e:
        qpu.assemble_file(f)
    assert e.value.file == str(f) and e.value.source_line == "what"
    with pytest.raises(FileNotFoundError):
        qpu.assemble_file(tmp_path / "missing.qasm")


def test_assemble_takes_text():
    with pytest.raises(TypeError):
        qpu.assemble(b"nop")


def test_assemble_line():
    w = qpu.assemble_line("add r0, r1, r2")
    assert qpu.disassemble_word(w) == "add r0, r1, r2"
    with pytest.raises(qpu.AssemblyError) as e:
        qpu.assemble_line("add r0, r1")
    assert e.value.line == 1 and e.value.source_line == "add r0, r1"


def test_disassemble_round_trip():
    src = ["fadd r0, r1, r2; fmul r3, r1, r2", "ldi ra1, 0x12345678", "brr -, +32", "nop"]
    p = qpu.assemble("\n".join(src) + "\n")
    text = qpu.disassemble(p, addr=0x1000, target=True)
    assert "0x" in text[2] and "#" in text[2]
    back = qpu.assemble("\n".join(qpu.disassemble(p)) + "\n")
    assert (back.words == p.words).all()
    with pytest.raises(TypeError):
        qpu.disassemble(np.zeros(2, np.int32))
    with pytest.raises(ValueError):
        qpu.disassemble_word(-1)


def test_write_reg_name():
    assert qpu.write_reg_name(3) == "ra3" and qpu.write_reg_name(3, True) == "rb3"
    assert qpu.write_reg_name(56) == "t0s"
    with pytest.raises(ValueError):
        qpu.write_reg_name(64)


RAW = "mov ra1, 1\nadd r0, ra1, 1\nthrend\nnop\nnop\n"


def test_hazards():
    found = qpu.check_hazards(qpu.assemble(RAW))
    assert [h.name for h in found] == ["regfile-raw"]
    h = found[0]
    assert h.word == 1 and h.ref == 0 and h.rule == qpu.hazard_rule("regfile-raw")
    assert "regfile-raw" in str(h) and h.message
    assert qpu.check_hazards(qpu.assemble(RAW), skip=["regfile-raw"]) == []
    assert qpu.check_hazards(qpu.assemble(RAW), rules=["thrend-missing"]) == []
    assert qpu.check_hazards(qpu.assemble(RAW).words, rules=[h.rule])[0].name == "regfile-raw"


def test_hazards_partial():
    piece = qpu.assemble("nop\nnop\n")
    assert [h.name for h in qpu.check_hazards(piece)] == ["thrend-missing", "runs-off-end"]
    assert qpu.check_hazards(piece, partial=True) == []


def test_hazard_rules():
    rules = qpu.hazard_rules()
    assert len(rules) >= 37 and rules[0][1] == "regfile-raw" and rules[0][2]
    with pytest.raises(KeyError):
        qpu.hazard_rule("no-such-rule")
    with pytest.raises(KeyError):
        qpu.check_hazards(qpu.assemble(RAW), rules=["no-such-rule"])
    with pytest.raises(KeyError):
        qpu.check_hazards(qpu.assemble(RAW), rules=[200])
    with pytest.raises(TypeError):
        qpu.check_hazards(np.zeros(2, np.uint32))
