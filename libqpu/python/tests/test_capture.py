# SPDX-License-Identifier: MIT
"""qpu.capture: its copy of <qpu_capture.h> against the header; the
refusals before and at open on any machine; and, where a vivid camera is
(the VM's, when loaded), frames dequeued as views of its buffers."""

import errno
import glob
import os

import numpy as np
import pytest

import qpu
import qpu.capture as cap
from test_abi import check_against_headers, struct_pairs

STRUCTS = {"qpu_capture_config": cap.CaptureConfig, "qpu_capture_frame": cap.CaptureFrame}
HEADER_NAMES = {"nv12": "NV12", "i420": "YUV420", "yuyv": "YUYV", "rgb24": "RGB24",
                "gray8": "GREY"}


@pytest.mark.host_only
def test_package_matches_the_header(tmp_path):
    pairs = [("QPU_CAPTURE_" + HEADER_NAMES[k], v) for k, v in cap.FORMATS.items()]
    check_against_headers(tmp_path, ("qpu_capture.h",), pairs + struct_pairs(STRUCTS))


def test_fourcc():
    assert cap.fourcc("NV12") == 0x3231564E
    with pytest.raises(ValueError, match="four letters"):
        cap.fourcc("NV1")


def test_refused_before_the_camera(dev):
    with pytest.raises(ValueError, match="format 'mjpeg' is none of nv12"):
        cap.Capture(dev, "/dev/video0", 64, 48, "mjpeg")
    with pytest.raises(ValueError, match="0x48"):
        cap.Capture(dev, "/dev/video0", 0, 48)


def test_no_such_node(dev, tmp_path):
    path = str(tmp_path / "video99")
    with pytest.raises(qpu.DeviceError) as e:
        cap.Capture(dev, path, 64, 48)
    assert e.value.errno == errno.ENOENT
    assert path in str(e.value)


def test_not_a_capture_device(dev):
    with pytest.raises(qpu.DeviceError) as e:
        cap.Capture(dev, "/dev/null", 64, 48)
    assert e.value.errno == errno.ENODEV
    assert "not a V4L2" in str(e.value)


def _vivid():
    """vivid's first capture node, or None."""
    for d in sorted(glob.glob("/sys/class/video4linux/video*")):
        try:
            with open(os.path.join(d, "name")) as f:
                if "vid-cap" in f.read():
                    return "/dev/" + os.path.basename(d)
        except OSError:
            pass
    return None


@pytest.mark.skipif(_vivid() is None, reason="no vivid camera (the VM's camera step loads it)")
def test_vivid_frames_view_the_cameras_buffers(dev):
    with cap.Capture(dev, _vivid(), 320, 180, "nv12") as c:
        f = c.format
        assert (f["width"], f["height"], f["format"], f["planes"]) == (320, 180, "nv12", 2)
        assert f["strides"][0] >= 320 and f["offsets"][1] >= 320 * 180
        c.start()
        seen = []
        for _ in range(3):
            frame = c.dequeue(5000)
            assert frame is not None and frame.format == "nv12"
            assert frame.data.dtype == np.uint8 and frame.data.size == frame.bytesused
            assert frame.plane(0).shape == (180, f["strides"][0])
            assert frame.plane(1).shape == (90, f["strides"][1])
            assert frame.data.any()	# vivid draws its test pattern
            seen.append(frame.sequence)
            c.queue(frame)
            with pytest.raises(ValueError, match="queued already"):
                c.queue(frame)
        assert seen == sorted(seen) and len(set(seen)) == 3
        assert c.fileno() >= 0
    with pytest.raises(qpu.ClosedError):
        c.start()
    c.close()	# twice is harmless
