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

/*
 * What a memory access is for, as reported in faults and traces, in terms
 * every generation has: the QPUs read memory through the TMU, and bulk
 * loads and stores move memory to and from their shared local memory.
 */
enum qpu_mem_access {
	QPU_MEM_FETCH,		/* instruction fetch */
	QPU_MEM_UNIFORM,	/* uniform stream read */
	QPU_MEM_TMU,		/* TMU (texture/direct memory) read */
	QPU_MEM_LOAD,		/* bulk load (VideoCore IV: VCD DMA into the VPM) */
	QPU_MEM_STORE,		/* bulk store (VideoCore IV: VDW DMA from the VPM) */
	QPU_MEM_TMU_WRITE,	/* TMU write or atomic (V3D 4.2/7.1) */
};

/* Why a job stopped with a fault. */
enum qpu_fault_reason {
	QPU_FAULT_REASON_MEMORY,		/* translate() refused an access */
	QPU_FAULT_REASON_MISALIGNED,	/* address not aligned for its access */
	QPU_FAULT_REASON_INSTRUCTION,	/* an encoding the hardware cannot run */
	QPU_FAULT_REASON_VPM,		/* VPM access outside it, or wrapping */
};

/**
 * struct qpu_fault - where and why a job stopped
 * @reason: a QPU_FAULT_REASON_* value
 * @qpu: the QPU
 * @pc: bus address of the instruction
 * @addr: the address refused (bus address, or VPM address for VPM faults)
 * @access: what the access was for
 */
struct qpu_fault {
	enum qpu_fault_reason reason;
	u32 qpu;
	u32 pc;
	u32 addr;
	enum qpu_mem_access access;
};

#endif /* QPU_FAULT_H */
