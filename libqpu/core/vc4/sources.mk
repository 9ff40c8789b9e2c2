# SPDX-License-Identifier: GPL-2.0
# VideoCore IV's part of the core (see ../sources.mk). qpu.ko runs the
# codec, the emulator and its float semantics; the disassembler is libqpu's.
# Its headers are included by name (qpu_emu.h, qpu_isa.h...), as qpu.ko's
# sources and libqpu's always have; a later generation's are included by
# their folder (v3d/...), so no name can clash.
QPU_CORE_RUN_SRCS += libqpu/core/vc4/qpu_isa.c \
	libqpu/core/vc4/qpu_emu.c libqpu/core/vc4/qpu_emu_alu.c \
	libqpu/core/vc4/qpu_emu_regs.c libqpu/core/vc4/qpu_emu_flags.c \
	libqpu/core/vc4/qpu_emu_tmu.c libqpu/core/vc4/qpu_emu_mem.c \
	libqpu/core/vc4/qpu_emu_vpm.c \
	libqpu/core/vc4/qpu_emu_float.c libqpu/core/vc4/qpu_emu_float_digest.c
QPU_CORE_TOOL_SRCS += libqpu/core/vc4/qpu_disasm.c
QPU_CORE_INCLUDES += libqpu/core/vc4
