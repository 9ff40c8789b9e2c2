# SPDX-License-Identifier: GPL-2.0
# The freestanding core's sources, relative to the top of the tree. Kbuild
# links them into qpu.ko and libqpu/libqpu.mk into libqpu: one list for both.
QPU_CORE_SRCS := libqpu/core/qpu_isa.c libqpu/core/qpu_disasm.c \
	libqpu/core/qpu_emu.c libqpu/core/qpu_emu_vpm.c \
	libqpu/core/qpu_emu_float.c libqpu/core/qpu_emu_float_digest.c
