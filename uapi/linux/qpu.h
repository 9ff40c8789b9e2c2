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
 * @QPU_IOCTL_NR_SUBMIT: see &struct qpu_submit.
 * @QPU_IOCTL_NR_WAIT: see &struct qpu_wait.
 *
 * New entries go at the end; nothing is ever reordered or reused.
 */
enum qpu_ioctl_nr {
	QPU_IOCTL_NR_GET_PARAM = 0x00,
	QPU_IOCTL_NR_BO_CREATE = 0x01,
	QPU_IOCTL_NR_BO_DESTROY = 0x02,
	QPU_IOCTL_NR_SUBMIT = 0x03,
	QPU_IOCTL_NR_WAIT = 0x04,
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
 * @QPU_PARAM_DEFAULT_TIMEOUT_MS: the timeout of a job that asks for none.
 * @QPU_PARAM_MAX_TIMEOUT_MS: the longest timeout a job may have.
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
	QPU_PARAM_DEFAULT_TIMEOUT_MS = 11,
	QPU_PARAM_MAX_TIMEOUT_MS = 12,
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

/**
 * DOC: jobs
 *
 * A job runs up to one program per QPU at once, as the V3D's user-program
 * queue does: each program starts at an address inside a code BO and reads
 * its uniforms from an address inside a uniforms BO. The job lists every BO
 * its programs touch; on the simulated V3D an access to any other address
 * stops the job with a fault. &QPU_IOCTL_SUBMIT never blocks: the job waits
 * for its in-fence, then for the jobs submitted before it on the same file,
 * then for its turn on the V3D (files take turns, so one file cannot starve
 * another), and runs until every program has ended or its timeout passes.
 * A job past its timeout is stopped by resetting the V3D; jobs queued behind
 * it run on.
 *
 * Completion is seen three ways: the out-fence (a sync_file fd, pollable),
 * &QPU_IOCTL_WAIT on the job's sequence number, or &QPU_IOCTL_WAIT on any BO
 * the job used. Closing the file cancels its jobs that have not started;
 * a running job runs to its end, and its BOs live until then.
 *
 * On real hardware, submitting needs CAP_SYS_RAWIO unless the administrator
 * allowed otherwise: QPU programs there can read and write all memory.
 */

/**
 * struct qpu_program - one program of a job, an element of
 * &qpu_submit.programs.
 * @code_handle: Input: the BO holding the code.
 * @code_offset: Input: offset of the first instruction, a multiple of 8.
 * @unif_handle: Input: the BO holding the uniforms.
 * @unif_offset: Input: offset of the first uniform, a multiple of 4.
 */
struct qpu_program {
	__u32 code_handle;
	__u32 code_offset;
	__u32 unif_handle;
	__u32 unif_offset;
};

/**
 * enum qpu_submit_flags - bits of &qpu_submit.flags.
 * @QPU_SUBMIT_IN_FENCE: wait for the sync_file in &qpu_submit.in_fence_fd.
 * @QPU_SUBMIT_OUT_FENCE: return a sync_file in &qpu_submit.out_fence_fd.
 */
enum qpu_submit_flags {
	QPU_SUBMIT_IN_FENCE = 1 << 0,
	QPU_SUBMIT_OUT_FENCE = 1 << 1,
};

/**
 * struct qpu_submit - argument of &QPU_IOCTL_SUBMIT.
 * @programs: Input: pointer to @program_count elements of @program_size
 *	bytes, each a &struct qpu_program (bytes past the ones this kernel
 *	knows must be zero).
 * @bo_handles: Input: pointer to @bo_count __u32 handles of the BOs the
 *	programs read or write, besides their code and uniforms BOs (which
 *	are always included).
 * @program_count: Input: 1 to &QPU_PARAM_NUM_QPUS.
 * @program_size: Input: sizeof(struct qpu_program) as the caller knows it,
 *	at least 16.
 * @bo_count: Input: entries in @bo_handles, at most 4096.
 * @flags: Input: &enum qpu_submit_flags.
 * @in_fence_fd: Input: a sync_file fd, with &QPU_SUBMIT_IN_FENCE.
 * @out_fence_fd: Output: a new sync_file fd (close-on-exec), with
 *	&QPU_SUBMIT_OUT_FENCE; signalled when the job ends, whatever its status.
 * @timeout_ms: Input: the job's timeout from its start on the V3D; 0 for
 *	&QPU_PARAM_DEFAULT_TIMEOUT_MS; longer than &QPU_PARAM_MAX_TIMEOUT_MS is
 *	cut to it.
 * @pad: Input: must be zero.
 * @seqno: Output: the job's number in this file, for &QPU_IOCTL_WAIT.
 *
 * Errors: -EINVAL for a bad count, size, offset, flag, pad or fence fd;
 * -ENOENT for a handle this file does not have; -EFAULT for bad pointers;
 * -EPERM when the caller may not run programs on this V3D.
 */
struct qpu_submit {
	__u64 programs;
	__u64 bo_handles;
	__u32 program_count;
	__u32 program_size;
	__u32 bo_count;
	__u32 flags;
	__s32 in_fence_fd;
	__s32 out_fence_fd;
	__u32 timeout_ms;
	__u32 pad;
	__u64 seqno;
};

#define QPU_IOCTL_SUBMIT \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_SUBMIT, struct qpu_submit)

/**
 * enum qpu_job_status - how a job ended, in &qpu_wait.status.
 * @QPU_JOB_DONE: every program reached its end.
 * @QPU_JOB_TIMEOUT: the job ran past its timeout; the V3D was reset.
 * @QPU_JOB_FAULT: a program touched memory outside the job's BOs
 *	(simulated V3D only); &qpu_wait.fault_qpu and the next fields say
 *	where. Nothing was written after the fault.
 * @QPU_JOB_CANCELED: the job never started: its file was closed, its
 *	in-fence failed, or the device went away; or it was running when an
 *	administrator reset the V3D (&QPU_CMD_DEV_RESET).
 */
enum qpu_job_status {
	QPU_JOB_DONE = 1,
	QPU_JOB_TIMEOUT = 2,
	QPU_JOB_FAULT = 3,
	QPU_JOB_CANCELED = 4,
};

/**
 * enum qpu_wait_flags - bits of &qpu_wait.flags.
 * @QPU_WAIT_BO: &qpu_wait.handle names a BO: wait for the last job
 *	submitted on this file that uses it; without it, &qpu_wait.seqno
 *	names the job.
 */
enum qpu_wait_flags {
	QPU_WAIT_BO = 1 << 0,
};

/**
 * enum qpu_fault_access - what a faulting access was for.
 * @QPU_FAULT_FETCH: instruction fetch.
 * @QPU_FAULT_UNIFORM: uniform read.
 * @QPU_FAULT_TMU: TMU read.
 * @QPU_FAULT_DMA_LOAD: VCD DMA from memory.
 * @QPU_FAULT_DMA_STORE: VCD DMA to memory.
 * @QPU_FAULT_OTHER: not a memory access (an instruction the V3D cannot run,
 *	a VPM access out of range).
 */
enum qpu_fault_access {
	QPU_FAULT_FETCH = 1,
	QPU_FAULT_UNIFORM = 2,
	QPU_FAULT_TMU = 3,
	QPU_FAULT_DMA_LOAD = 4,
	QPU_FAULT_DMA_STORE = 5,
	QPU_FAULT_OTHER = 6,
};

/**
 * struct qpu_wait - argument of &QPU_IOCTL_WAIT.
 * @seqno: Input: the job (&qpu_submit.seqno), unless &QPU_WAIT_BO.
 * @timeout_ns: Input: absolute CLOCK_MONOTONIC deadline in ns; a time in
 *	the past only polls. -ETIME when the job has not ended by then.
 * @handle: Input: the BO, with &QPU_WAIT_BO.
 * @flags: Input: &enum qpu_wait_flags.
 * @status: Output: an &enum qpu_job_status.
 * @fault_qpu: Output: for &QPU_JOB_FAULT, the QPU (0-based).
 * @fault_pc: Output: for &QPU_JOB_FAULT, bus address of the instruction.
 * @fault_addr: Output: for &QPU_JOB_FAULT, the address refused.
 * @fault_access: Output: for &QPU_JOB_FAULT, an &enum qpu_fault_access.
 * @pad: Input: must be zero.
 *
 * Errors: -ENOENT for a job this file never submitted or has forgotten (the
 * last 1024 are kept) or a BO it does not have; -ETIME; -EINTR when a
 * signal came first (the absolute deadline makes a restart safe).
 * Waiting on a BO no job has used answers &QPU_JOB_DONE at once.
 */
struct qpu_wait {
	__u64 seqno;
	__s64 timeout_ns;
	__u32 handle;
	__u32 flags;
	__u32 status;
	__u32 fault_qpu;
	__u32 fault_pc;
	__u32 fault_addr;
	__u32 fault_access;
	__u32 pad;
};

#define QPU_IOCTL_WAIT \
	_IOWR(QPU_IOCTL_BASE, QPU_IOCTL_NR_WAIT, struct qpu_wait)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_LINUX_QPU_H */
