# SPDX-License-Identifier: MIT
"""The library lookup order and `python3 -m qpu`."""

import os
import shutil
import subprocess
import sys

import qpu
from conftest import DEVICE

PKG = os.path.dirname(qpu.__file__)


def run(args, env_update, cwd="/"):
    env = dict(os.environ)
    env.pop("QPU_LIBRARY", None)
    env.pop("LD_LIBRARY_PATH", None)
    env.update(env_update)
    # cwd: not the source tree, whose qpu/ would shadow the copy under test.
    return subprocess.run([sys.executable] + args, env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def isolated(tmp_path, with_lib):
    """A copy of the package alone in tmp_path/lib/python3/dist-packages."""
    site = tmp_path / "lib" / "python3" / "dist-packages"
    shutil.copytree(PKG, site / "qpu", ignore=shutil.ignore_patterns("__pycache__"))
    if with_lib:
        shutil.copy(qpu.LIBRARY_PATH, tmp_path / "lib" / "libqpu.so.0")
    return site


PRINT = ["-c", "import qpu; print(qpu.LIBRARY_PATH)"]


def test_qpu_library_first(tmp_path):
    site = isolated(tmp_path, True)
    r = run(PRINT, {"PYTHONPATH": str(site), "QPU_LIBRARY": qpu.LIBRARY_PATH})
    assert r.returncode == 0 and r.stdout.strip() == qpu.LIBRARY_PATH


def test_bad_qpu_library_is_an_import_error(tmp_path):
    r = run(PRINT, {"PYTHONPATH": str(isolated(tmp_path, True)),
                    "QPU_LIBRARY": str(tmp_path / "nope.so")})
    assert r.returncode != 0 and "QPU_LIBRARY" in r.stderr and "ImportError" in r.stderr


def test_next_to_the_package(tmp_path):
    r = run(PRINT, {"PYTHONPATH": str(isolated(tmp_path, True))})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "lib" / "libqpu.so.0")


def test_soname_through_the_loader(tmp_path):
    site = isolated(tmp_path, False)
    r = run(PRINT, {"PYTHONPATH": str(site)})
    if r.returncode == 0:  # an installed libqpu.so.0 answered
        assert r.stdout.strip() == "libqpu.so.0"
    else:
        assert "libqpu not found" in r.stderr
    libdir = tmp_path / "elsewhere"
    libdir.mkdir()
    shutil.copy(qpu.LIBRARY_PATH, libdir / "libqpu.so.0")
    r = run(PRINT, {"PYTHONPATH": str(site), "LD_LIBRARY_PATH": str(libdir)})
    assert r.returncode == 0 and r.stdout.strip() == "libqpu.so.0"


def test_main_self_check():
    r = run(["-m", "qpu", DEVICE], {"QPU_LIBRARY": qpu.LIBRARY_PATH,
                                    "PYTHONPATH": os.path.dirname(PKG)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "device: %s" % DEVICE in r.stdout and "self-check passed" in r.stdout
    r = run(["-m", "qpu"], {"QPU_LIBRARY": qpu.LIBRARY_PATH, "QPU_DEVICE": DEVICE,
                            "PYTHONPATH": os.path.dirname(PKG)})
    assert r.returncode == 0 and "num_qpus" in r.stdout


def test_main_fails_without_device():
    r = run(["-m", "qpu", "/nonexistent/qpu"], {"QPU_LIBRARY": qpu.LIBRARY_PATH,
                                                "PYTHONPATH": os.path.dirname(PKG)})
    assert r.returncode == 1 and "No such file" in r.stderr
