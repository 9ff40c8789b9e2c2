# SPDX-License-Identifier: MIT
"""Jobs: run, submit, up to 12 programs, fences (wait, poll, select,
asyncio), in-fences, results, faults, timeouts and deadlocks."""

import asyncio
import os
import select

import numpy as np
import pytest

import qpu
from conftest import ON_EMU, SPIN, needs_real_fences, store_under_mutex


def test_run_returns_result(dev, store):
    out = dev.array(16, np.uint32)
    res = dev.run(store, [7, out.bus_addr], buffers=[out])
    assert res.ok and res.status == "done" and res.status_text == "done"
    assert res.instructions == 10 * 1
    assert res.fault_qpu is None and res.fault_addr is None and res.qpus is None
    assert "done" in str(res) and "10 instructions" in repr(res)
    if ON_EMU:
        assert res.counters["uniform_bytes"] == 8 and res.counters["dma_store_bytes"] == 64
    else:
        assert res.counters is None
    assert res.check() is res


def test_code_and_uniforms_on_the_device(dev, store):
    code = dev.asarray(store.words)
    unif = dev.array(2, np.uint32)
    out = dev.array(16, np.uint32)
    unif[:] = [3, out.bus_addr]
    dev.run(code, unif, buffers=[out])
    assert out[0] == 3 and out[15] == 18


def test_twelve_programs(dev):
    prog = qpu.assemble(store_under_mutex())
    out = dev.array((12, 16), np.uint32)
    programs = [(prog, [100 * i, out[i].bus_addr]) for i in range(12)]
    res = dev.run(programs=programs, buffers=[out])
    assert res.instructions == 12 * 12
    assert (out == (np.arange(12) * 100)[:, None] + np.arange(16)).all()


def test_program_count_limits(dev, store):
    with pytest.raises(ValueError, match="1 to 12"):
        dev.submit(programs=[(store, [0, 0])] * 13)
    with pytest.raises(ValueError, match="1 to 12"):
        dev.submit(programs=[])


def test_submit_argument_errors(dev, store):
    with pytest.raises(TypeError):
        dev.submit()
    with pytest.raises(TypeError):
        dev.submit(store, programs=[store])
    with pytest.raises(TypeError, match="uint64"):
        dev.submit(np.zeros(4, np.uint32))
    with pytest.raises(TypeError, match="uniforms"):
        dev.submit(store, ["a"])
    with pytest.raises(ValueError, match="32-bit"):
        dev.submit(store, [1 << 32])
    with pytest.raises(ValueError, match="timeout_ms"):
        dev.submit(store, [0, 0], timeout_ms=-1)
    with pytest.raises(ValueError, match="\\(code, uniforms\\)"):
        dev.submit(programs=[(store, [0], 1)])
    with pytest.raises(TypeError, match="in-fence"):
        dev.submit(store, [0, 0], in_fences=["x"])
    with pytest.raises(TypeError):
        dev.submit(store, [0, 0], buffers=[np.zeros(4)])
    code = dev.array(3, np.uint64)
    with pytest.raises(ValueError, match="8-byte"):
        dev.submit(code.view(np.uint8)[4:12].view(np.uint64))
    unif = dev.array(4, np.uint8)
    with pytest.raises(ValueError, match="4-byte"):
        dev.submit(store, unif[1:])


def test_job_wait_poll_and_fence(dev, store):
    out = dev.array(16, np.uint32)
    with dev.submit(store, [1, out.bus_addr], buffers=[out]) as job:
        fd = job.fileno()
        assert job.fence == fd
        r, _, _ = select.select([fd], [], [], 10)
        assert r == [fd] and job.done()
        res = job.poll()
        assert res is not None and res.ok
        assert job.wait() is res and job.wait(0) is res
        assert "done" in repr(job)
    with pytest.raises(qpu.ClosedError):
        job.fileno()
    with pytest.raises(OSError):
        os.fstat(fd)  # closed with the job


def test_wait_after_device_closed(store):
    from conftest import DEVICE
    d = qpu.Device(DEVICE)
    job = d.submit(store, [0, 0])  # faults: nothing to store to
    d.close()
    with pytest.raises(qpu.ClosedError):
        job.wait()


def test_fault_names_qpu_pc_and_address(dev, store):
    out = dev.array(16, np.uint32)
    with pytest.raises(qpu.FaultError) as e:
        dev.run(programs=[(store, [0, out.bus_addr]), (store, [0, 0x1000])], buffers=[out])
    res = e.value.result
    assert res.status == "fault" and not res.ok
    assert res.fault_qpu == 1 and res.fault_addr == 0x1000
    assert res.fault_access == "dma_store" and res.fault_access_text
    assert res.fault_pc != 0 and "QPU 1" in str(e.value)
    assert isinstance(e.value, qpu.JobError)
    assert dev.run(store, [0, 0x1000], check=False).status == "fault"


def test_all_buffers_reaches_unlisted_buffers(dev, store):
    out = dev.array(16, np.uint32)
    with pytest.raises(qpu.FaultError):  # not listed: out of the job's reach
        dev.run(store, [5, out.bus_addr])
    assert dev.run(store, [5, out.bus_addr], all_buffers=True).ok
    assert (out == np.arange(16) + 5).all()
    later = dev.array(16, np.uint32)
    job = dev.submit(store, [6, later.bus_addr], all_buffers=True)
    assert job.wait().ok and later[15] == 21


def test_all_buffers_stops_outside_every_buffer(dev, store):
    with pytest.raises(qpu.FaultError) as e:
        dev.run(store, [0, 0x1000], all_buffers=True)
    assert e.value.result.fault_addr == 0x1000


def test_all_buffers_takes_no_buffer_list(dev, store):
    out = dev.array(16, np.uint32)
    with pytest.raises(ValueError, match="give no buffers"):
        dev.submit(store, [0, out.bus_addr], buffers=[out], all_buffers=True)


def test_all_buffers_needs_the_feature(dev, store):
    dev.features = dev.features - {"all_bos"}  # as a device without it reports
    out = dev.array(16, np.uint32)
    with pytest.raises(ValueError, match="all_bos"):
        dev.submit(store, [0, out.bus_addr], all_buffers=True)


def test_job_timeout(dev, spin):
    with pytest.raises(qpu.JobTimeoutError) as e:
        dev.run(spin, timeout_ms=1)
    assert e.value.result.status == "timeout" and isinstance(e.value, TimeoutError)


def test_deadlock(dev):
    prog = qpu.assemble("sacq -, 0\nthrend\nnop\nnop\n")
    with pytest.raises(qpu.DeadlockError) as e:
        dev.run(prog)
    qpus = e.value.result.qpus
    assert qpus[0][1:] == ("wait_semaphore", 0) and qpus[1][1] == "idle"


def test_wait_timeout_and_poll_of_running_job(dev, spin, gate):
    with dev.submit(spin, timeout_ms=200, in_fences=gate.fences) as job:
        assert job.poll() is None and not job.done()
        with pytest.raises(qpu.WaitTimeout) as e:
            job.wait(0.05)
        assert e.value.job is job and isinstance(e.value, TimeoutError)
        gate.release()
        with pytest.raises(qpu.JobTimeoutError):
            job.wait(60)


def test_in_fences_order_jobs(dev, store):
    out = dev.array((3, 16), np.uint32)
    first = dev.submit(store, [1, out[0].bus_addr], buffers=[out])
    second = dev.submit(store, [2, out[1].bus_addr], buffers=[out], in_fences=[first])
    third = dev.submit(store, [3, out[2].bus_addr], buffers=[out],
                       in_fences=[first.fileno(), second])
    assert third.wait().ok and second.wait().ok and first.wait().ok
    assert list(out[:, 0]) == [1, 2, 3]


def counted_loop(n):
    """A program that runs about 5 n instructions, then ends."""
    return qpu.assemble("""
        ldi ra0, %d
        nop
    loop:
        sub.setf ra0, ra0, 1
        brr.anynz -, loop
        nop
        nop
        nop
        thrend
        nop
        nop
    """ % n)


@needs_real_fences()
def test_in_fences_wait_for_running_jobs(dev, store):
    out = dev.array(16, np.uint32)
    slow = [dev.submit(counted_loop(100000)) for _ in range(2)]
    after = dev.submit(store, [9, out.bus_addr], buffers=[out], in_fences=slow)
    assert after.poll() is None
    assert after.wait(60).ok and out[0] == 9
    for job in slow:
        assert job.poll().ok


def test_job_after_a_failed_in_fence_is_canceled(dev, spin, store):
    # A failed job's fence carries its error, on qpu.ko (a sync_file's) and
    # on the emulator (which keeps how its fences' jobs ended): dependents
    # never run.
    failed = dev.submit(spin, timeout_ms=5)
    after = dev.submit(store, [9, 0], in_fences=[failed])
    with pytest.raises(qpu.CanceledError) as e:
        after.wait(60)
    assert e.value.result.status == "canceled"


def test_await_in_asyncio(dev, store):
    out = dev.array((4, 16), np.uint32)

    async def main():
        jobs = [dev.submit(store, [i, out[i].bus_addr], buffers=[out]) for i in range(4)]
        results = await asyncio.gather(*jobs)
        return results, await jobs[0].wait_async()
    results, again = asyncio.run(main())
    assert all(r.ok for r in results) and again is results[0]
    assert list(out[:, 3]) == [3, 4, 5, 6]


def test_await_raises_job_error(dev, store):
    async def main():
        return await dev.submit(store, [0, 0])
    with pytest.raises(qpu.FaultError):
        asyncio.run(main())

    async def unchecked():
        return await dev.submit(store, [0, 0]).wait_async(check=False)
    assert asyncio.run(unchecked()).status == "fault"


def test_await_does_not_block_the_loop(dev, spin, gate):
    ticks = []

    async def ticker():
        while True:
            ticks.append(1)
            await asyncio.sleep(0.001)

    async def main():
        t = asyncio.ensure_future(ticker())
        job = dev.submit(spin, timeout_ms=500, in_fences=gate.fences)
        asyncio.get_running_loop().call_later(0.1, gate.release)
        with pytest.raises(qpu.JobTimeoutError):
            await asyncio.wait_for(job, 60)
        t.cancel()
    asyncio.run(main())
    assert len(ticks) > 1


def test_no_timeout_bound(dev):
    prog = counted_loop(100)
    if ON_EMU:
        assert dev.run(prog, timeout_ms=qpu.TIMEOUT_NONE).ok
    else:  # qpu.ko cuts it to its maximum
        assert dev.run(prog, timeout_ms=qpu.TIMEOUT_NONE).instructions > 400
