# SPDX-License-Identifier: MIT
"""qpu.pyvideocore: the import hook that serves PyVideoCore's allocator
(rpi_vcsm) and mailbox (videocore.mailbox), with programs of our own
written against their interfaces (allocation tuples, cache modes, the
control-list launch, timeouts and faults as DriverError), every refusal,
and `python3 -m qpu.pyvideocore`. pyvideocore_client/ stands in for
PyVideoCore's package: its firmware mailbox is what the hook shadows."""

import os
import subprocess
import sys

import numpy as np
import pytest

import qpu
import qpu.pyvideocore as pvc
from conftest import DEVICE, LOAD_ADD_STORE, SPIN, STORE, store_under_mutex

CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyvideocore_client")
PAGE = 4096
TIMEOUT = 0x80000000  # execute_qpu()'s answer on a timeout, as the firmware's


def _forget_client():
    for name in list(sys.modules):
        if name == "videocore" or name.startswith("videocore.") or name.startswith("rpi_vcsm"):
            del sys.modules[name]


@pytest.fixture
def layers(monkeypatch):
    """The hook installed over the stand-in client, on the device under test."""
    monkeypatch.setenv("QPU_DEVICE", DEVICE)
    monkeypatch.syspath_prepend(CLIENT)
    _forget_client()
    pvc.install()
    import rpi_vcsm
    import rpi_vcsm.VCSM
    import videocore.driver
    import videocore.mailbox
    vcsm = rpi_vcsm.VCSM.VCSM()
    mb = videocore.mailbox.MailBox()
    yield rpi_vcsm, vcsm, videocore.mailbox, mb, videocore.driver
    mb.close()
    vcsm.close()
    pvc.uninstall()
    _forget_client()


def upload(vcsm, words, cache=0):
    """A program's words in a new allocation, copied as PyVideoCore copies
    code: into the allocation's buffer by slice. Returns its bus address and
    the allocation."""
    code = np.asarray(words, np.uint64).tobytes()
    alloc = vcsm.malloc_cache(len(code), cache, "code")
    alloc[3][0:len(code)] = code
    return alloc[1], alloc


def array(alloc, shape, dtype, offset=0):
    """An array on an allocation, built as PyVideoCore's Array is."""
    return np.ndarray(shape, dtype, buffer=alloc[3], offset=offset)


def control_list(vcsm, pairs):
    """(uniforms, code) bus-address pairs in a new allocation: its bus address."""
    alloc = vcsm.malloc_cache(8 * len(pairs), 0, "message")
    array(alloc, (len(pairs), 2), np.uint32)[:] = pairs
    return alloc[1], alloc


# --- the hook -------------------------------------------------------------------


def test_hook_serves_both_layers(layers):
    rpi_vcsm, vcsm, mailbox, mb, driver = layers
    for name in ("rpi_vcsm", "rpi_vcsm.VCSM", "videocore.mailbox"):
        assert sys.modules[name].__spec__.origin == "qpu.pyvideocore"
    assert (rpi_vcsm.CACHE_NONE, rpi_vcsm.CACHE_HOST, rpi_vcsm.CACHE_VC,
            rpi_vcsm.CACHE_BOTH) == (0, 1, 2, 3)
    # The client's own modules stay its own; its mailbox's other calls,
    # constants and exception class are kept under the served MailBox.
    assert sys.modules["videocore.driver"].__file__.startswith(CLIENT)
    assert mailbox.MailBoxException.__module__ == "qpu.pyvideocore.firmware_mailbox"
    assert mb.DEVICE_USB_HCD == 3 and hasattr(mb, "get_firmware_revision")
    assert isinstance(mb, pvc.mailbox.QpuMailBox)


def test_uninstall_restores_the_originals(layers):
    pvc.uninstall()
    _forget_client()
    import videocore.mailbox
    assert videocore.mailbox.__file__.startswith(CLIENT)
    with pytest.raises(ImportError):
        import rpi_vcsm  # noqa: F401 (not installed on the test machines)


def test_install_after_the_mailbox_is_refused(monkeypatch):
    monkeypatch.syspath_prepend(CLIENT)
    _forget_client()
    pvc.uninstall()
    import videocore.mailbox  # noqa: F401 (the firmware's, imported first)
    try:
        with pytest.raises(RuntimeError, match="videocore.mailbox imported before"):
            pvc.install()
        assert not pvc.installed()
    finally:
        _forget_client()


@pytest.mark.skipif(os.path.exists("/dev/vcio"), reason="this machine has the firmware's node")
def test_firmware_calls_stay_the_originals_and_say_what_is_missing(layers):
    mb = layers[3]
    with pytest.raises(OSError, match="/dev/vcio") as e:
        mb.get_firmware_revision()  # the client's own code, through the served fd
    assert "enable_qpu() and execute_qpu()" in str(e.value)


# --- the allocator: tuples, cache modes, lifetimes --------------------------------


def test_allocation_tuple(layers):
    rpi_vcsm, vcsm = layers[:2]
    handle, bus, usr, buf = vcsm.malloc_cache(1000, rpi_vcsm.CACHE_NONE, "py-videocore")
    assert isinstance(handle, int) and handle > 0
    assert isinstance(bus, int) and bus % PAGE == 0 and bus > 0
    assert isinstance(usr, int) and usr % PAGE == 0
    assert len(buf) == PAGE and not buf.readonly and not any(buf)  # whole pages, zeroed
    a = np.ndarray(16, np.uint32, buffer=buf, offset=64)
    assert a.ctypes.data == usr + 64  # the user address is where the CPU sees it
    buf[64:68] = b"\x01\x02\x03\x04"
    assert a[0] == 0x04030201
    with pytest.raises(TypeError):  # the buffer's bounds hold (PyVideoCore's "too large")
        np.ndarray(PAGE + 1, np.uint8, buffer=buf)
    other = vcsm.malloc_cache(PAGE, rpi_vcsm.CACHE_NONE, None)
    assert other[0] != handle and other[1] != bus and len(other[3]) == PAGE
    vcsm.free(handle, buf)
    assert vcsm.malloc_cache(1, 0, "")[0] not in (handle, other[0])  # never reused


def test_driver_sized_arenas_fit_the_device(layers):
    # PyVideoCore's Driver() asks at once for 1 MiB + 96 bytes (code and
    # messages) and 32 MiB (data): within the devices' default max_bo_size.
    vcsm = layers[1]
    ctl = vcsm.malloc_cache(12 * 2 * 4 + (1 << 20), 0, "py-videocore")
    dat = vcsm.malloc_cache(32 << 20, 0, "py-videocore")
    assert len(ctl[3]) == (1 << 20) + PAGE and len(dat[3]) == 32 << 20
    dat[3][(32 << 20) - 1] = 7


@pytest.mark.parametrize("mode", ["CACHE_NONE", "CACHE_HOST", "CACHE_VC", "CACHE_BOTH"])
def test_cache_modes_run_a_program(layers, mode):
    rpi_vcsm, vcsm, _, mb, driver = layers
    cache = getattr(rpi_vcsm, mode)
    code, _ = upload(vcsm, qpu.assemble(LOAD_ADD_STORE).words)
    # The data in an allocation of its own, which only the job's reach over
    # every allocation finds (not the code's nor the uniforms').
    data = vcsm.malloc_cache(3 * 64, cache, "data")
    src, out = array(data, 16, np.uint32), array(data, 16, np.uint32, 128)
    unif = vcsm.malloc_cache(8, cache, "uniforms")
    array(unif, 2, np.uint32)[:] = [data[1], data[1] + 128]
    src[:] = np.arange(16) * 3
    vcsm.clean(data[2], 3 * 64)  # as PyVideoCore's Array.clean()
    vcsm.clean(unif[2], 8)
    msg, _ = control_list(vcsm, [(unif[1], code)])
    assert mb.enable_qpu(1) == 0
    driver.launch(mb, 1, msg, 10000)
    vcsm.invalidate(data[2] + 128, 64)  # as Array.invalidate()
    assert (out == np.arange(16) * 3 + 1).all()
    vcsm.clean_2d(data[2], 3, 16, 64)
    vcsm.invalidate_2d(data[2], 3, 16, 64)
    assert mb.enable_qpu(0) == 0


def test_free_while_an_array_views_it(layers):
    vcsm, mb = layers[1], layers[3]
    alloc = vcsm.malloc_cache(PAGE, 0, "data")
    a = array(alloc, 4, np.uint32)
    a[:] = 5
    vcsm.free(alloc[0], alloc[3])
    assert (a == 5).all()  # still mapped: memory goes back with the last view
    msg, _ = control_list(vcsm, [(alloc[1], alloc[1])])
    with pytest.raises(layers[2].MailBoxException, match="not inside"):
        mb.execute_qpu(1, msg, 0, 1000)  # but no job reaches it any more


def test_close_frees_every_allocation(layers):
    vcsm, mb = layers[1], layers[3]
    code, _ = upload(vcsm, qpu.assemble(STORE).words)
    msg, _ = control_list(vcsm, [(code, code)])
    vcsm.close()
    with pytest.raises(layers[2].MailBoxException, match="control list"):
        mb.execute_qpu(1, msg, 0, 1000)
    with pytest.raises(ValueError, match="closed"):
        vcsm.malloc_cache(PAGE, 0, "x")


@pytest.mark.parametrize("args,error,match", [
    ((0, 0, "x"), ValueError, "at least one byte"),
    ((-5, 0, "x"), ValueError, "at least one byte"),
    (("big", 0, "x"), TypeError, "integer"),
    ((PAGE, 4, "x"), ValueError, "cache mode"),
    ((PAGE, -1, "x"), ValueError, "cache mode"),
    ((PAGE, None, "x"), ValueError, "cache mode"),
    ((PAGE, 0, 5), TypeError, "name"),
])
def test_malloc_cache_refusals(layers, args, error, match):
    with pytest.raises(error, match=match):
        layers[1].malloc_cache(*args)


def test_malloc_cache_past_the_device_limit(layers):
    vcsm = layers[1]
    limit = pvc.session.SESSION.device.params["max_bo_size"]
    with pytest.raises(qpu.DeviceError) as e:  # an OSError, as the original's ioctl gave
        vcsm.malloc_cache(limit + PAGE, 0, "huge")
    assert isinstance(e.value, OSError) and "qpu_bo_new" in str(e.value)


def test_free_refusals(layers):
    vcsm = layers[1]
    handle, _, _, buf = vcsm.malloc_cache(PAGE, 0, "x")
    other = vcsm.malloc_cache(PAGE, 0, "y")
    with pytest.raises(ValueError, match="not the buffer"):
        vcsm.free(handle, other[3])
    with pytest.raises(ValueError, match="no allocation"):
        vcsm.free(12345678, buf)
    vcsm.free(handle, buf)
    with pytest.raises(ValueError, match="freed already"):
        vcsm.free(handle, buf)
    from rpi_vcsm.VCSM import VCSM
    with VCSM() as stranger, pytest.raises(ValueError, match="no allocation"):
        stranger.free(other[0], other[3])  # another VCSM's


def test_cache_op_refusals(layers):
    vcsm = layers[1]
    _, _, usr, _ = vcsm.malloc_cache(PAGE, 1, "x")
    vcsm.clean(usr, PAGE)
    with pytest.raises(ValueError, match="not inside"):
        vcsm.clean(usr, PAGE + 1)
    with pytest.raises(ValueError, match="not inside"):
        vcsm.invalidate(usr - 4, 8)
    with pytest.raises(ValueError, match="not inside"):
        vcsm.invalidate_2d(usr, 2, 16, PAGE)  # the second block is past the end
    with pytest.raises(ValueError, match="not negative"):
        vcsm.clean_2d(usr, 1, -16, 0)
    with pytest.raises(TypeError, match="integer"):
        vcsm.invalidate("usr", 16)


# --- the mailbox: the control-list launch ----------------------------------------------


def test_control_list_runs_twelve_programs_as_one_job(layers):
    vcsm, mb = layers[1], layers[3]
    code, _ = upload(vcsm, qpu.assemble(store_under_mutex()).words)
    data = vcsm.malloc_cache(12 * 64 + 12 * 8, 0, "data")
    out = array(data, (12, 16), np.uint32)
    unif = array(data, (12, 2), np.uint32, 12 * 64)
    unif[:, 0] = np.arange(12) * 100
    unif[:, 1] = data[1] + 64 * np.arange(12)
    msg, _ = control_list(vcsm, [(data[1] + 12 * 64 + 8 * i, code) for i in range(12)])
    assert mb.execute_qpu(12, msg, 0, 10000) == 0
    assert (out == (np.arange(12) * 100)[:, None] + np.arange(16)).all()
    # A control list may sit anywhere in an allocation, 4-byte aligned;
    # noflush is ignored, timeout 0 is the device's default.
    unif[0, 0] = 7
    array(data, (1, 2), np.uint32, 2052)[:] = [(data[1] + 12 * 64, code)]
    assert mb.execute_qpu(1, data[1] + 2052, 1, 0) == 0
    assert out[0, 15] == 22 and out[1, 15] == 115


def test_a_program_without_uniforms(layers):
    # Driver.execute(uniforms=None) puts 0 in the list: the program runs.
    vcsm, mb = layers[1], layers[3]
    data = vcsm.malloc_cache(64, 0, "data")
    code, _ = upload(vcsm, qpu.assemble("""
        mov r0, elem_num
        mov vw_setup, vpm_setup(1, 1, h32(0))
        nop
        mov vpm, r0
        mov vw_setup, vdw_setup_0(1, 16, dma_h32(0, 0))
        ldi vw_addr, %d
        mov -, vw_wait
        thrend
        nop
        nop
    """ % data[1]).words)
    msg, _ = control_list(vcsm, [(0, code)])
    assert mb.execute_qpu(1, msg, 0, 1000) == 0
    assert (array(data, 16, np.uint32) == np.arange(16)).all()


def test_timeout_is_the_firmware_answer_and_a_driver_error(layers):
    vcsm, mb, driver = layers[1], layers[3], layers[4]
    code, _ = upload(vcsm, qpu.assemble(SPIN).words)
    msg, _ = control_list(vcsm, [(code, code)])
    assert mb.execute_qpu(1, msg, 0, 1) == TIMEOUT
    with pytest.raises(driver.DriverError, match="timeout"):
        driver.launch(mb, 1, msg, 1)


def test_deadlock_answers_as_a_timeout(layers):
    vcsm, mb = layers[1], layers[3]
    code, _ = upload(vcsm, qpu.assemble("sacq -, 0\nthrend\nnop\nnop\n").words)
    msg, _ = control_list(vcsm, [(code, code)])
    assert mb.execute_qpu(1, msg, 0, 10000) == TIMEOUT


def test_fault_is_a_driver_error_and_a_fault_error(layers):
    vcsm, mb, driver = layers[1], layers[3], layers[4]
    code, _ = upload(vcsm, qpu.assemble(STORE).words)
    unif = vcsm.malloc_cache(8, 0, "unif")
    array(unif, 2, np.uint32)[:] = [0, 0x1000]  # stores outside every allocation
    msg, _ = control_list(vcsm, [(unif[1], code)])
    with pytest.raises(driver.DriverError, match="fault") as e:
        mb.execute_qpu(1, msg, 0, 10000)
    assert isinstance(e.value, qpu.FaultError)
    assert e.value.result.fault_addr == 0x1000 and e.value.result.fault_access == "dma_store"


def test_execute_qpu_refusals(layers):
    vcsm, refused, mb = layers[1], layers[2].MailBoxException, layers[3]
    code, _ = upload(vcsm, qpu.assemble(STORE).words)
    unif = vcsm.malloc_cache(8, 0, "unif")[1]
    msg, msg_alloc = control_list(vcsm, [(unif, code)])
    cases = [
        ((0, msg, 0, 1000), "1 to 12"),
        ((13, msg, 0, 1000), "1 to 12"),
        ((1, msg, 0, -1), "timeout"),
        ((1, 0x1000, 0, 1000), r"control list at 0x00001000 \(8 bytes\) is not inside"),
        ((1, msg + 2, 0, 1000), "aligned"),
        ((2, msg + PAGE - 8, 0, 1000), "control list"),  # runs past its allocation
    ]
    for args, match in cases:
        with pytest.raises(refused, match=match):
            mb.execute_qpu(*args)
    words = array(msg_alloc, (3, 2), np.uint32)
    for pair, match in [((unif, 0x1000), "code at 0x00001000"),
                        ((unif, code + 4), "code at .* aligned"),
                        ((0x1000, code), "uniforms at 0x00001000"),
                        ((unif + 2, code), "uniforms at .* aligned")]:
        words[0] = pair
        with pytest.raises(refused, match="program 0's " + match):
            mb.execute_qpu(1, msg, 0, 1000)
    words[:] = [(unif, code), (unif, code), (unif, 0x1000)]
    with pytest.raises(refused, match="program 2's code"):
        mb.execute_qpu(3, msg, 0, 1000)
    mb.close()
    with pytest.raises(refused, match="closed"):
        mb.execute_qpu(1, msg, 0, 1000)
    with pytest.raises(refused, match="closed"):
        mb.enable_qpu(1)


# --- python3 -m qpu.pyvideocore ---------------------------------------------------------

PROBE = """
import sys
import numpy as np
import rpi_vcsm.VCSM
from videocore.mailbox import MailBox
words = np.array(%r, np.uint64).tobytes()
vcsm = rpi_vcsm.VCSM.VCSM()
_, bus, _, buf = vcsm.malloc_cache(4096, rpi_vcsm.CACHE_NONE, "probe")
buf[0:len(words)] = words
out = np.ndarray(16, np.uint32, buffer=buf, offset=2048)
np.ndarray(4, np.uint32, buffer=buf, offset=1024)[:] = [40, bus + 2048, bus + 1024, bus]
with MailBox() as mb:
    mb.enable_qpu(1)
    answer = mb.execute_qpu(1, bus + 1032, 0, 1000)
print(sys.argv, answer, out[15])
sys.exit(int(sys.argv[-1]))
"""


def run_layer(args, tmp_path, device=DEVICE):
    env = dict(os.environ, QPU_DEVICE=device,
               PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(qpu.__file__)),
                                           CLIENT]))
    env.setdefault("QPU_LIBRARY", qpu.LIBRARY_PATH)
    return subprocess.run([sys.executable, "-m", "qpu.pyvideocore"] + args, env=env,
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=300)


def test_command_line_runs_a_script(tmp_path, store):
    (tmp_path / "probe.py").write_text(PROBE % [int(w) for w in store.words])
    r = run_layer(["probe.py", "a", "3"], tmp_path)
    assert r.returncode == 3, r.stderr  # the script's own exit status
    assert r.stdout.split() == ["['probe.py',", "'a',", "'3']", "0", "55"]


@pytest.mark.host_only  # one run of the layer's command line is enough in the VM
def test_command_line_runs_a_module_and_a_command(tmp_path, store):
    (tmp_path / "probe_mod.py").write_text(PROBE % [int(w) for w in store.words])
    r = run_layer(["-m", "probe_mod", "0"], tmp_path)
    assert r.returncode == 0, r.stderr
    argv0 = r.stdout.split("'")[1]
    assert argv0 == str(tmp_path / "probe_mod.py") and r.stdout.split()[-2:] == ["0", "55"]
    r = run_layer(["-c", "import sys, rpi_vcsm; print(rpi_vcsm.__spec__.origin, sys.argv)",
                   "x"], tmp_path)
    assert r.returncode == 0 and r.stdout.split() == ["qpu.pyvideocore", "['-c',", "'x']"]


@pytest.mark.host_only  # argument errors: the host's run is enough
@pytest.mark.parametrize("args,status,match", [
    ([], 2, "usage"),
    (["-m"], 2, "argument expected for the -m option"),
    (["-c"], 2, "argument expected for the -c option"),
    (["-x", "y"], 2, "unknown option -x"),
    (["missing.py"], 2, "can't open file"),
    (["-m", "no_such_module"], 1, "No module named no_such_module"),
])
def test_command_line_refusals(tmp_path, args, status, match):
    r = run_layer(args, tmp_path)
    assert r.returncode == status and match in r.stderr, r.stderr


@pytest.mark.host_only
def test_command_line_help(tmp_path):
    r = run_layer(["--help"], tmp_path)
    assert r.returncode == 0 and "-m pytest tests/" in r.stdout


@pytest.mark.host_only
def test_command_line_names_a_missing_device(tmp_path, store):
    (tmp_path / "probe.py").write_text(PROBE % [int(w) for w in store.words])
    r = run_layer(["probe.py", "0"], tmp_path, device=str(tmp_path / "no-such-qpu"))
    assert r.returncode == 1 and "opening qpu device" in r.stderr, r.stderr
