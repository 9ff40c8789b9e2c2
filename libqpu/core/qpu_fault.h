/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * How a job on a simulated device stops, the same for every generation's
 * emulator: the kinds of memory access a program makes and the reasons a
 * job faults, with the fault record naming the QPU, the PC and the
 * address. The device model (qpu_devmodel.h), qpu.ko's simulated V3D and
 * libqpu's emulator device report faults in these terms alone.
 */
#ifndef QPU_FAULT_H
#define QPU_FAULT_H

#include "qpu_types.h"

/* What a memory access is for, as reported in faults and traces. */
enum qpu_emu_access {
	QPU_EMU_ACCESS_FETCH,		/* instruction fetch */
	QPU_EMU_ACCESS_UNIFORM,		/* uniform stream read */
	QPU_EMU_ACCESS_TMU,		/* TMU (texture/direct memory) read */
	QPU_EMU_ACCESS_DMA_LOAD,	/* VCD DMA from memory into the VPM */
	QPU_EMU_ACCESS_DMA_STORE,	/* VCD DMA from the VPM into memory */
};

/* Why a job stopped with a fault. */
enum qpu_emu_fault_reason {
	QPU_EMU_FAULT_MEMORY,		/* translate() refused an access */
	QPU_EMU_FAULT_MISALIGNED,	/* address not aligned for its access */
	QPU_EMU_FAULT_INSTRUCTION,	/* an encoding the hardware cannot run */
	QPU_EMU_FAULT_VPM,		/* VPM access outside it, or wrapping */
};

/**
 * struct qpu_emu_fault - where and why a job stopped
 * @reason: a QPU_EMU_FAULT_* value
 * @qpu: the QPU
 * @pc: bus address of the instruction
 * @addr: the address refused (bus address, or VPM address for VPM faults)
 * @access: what the access was for
 */
struct qpu_emu_fault {
	enum qpu_emu_fault_reason reason;
	u32 qpu;
	u32 pc;
	u32 addr;
	enum qpu_emu_access access;
};

#endif /* QPU_FAULT_H */
