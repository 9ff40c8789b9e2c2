# SPDX-License-Identifier: GPL-2.0
# V3D 4.2 and 7.1's part of the core (see ../sources.mk): the instruction
# tables and codec, which the emulator of these generations will run. Its
# headers are included by their folder ("v3d/qpu_v3dx_isa.h"), so nothing
# is added to QPU_CORE_INCLUDES.
QPU_CORE_RUN_SRCS += libqpu/core/v3d/qpu_v3dx_isa.c
