# SPDX-License-Identifier: GPL-2.0
# V3D 4.2 and 7.1's part of the core (see ../sources.mk): the instruction
# tables (qpu_v3d_isa.c), codec (qpu_v3d_codec.c) and the emulator of both
# generations (qpu_v3d_emu*.c). Nothing in qpu.ko runs them yet, so they
# are libqpu's until the simulated v3d node comes; they move to
# QPU_CORE_RUN_SRCS with it (the emulator is freestanding and FPU-free for
# that). Their headers are included by their folder ("v3d/qpu_v3d_isa.h"),
# so nothing is added to QPU_CORE_INCLUDES.
QPU_CORE_TOOL_SRCS += libqpu/core/v3d/qpu_v3d_isa.c \
	libqpu/core/v3d/qpu_v3d_codec.c \
	libqpu/core/v3d/qpu_v3d_emu.c libqpu/core/v3d/qpu_v3d_emu_alu.c \
	libqpu/core/v3d/qpu_v3d_emu_mem.c libqpu/core/v3d/qpu_v3d_emu_float.c
