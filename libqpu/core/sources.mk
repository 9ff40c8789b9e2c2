# SPDX-License-Identifier: GPL-2.0
# The freestanding core's sources and include directories, relative to the
# top of the tree: one list for Kbuild (qpu.ko) and libqpu/libqpu.mk. The
# shared parts (qpu_types.h, qpu_devmodel.h, qpu_fault.h) are headers; each
# generation's folder lists its own sources in its sources.mk, which adds
#   QPU_CORE_RUN_SRCS   what qpu.ko's simulated devices run (codec, emulator)
#   QPU_CORE_TOOL_SRCS  what only libqpu's toolkit needs (the disassembler)
#   QPU_CORE_INCLUDES   directories whose headers are included by name
# A generation is added to QPU_CORE_GENERATIONS beside the others; the
# timing model (timing/, userspace only) adds tool sources.
QPU_CORE_GENERATIONS := vc4 v3d

QPU_CORE_MK_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
QPU_CORE_INCLUDES := libqpu/core
QPU_CORE_RUN_SRCS :=
QPU_CORE_TOOL_SRCS :=
include $(foreach g,$(QPU_CORE_GENERATIONS),$(QPU_CORE_MK_DIR)$(g)/sources.mk)
include $(QPU_CORE_MK_DIR)timing/sources.mk
QPU_CORE_SRCS := $(QPU_CORE_RUN_SRCS) $(QPU_CORE_TOOL_SRCS)
