# SPDX-License-Identifier: MIT
# libqpu/capture: V4L2 frames imported as qpu buffers (<qpu_capture.h>),
# part of libqpu; included by libqpu.mk. Its test runs in the VM against
# the vivid virtual camera (selftests/lib/test-runtime.c).

QPU_CAPTURE_SRCS := $(wildcard libqpu/capture/*.c)
