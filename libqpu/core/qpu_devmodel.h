/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * The device model both simulated devices share, qpu.ko's simulated V3D
 * (kmod/qpu_sim.c) and libqpu's in-process emulator device (libqpu/
 * emudev.c): where buffers sit in the 32-bit bus space and the defaults of
 * their limits, held once so that the two behave the same.
 *
 * Buffers are placed from QPU_DEVMODEL_BUS_START, each followed by an
 * unmapped gap of QPU_DEVMODEL_BUS_GUARD bytes, so an access running off a
 * buffer's end meets no other buffer and faults. The largest buffer by
 * default holds a 33 MiB arena, what PyVideoCore's default driver
 * allocates at once; a real V3D's limits follow from its board instead.
 */
#ifndef QPU_DEVMODEL_H
#define QPU_DEVMODEL_H

#include "qpu_fault.h"
#include "qpu_types.h"

#define QPU_DEVMODEL_BUS_START		0xc0000000u
#define QPU_DEVMODEL_BUS_SIZE		(0x40000000u - QPU_DEVMODEL_BUS_GUARD)
#define QPU_DEVMODEL_BUS_GUARD		0x10000u

#define QPU_DEVMODEL_MAX_BO_SIZE	(64u << 20)
#define QPU_DEVMODEL_DEFAULT_TIMEOUT_MS	2000u
#define QPU_DEVMODEL_MAX_TIMEOUT_MS	60000u

/**
 * qpu_devmodel_program_fits() - whether a program's window is valid
 * @code_size: bytes of the buffer holding its code
 * @code_offset: where its first instruction is in that buffer
 * @unif_size: bytes of the buffer holding its uniforms
 * @unif_offset: where its uniform stream starts in that buffer
 * @unif_length: bytes of uniforms it declares (0: not said)
 *
 * The rule of every device, real or simulated: code starts on an
 * instruction inside its buffer, uniforms on a word inside theirs, and a
 * declared length is whole words that fit. A declared length bounds
 * nothing at run time (the stream may read on; uapi's &qpu_program).
 */
static inline bool qpu_devmodel_program_fits(u64 code_size, u64 code_offset,
					     u64 unif_size, u64 unif_offset,
					     u64 unif_length)
{
	return !(code_offset % 8) && code_offset < code_size &&
	       !(unif_offset % 4) && unif_offset < unif_size &&
	       !(unif_length % 4) && unif_length <= unif_size - unif_offset;
}

/**
 * qpu_devmodel_find_window() - which of a job's buffers holds an access
 * @bufs: the job's buffers, sorted by bus address, none overlapping
 * @count: entries in @bufs
 * @window: gives buffer @buf's bus address and size in bytes
 * @addr: the access's bus address
 * @len: its bytes, at least one
 *
 * The rule of both simulated devices: an access is allowed when all of it
 * lies inside one buffer of its job; the buffers are found by a binary
 * search, so a job of many buffers costs no scan per access.
 *
 * Return: the index in @bufs of that buffer, or -1.
 */
static inline int qpu_devmodel_find_window(const void *const *bufs,
					   unsigned int count,
					   void (*window)(const void *buf,
							  u32 *start, u64 *size),
					   u32 addr, u32 len)
{
	unsigned int lo = 0, hi = count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		u64 size;
		u32 start;

		window(bufs[mid], &start, &size);
		if (addr < start)
			hi = mid;
		else if (addr - start >= size)
			lo = mid + 1;
		else
			return len <= size - (addr - start) ? (int)mid : -1;
	}
	return -1;
}

/**
 * qpu_devmodel_fault_access() - what kind of access a fault reports
 * @f: the emulator's fault
 *
 * Return: true with *@access set when the fault was a memory access
 * refused or misaligned; false when the program did what the V3D cannot
 * (an invalid instruction, a VPM access outside it): reported as "other".
 */
static inline bool qpu_devmodel_fault_access(const struct qpu_fault *f,
					     enum qpu_mem_access *access)
{
	if (f->reason != QPU_FAULT_REASON_MEMORY &&
	    f->reason != QPU_FAULT_REASON_MISALIGNED)
		return false;
	*access = f->access;
	return true;
}

#endif /* QPU_DEVMODEL_H */
