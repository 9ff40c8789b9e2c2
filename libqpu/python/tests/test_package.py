# SPDX-License-Identifier: MIT
"""The library lookup order and `python3 -m qpu`."""

import os
import shutil
import subprocess
import sys

import pytest

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


@pytest.mark.host_only  # no device: the host's run is enough
def test_qpu_library_first(tmp_path):
    site = isolated(tmp_path, True)
    r = run(PRINT, {"PYTHONPATH": str(site), "QPU_LIBRARY": qpu.LIBRARY_PATH})
    assert r.returncode == 0 and r.stdout.strip() == qpu.LIBRARY_PATH


@pytest.mark.host_only  # no device: the host's run is enough
def test_bad_qpu_library_is_an_import_error(tmp_path):
    r = run(PRINT, {"PYTHONPATH": str(isolated(tmp_path, True)),
                    "QPU_LIBRARY": str(tmp_path / "nope.so")})
    assert r.returncode != 0 and "QPU_LIBRARY" in r.stderr and "ImportError" in r.stderr


@pytest.mark.host_only  # no device: the host's run is enough
def test_next_to_the_package(tmp_path):
    r = run(PRINT, {"PYTHONPATH": str(isolated(tmp_path, True))})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(tmp_path / "lib" / "libqpu.so.0")


@pytest.mark.host_only  # no device: the host's run is enough
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


@pytest.mark.host_only  # no device: the host's run is enough
def test_main_fails_without_device():
    r = run(["-m", "qpu", "/nonexistent/qpu"], {"QPU_LIBRARY": qpu.LIBRARY_PATH,
                                                "PYTHONPATH": os.path.dirname(PKG)})
    assert r.returncode == 1 and "No such file" in r.stderr


@pytest.mark.host_only
def test_wheel_and_sdist_build_offline(tmp_path):
    """python3 -m build --no-isolation, as make python-dist runs it."""
    pytest.importorskip("build")
    src = tmp_path / "src"
    top = os.path.dirname(PKG)
    src.mkdir()
    for f in ("pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy(os.path.join(top, f), src)
    for d in ("qpu", "tests"):
        shutil.copytree(os.path.join(top, d), src / d,
                        ignore=shutil.ignore_patterns("__pycache__"))
    r = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                        str(tmp_path / "dist"), str(src)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    import tarfile
    import zipfile
    (wheel,) = (tmp_path / "dist").glob("qpu-*-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "qpu/__init__.py" in names and "qpu/_lib.py" in names
    assert "qpu/pyvideocore/__main__.py" in names
    (sdist,) = (tmp_path / "dist").glob("qpu-*.tar.gz")
    names = tarfile.open(sdist).getnames()
    assert any(n.endswith("/pyproject.toml") for n in names)
    assert any(n.endswith("/tests/test_jobs.py") for n in names)
    # The wheel, unpacked, imports with the library given.
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    r = run(["-m", "qpu", "emu"], {"PYTHONPATH": str(tmp_path / "site"),
                                   "QPU_LIBRARY": qpu.LIBRARY_PATH})
    assert r.returncode == 0, r.stderr


@pytest.mark.host_only
@pytest.mark.parametrize("readme", ["README.md", "libqpu/python/README.md"])
def test_readme_examples_run(readme, tmp_path):
    """Every python block of the READMEs runs on the emulator as written."""
    import re
    path = os.path.join(os.path.dirname(PKG), "..", "..", readme)
    blocks = re.findall(r"^```python\n(.*?)^```$", open(path).read(), re.S | re.M)
    assert blocks
    for i, code in enumerate(blocks):
        (tmp_path / ("ex%d.py" % i)).write_text(code)
        r = run([str(tmp_path / ("ex%d.py" % i))], {
            "QPU_LIBRARY": qpu.LIBRARY_PATH, "QPU_DEVICE": "emu",
            "PYTHONPATH": os.path.dirname(PKG)})
        assert r.returncode == 0, r.stderr
        assert "[100 101 102" in r.stdout
