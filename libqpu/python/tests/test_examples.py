# SPDX-License-Identifier: MIT
"""examples/: every Python example runs on the device under test and says
"ok"; each takes --help and the device by the rule of every entry point."""

import glob
import os
import subprocess
import sys

import pytest

from conftest import DEVICE

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = sorted(glob.glob(os.path.join(HERE, "..", "examples", "*.py")))


def run(path, *args, **env):
    e = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."), **env)
    return subprocess.run([sys.executable, path, *args], env=e, capture_output=True,
                          text=True, timeout=300)


def test_the_examples_are_there():
    names = {os.path.basename(p) for p in EXAMPLES}
    assert {"vector_add.py", "sgemm.py", "image_filter.py", "emitter.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_runs(path):
    r = run(path, "--device", DEVICE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.rstrip().endswith(": ok"), r.stdout


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_example_takes_qpu_device_and_help(path):
    r = run(path, QPU_DEVICE=DEVICE)
    assert r.returncode == 0 and r.stdout.rstrip().endswith(": ok"), r.stdout + r.stderr
    r = run(path, "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: "), r.stdout + r.stderr
    r = run(path, QPU_DEVICE="/nonexistent/qpu")
    assert r.returncode != 0 and "QPU_DEVICE=emu, or --device emu" in r.stderr, r.stderr
