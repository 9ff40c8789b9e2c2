# SPDX-License-Identifier: GPL-2.0
# The timing model (see ../sources.mk): userspace only, so its sources are
# tool sources, which qpu.ko does not build.
QPU_CORE_TOOL_SRCS += libqpu/core/timing/qpu_timing.c \
	libqpu/core/timing/qpu_timing_board.c \
	libqpu/core/timing/qpu_timeline.c \
	libqpu/core/timing/qpu_timing_v3d.c \
	libqpu/core/timing/qpu_timing_v3d_board.c
QPU_CORE_INCLUDES += libqpu/core/timing
