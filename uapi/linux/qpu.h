/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * qpu: user-program access to the QPUs of the VideoCore IV V3D.
 *
 * The one definition of the ABI between qpu.ko and its users (libqpu, qpuctl,
 * the selftests). Nothing here may be duplicated elsewhere.
 */
#ifndef _UAPI_LINUX_QPU_H
#define _UAPI_LINUX_QPU_H

#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: the qpu device
 *
 * Each V3D that qpu.ko drives, real or simulated, appears as a character
 * device: the first as ``/dev/qpu``, later ones as ``/dev/qpu1``, ``/dev/qpu2``
 * and so on. All requests are ioctls on an open file of that device.
 *
 * Privilege: QPU programs on a real V3D can read and write any memory, so
 * running them is a privileged operation on real hardware (the same gate as
 * ``/dev/mem``). Queries such as &QPU_IOCTL_GET_PARAM need no privilege. The
 * simulated V3D checks every memory access of a program and is open to any
 * user who may open the node.
 *
 * Feature probing: a program asks &QPU_PARAM_FEATURES and tests its bits,
 * or tries an ioctl and treats -ENOTTY as absent. It never compares
 * &QPU_PARAM_ABI_VERSION to decide whether a feature exists; that number only
 * changes on an incompatible break, which this ABI promises never to make.
 *
 * Conventions of every ioctl below: structs are 64-bit aligned and only ever
 * grow at their end. The kernel accepts a struct shorter than its own as long
 * as it holds every member of the first version (the missing tail reads as
 * zero), and a longer one as long as the bytes it does not know are zero
 * (otherwise -E2BIG). Members named ``pad`` must be zero (-EINVAL); unknown
 * ``flags`` bits give -EINVAL; user pointers travel as __u64; bus addresses
 * are __u32 because the V3D is a 32-bit device.
 */

/**
 * QPU_IOCTL_BASE - the ioctl type byte of qpu.
 *
 * 0xBC is free in Documentation/userspace-api/ioctl/ioctl-number.rst.
 */
#define QPU_IOCTL_BASE 0xBC

/**
 * enum qpu_ioctl_nr - ioctl numbers.
 * @QPU_IOCTL_NR_GET_PARAM: see &struct qpu_get_param.
 * @QPU_IOCTL_NR_BO_CREATE: see &struct qpu_bo_create.
 * @QPU_IOCTL_NR_BO_DESTROY: see &struct qpu_bo_destroy.
 *
 * New entries go at the end; nothing is ever reordered or reused.
 */
enum qpu_ioctl_nr {
	QPU_IOCTL_NR_GET_PARAM = 0x00,
	QPU_IOCTL_NR_BO_CREATE = 0x01,
	QPU_IOCTL_NR_BO_DESTROY = 0x02,
};

/**
 * enum qpu_param - what &QPU_IOCTL_GET_PARAM can report.
 * @QPU_PARAM_ABI_VERSION: the ABI version, &QPU_ABI_VERSION.
 * @QPU_PARAM_BACKEND: which kind of V3D stands behind the device,
 *	an &enum qpu_backend.
 * @QPU_PARAM_V3D_IDENT0: raw V3D IDENT0 register: technology version and
 *	the bytes "V3D".
 * @QPU_PARAM_V3D_IDENT1: raw V3D IDENT1 register: revision, slices, QPUs
 *	and TMUs per slice, semaphores, VPM size.
 * @QPU_PARAM_V3D_IDENT2: raw V3D IDENT2 register: VRI memory and tile
 *	buffer sizes.
 * @QPU_PARAM_NUM_QPUS: number of QPUs (slices times QPUs per slice); a job
 *	runs at most this many programs.
 * @QPU_PARAM_NUM_SLICES: number of slices.
 * @QPU_PARAM_NUM_SEMAPHORES: number of hardware semaphores.
 * @QPU_PARAM_VPM_SIZE: VPM size in bytes.
 * @QPU_PARAM_FEATURES: a mask of feature bits; none are defined yet. A bit
 *	is defined when its feature lands and keeps its meaning forever.
 * @QPU_PARAM_MAX_BO_SIZE: the largest buffer object, in bytes, that
 *	&QPU_IOCTL_BO_CREATE accepts now (the administrator may change it).
 *
 * New entries go at the end; nothing is ever reordered or reused.
 */
enum qpu_param {
	QPU_PARAM_ABI_VERSION = 0,
	QPU_PARAM_BACKEND = 1,
	QPU_PARAM_V3D_IDENT0 = 2,
	QPU_PARAM_V3D_IDENT1 = 3,
	QPU_PARAM_V3D_IDENT2 = 4,
	QPU_PARAM_NUM_QPUS = 5,
	QPU_PARAM_NUM_SLICES = 6,
	QPU_PARAM_NUM_SEMAPHORES = 7,
	QPU_PARAM_VPM_SIZE = 8,
	QPU_PARAM_FEATURES = 9,
	QPU_PARAM_MAX_BO_SIZE = 10,
};

/**
 * QPU_ABI_VERSION - version of this ABI, reported by &QPU_PARAM_ABI_VERSION.
 */
#define QPU_ABI_VERSION 1

/**
 * enum qpu_backend - values of &QPU_PARAM_BACKEND.
 * @QPU_BACKEND_HW: a real V3D, bound through the device tree.
 * @QPU_BACKEND_SIM: the simulated V3D inside qpu.ko, created by its ``sim``
 *	module parameter; it checks every memory access of a program.
 */
enum qpu_backend {
	QPU_BACKEND_HW = 1,
	QPU_BACKEND_SIM = 2,
};

/**
 * struct qpu_get_param - argument of &QPU_IOCTL_GET_PARAM.
 * @param: Input: an &enum qpu_param; an unknown one gives -EINVAL.
 * @pad: Input: must be zero.
 * @value: Output: the parameter's value.
 */
struct qpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

#define QPU_IOCTL_GET_PARAM \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_GET_PARAM, struct qpu_get_param)

/**
 * DOC: buffer objects
 *
 * A buffer object (BO) is memory that QPU programs and the CPU share. It is
 * zeroed when created, named by a handle that is only meaningful in the file
 * that created it, seen by QPU code at a 32-bit bus address, and mapped by
 * the CPU with mmap() of the device file at the BO's mmap offset, shared
 * (MAP_SHARED) and within the BO's pages.
 *
 * A BO lives while anything uses it: its handle, a CPU mapping, or a job.
 * Destroying the handle or closing the file does not pull memory from under
 * a mapping or a running job; the memory is freed when the last user goes.
 *
 * Limits, set by the administrator: the largest BO, the bytes one open file
 * may hold (-EDQUOT past it) and the bytes a device may hold (-ENOSPC past
 * it). Mmap offsets fit in a 32-bit off_t.
 */

/**
 * struct qpu_bo_create - argument of &QPU_IOCTL_BO_CREATE.
 * @size: Input: bytes wanted, at least one and at most the largest BO size;
 *	Output: the size given, rounded up to whole pages.
 * @flags: Input: must be zero; no flags are defined yet.
 * @handle: Output: the BO's handle in this file, never zero.
 * @bus_addr: Output: where QPU programs see the BO's first byte.
 * @pad: Input: must be zero.
 * @mmap_offset: Output: the offset to pass to mmap() on this file.
 *
 * Errors: -EINVAL for a zero or too large size, flags or pad; -EDQUOT when
 * this file's limit is reached; -ENOSPC when the device's limit or its bus
 * address space is; -ENOMEM when the memory cannot be had.
 */
struct qpu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u32 bus_addr;
	__u32 pad;
	__u64 mmap_offset;
};

#define QPU_IOCTL_BO_CREATE \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_CREATE, struct qpu_bo_create)

/**
 * struct qpu_bo_destroy - argument of &QPU_IOCTL_BO_DESTROY.
 * @handle: Input: the BO to forget; -ENOENT when this file has no such BO.
 * @pad: Input: must be zero.
 *
 * The handle is gone when this returns; the memory stays while mappings or
 * jobs still use it.
 */
struct qpu_bo_destroy {
	__u32 handle;
	__u32 pad;
};

#define QPU_IOCTL_BO_DESTROY \
	_IOW(QPU_IOCTL_BASE, QPU_IOCTL_NR_BO_DESTROY, struct qpu_bo_destroy)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_LINUX_QPU_H */
